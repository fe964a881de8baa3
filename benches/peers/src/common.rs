//! Component types shared by every library, the workload list, the plain-Rust reference
//! digests, and the churn script of the determinism probe.

#![allow(clippy::needless_range_loop)]

/// One component type implementing every library's component trait (hecs and sparsey need none).
macro_rules! components {
    ($($name:ident($ty:ty);)*) => {$(
        #[derive(
            rota::Component, bevy_ecs::component::Component, shipyard::Component, Clone, Copy, Debug,
        )]
        #[allow(dead_code)]
        pub struct $name(pub $ty);
    )*};
}

components! {
    Transform([[f32; 4]; 4]);
    Position([f32; 3]);
    Rotation([f32; 3]);
    Velocity([f32; 3]);
    Data(f32);
    AddA(f32);
    AddB(f32);
    A(f32);
    B(f32);
    C(f32);
    D(f32);
    E(f32);
    Label(u32);
}

/// The 26 fragmenting types of `fragmented_iter`.
pub mod frag {
    components! {
        A(f32); B(f32); C(f32); D(f32); E(f32); F(f32); G(f32); H(f32); I(f32); J(f32); K(f32);
        L(f32); M(f32); N(f32); O(f32); P(f32); Q(f32); R(f32); S(f32); T(f32); U(f32); V(f32);
        W(f32); X(f32); Y(f32); Z(f32);
    }
}

/// Calls `$m!($world, frag::X)` for each of the 26 fragmenting types.
macro_rules! frag_all {
    ($m:ident, $w:expr) => {
        $m!($w, A);
        $m!($w, B);
        $m!($w, C);
        $m!($w, D);
        $m!($w, E);
        $m!($w, F);
        $m!($w, G);
        $m!($w, H);
        $m!($w, I);
        $m!($w, J);
        $m!($w, K);
        $m!($w, L);
        $m!($w, M);
        $m!($w, N);
        $m!($w, O);
        $m!($w, P);
        $m!($w, Q);
        $m!($w, R);
        $m!($w, S);
        $m!($w, T);
        $m!($w, U);
        $m!($w, V);
        $m!($w, W);
        $m!($w, X);
        $m!($w, Y);
        $m!($w, Z);
    };
}

pub const N: usize = 10_000;
pub const HEAVY_N: usize = 1_000;
pub const FRAG_PER_TYPE: usize = 20;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Workload {
    SimpleInsert,
    SimpleIter,
    FragmentedIter,
    AddRemove,
    Schedule,
    HeavyCompute,
    Despawn,
}

impl Workload {
    pub const ALL: [Workload; 7] = [
        Workload::SimpleInsert,
        Workload::SimpleIter,
        Workload::FragmentedIter,
        Workload::AddRemove,
        Workload::Schedule,
        Workload::HeavyCompute,
        Workload::Despawn,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Workload::SimpleInsert => "simple_insert",
            Workload::SimpleIter => "simple_iter",
            Workload::FragmentedIter => "fragmented_iter",
            Workload::AddRemove => "add_remove",
            Workload::Schedule => "schedule",
            Workload::HeavyCompute => "heavy_compute",
            Workload::Despawn => "despawn",
        }
    }
}

/// One timed case: `run` is one iteration of the workload, `digest` summarises the state.
/// A case with a `prepare` step (despawn: spawn the entities to despawn) has it run, untimed,
/// before every timed iteration.
pub trait Bench {
    fn run(&mut self);
    fn digest(&mut self) -> f64;
    fn prepare(&mut self) {}
    fn has_prepare(&self) -> bool {
        false
    }
}

pub struct Case<W> {
    pub w: W,
    pub run: fn(&mut W),
    pub digest: fn(&mut W) -> f64,
    pub prepare: Option<fn(&mut W)>,
}

impl<W> Bench for Case<W> {
    fn run(&mut self) {
        (self.run)(&mut self.w)
    }
    fn digest(&mut self) -> f64 {
        (self.digest)(&mut self.w)
    }
    fn prepare(&mut self) {
        if let Some(prepare) = self.prepare {
            prepare(&mut self.w)
        }
    }
    fn has_prepare(&self) -> bool {
        self.prepare.is_some()
    }
}

pub fn case<W: 'static>(w: W, run: fn(&mut W), digest: fn(&mut W) -> f64) -> Box<dyn Bench> {
    Box::new(Case {
        w,
        run,
        digest,
        prepare: None,
    })
}

/// A case whose `prepare` runs untimed before each timed `run`.
pub fn prepared_case<W: 'static>(
    w: W,
    prepare: fn(&mut W),
    run: fn(&mut W),
    digest: fn(&mut W) -> f64,
) -> Box<dyn Bench> {
    Box::new(Case {
        w,
        run,
        digest,
        prepare: Some(prepare),
    })
}

/// The despawn workload's order: a fixed permutation of `0..N` (the same for every library).
pub fn despawn_order() -> Vec<usize> {
    let mut order: Vec<usize> = (0..N).collect();
    SplitMix64(0xDE5B_A3E5).shuffle(&mut order);
    order
}

// ---- initial values (per entity, so a digest notices skipped or doubled entities) ----

pub fn bundle(i: usize) -> (Transform, Position, Rotation, Velocity) {
    (
        Transform([
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ]),
        Position([1.0, (i % 3) as f32, 0.0]),
        Rotation([1.0, 0.0, 0.0]),
        Velocity([(i % 5) as f32, 1.0, 0.5]),
    )
}

pub fn heavy_bundle(i: usize) -> (Transform, Position, Rotation, Velocity) {
    (
        Transform([
            [1.0, 0.0, 0.0, (i % 3) as f32],
            [0.0, 1.0, 0.0, 1.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ]),
        Position([(i % 4) as f32, 0.0, 0.0]),
        Rotation([1.0, 0.0, 0.0]),
        Velocity([1.0, 0.0, 0.0]),
    )
}

/// The four archetypes of `schedule`, `N` entities each; per-entity values.
pub fn sched_ab(i: usize) -> (A, B) {
    (A((i % 3) as f32), B(1.0 + (i % 2) as f32))
}
pub fn sched_abc(i: usize) -> (A, B, C) {
    let (a, b) = sched_ab(i);
    (a, b, C(2.0 + (i % 4) as f32))
}
pub fn sched_abcd(i: usize) -> (A, B, C, D) {
    let (a, b, c) = sched_abc(i);
    (a, b, c, D(3.0))
}
pub fn sched_abce(i: usize) -> (A, B, C, E) {
    let (a, b, c) = sched_abc(i);
    (a, b, c, E(5.0 + (i % 2) as f32))
}

// ---- digests ----

pub fn sum_bundle(t: &Transform, p: &Position, r: &Rotation, v: &Velocity) -> f64 {
    t.0.iter().flatten().map(|&x| x as f64).sum::<f64>()
        + p.0
            .iter()
            .chain(&r.0)
            .chain(&v.0)
            .map(|&x| x as f64)
            .sum::<f64>()
}
/// simple_iter's work on one entity, for the libraries whose loops hand out `Position` and
/// `Velocity` references (rota, hecs).
#[inline]
pub fn step(p: &mut Position, v: &Velocity) {
    p.0[0] += v.0[0];
    p.0[1] += v.0[1];
    p.0[2] += v.0[2];
}
pub fn sum3(p: &[f32; 3]) -> f64 {
    p.iter().map(|&x| x as f64).sum()
}
pub fn sum_heavy(t: &Transform, p: &Position) -> f64 {
    t.0.iter().flatten().map(|&x| x as f64).sum::<f64>() + sum3(&p.0)
}
/// Weighted so that a swap changes the digest: A·1 + B·2 + C·3 + D·4 + E·5.
pub fn w(k: f64, x: f32) -> f64 {
    k * x as f64
}

/// The digest a correct implementation must produce after `iters` iterations (plain Rust).
pub fn reference(wl: Workload, iters: usize) -> f64 {
    match wl {
        Workload::SimpleInsert => (0..N)
            .map(|i| {
                let (t, p, r, v) = bundle(i);
                sum_bundle(&t, &p, &r, &v)
            })
            .sum(),
        Workload::SimpleIter => (0..N)
            .map(|i| {
                let (_, mut p, _, v) = bundle(i);
                for _ in 0..iters {
                    for k in 0..3 {
                        p.0[k] += v.0[k];
                    }
                }
                sum3(&p.0)
            })
            .sum(),
        Workload::FragmentedIter => {
            let mut d = 1.0f32;
            for _ in 0..iters {
                d *= 2.0;
            }
            (26 * FRAG_PER_TYPE) as f64 * d as f64
        }
        Workload::AddRemove => N as f64,
        // Everything spawned by `prepare` is gone: no `Position` is left.
        Workload::Despawn => 0.0,
        Workload::Schedule => {
            // [A, B, C, D, E], None = absent.
            let mut rows: Vec<[Option<f32>; 5]> = Vec::new();
            for i in 0..N {
                let (a, b) = sched_ab(i);
                rows.push([Some(a.0), Some(b.0), None, None, None]);
                let (a, b, c) = sched_abc(i);
                rows.push([Some(a.0), Some(b.0), Some(c.0), None, None]);
                let (a, b, c, d) = sched_abcd(i);
                rows.push([Some(a.0), Some(b.0), Some(c.0), Some(d.0), None]);
                let (a, b, c, e) = sched_abce(i);
                rows.push([Some(a.0), Some(b.0), Some(c.0), None, Some(e.0)]);
            }
            for _ in 0..iters {
                for (x, y) in [(0, 1), (2, 3), (2, 4)] {
                    for r in &mut rows {
                        if let (Some(_), Some(_)) = (r[x], r[y]) {
                            r.swap(x, y);
                        }
                    }
                }
            }
            rows.iter()
                .flat_map(|r| r.iter().enumerate())
                .filter_map(|(k, v)| v.map(|v| w(k as f64 + 1.0, v)))
                .sum()
        }
        Workload::HeavyCompute => (0..HEAVY_N)
            .map(|i| {
                let (mut t, mut p, _, _) = heavy_bundle(i);
                for _ in 0..iters {
                    heavy(&mut t, &mut p);
                }
                sum_heavy(&t, &p)
            })
            .sum(),
    }
}

// ---- heavy_compute kernel (copied from benches/schedule.rs) ----

/// 4x4 inverse by cofactors; returns the input unchanged if it is singular.
pub fn invert(m: [[f32; 4]; 4]) -> [[f32; 4]; 4] {
    let a: [f32; 16] = [
        m[0][0], m[0][1], m[0][2], m[0][3], m[1][0], m[1][1], m[1][2], m[1][3], m[2][0], m[2][1],
        m[2][2], m[2][3], m[3][0], m[3][1], m[3][2], m[3][3],
    ];
    let mut inv = [0.0f32; 16];
    inv[0] = a[5] * a[10] * a[15] - a[5] * a[11] * a[14] - a[9] * a[6] * a[15]
        + a[9] * a[7] * a[14]
        + a[13] * a[6] * a[11]
        - a[13] * a[7] * a[10];
    inv[4] = -a[4] * a[10] * a[15] + a[4] * a[11] * a[14] + a[8] * a[6] * a[15]
        - a[8] * a[7] * a[14]
        - a[12] * a[6] * a[11]
        + a[12] * a[7] * a[10];
    inv[8] = a[4] * a[9] * a[15] - a[4] * a[11] * a[13] - a[8] * a[5] * a[15]
        + a[8] * a[7] * a[13]
        + a[12] * a[5] * a[11]
        - a[12] * a[7] * a[9];
    inv[12] = -a[4] * a[9] * a[14] + a[4] * a[10] * a[13] + a[8] * a[5] * a[14]
        - a[8] * a[6] * a[13]
        - a[12] * a[5] * a[10]
        + a[12] * a[6] * a[9];
    let det = a[0] * inv[0] + a[1] * inv[4] + a[2] * inv[8] + a[3] * inv[12];
    if det == 0.0 {
        return m;
    }
    inv[1] = -a[1] * a[10] * a[15] + a[1] * a[11] * a[14] + a[9] * a[2] * a[15]
        - a[9] * a[3] * a[14]
        - a[13] * a[2] * a[11]
        + a[13] * a[3] * a[10];
    inv[5] = a[0] * a[10] * a[15] - a[0] * a[11] * a[14] - a[8] * a[2] * a[15]
        + a[8] * a[3] * a[14]
        + a[12] * a[2] * a[11]
        - a[12] * a[3] * a[10];
    inv[9] = -a[0] * a[9] * a[15] + a[0] * a[11] * a[13] + a[8] * a[1] * a[15]
        - a[8] * a[3] * a[13]
        - a[12] * a[1] * a[11]
        + a[12] * a[3] * a[9];
    inv[13] = a[0] * a[9] * a[14] - a[0] * a[10] * a[13] - a[8] * a[1] * a[14]
        + a[8] * a[2] * a[13]
        + a[12] * a[1] * a[10]
        - a[12] * a[2] * a[9];
    inv[2] = a[1] * a[6] * a[15] - a[1] * a[7] * a[14] - a[5] * a[2] * a[15]
        + a[5] * a[3] * a[14]
        + a[13] * a[2] * a[7]
        - a[13] * a[3] * a[6];
    inv[6] = -a[0] * a[6] * a[15] + a[0] * a[7] * a[14] + a[4] * a[2] * a[15]
        - a[4] * a[3] * a[14]
        - a[12] * a[2] * a[7]
        + a[12] * a[3] * a[6];
    inv[10] = a[0] * a[5] * a[15] - a[0] * a[7] * a[13] - a[4] * a[1] * a[15]
        + a[4] * a[3] * a[13]
        + a[12] * a[1] * a[7]
        - a[12] * a[3] * a[5];
    inv[14] = -a[0] * a[5] * a[14] + a[0] * a[6] * a[13] + a[4] * a[1] * a[14]
        - a[4] * a[2] * a[13]
        - a[12] * a[1] * a[6]
        + a[12] * a[2] * a[5];
    inv[3] = -a[1] * a[6] * a[11] + a[1] * a[7] * a[10] + a[5] * a[2] * a[11]
        - a[5] * a[3] * a[10]
        - a[9] * a[2] * a[7]
        + a[9] * a[3] * a[6];
    inv[7] = a[0] * a[6] * a[11] - a[0] * a[7] * a[10] - a[4] * a[2] * a[11]
        + a[4] * a[3] * a[10]
        + a[8] * a[2] * a[7]
        - a[8] * a[3] * a[6];
    inv[11] = -a[0] * a[5] * a[11] + a[0] * a[7] * a[9] + a[4] * a[1] * a[11]
        - a[4] * a[3] * a[9]
        - a[8] * a[1] * a[7]
        + a[8] * a[3] * a[5];
    inv[15] = a[0] * a[5] * a[10] - a[0] * a[6] * a[9] - a[4] * a[1] * a[10]
        + a[4] * a[2] * a[9]
        + a[8] * a[1] * a[6]
        - a[8] * a[2] * a[5];
    let r = 1.0 / det;
    let mut out = [[0.0; 4]; 4];
    for (i, v) in inv.iter().enumerate() {
        out[i / 4][i % 4] = v * r;
    }
    out
}

pub fn heavy(t: &mut Transform, p: &mut Position) {
    for _ in 0..100 {
        t.0 = invert(t.0);
    }
    let m = t.0;
    let v = p.0;
    p.0 = [
        m[0][0] * v[0] + m[0][1] * v[1] + m[0][2] * v[2] + m[0][3],
        m[1][0] * v[0] + m[1][1] * v[1] + m[1][2] * v[2] + m[1][3],
        m[2][0] * v[0] + m[2][1] * v[1] + m[2][2] * v[2] + m[2][3],
    ];
}

// ---- seeded shuffling ----

pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = (self.next_u64() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
    }
}

// ---- determinism probe script ----

pub const PROBE_FIRST: u32 = 1_000;
pub const PROBE_MORE: u32 = 300;

/// A churn history. Every library executes the same one:
/// 1. spawn labels `0..1000`, each entity with `Label(label)`;
/// 2. despawn every label `l % 3 == 0` in `despawn` order;
/// 3. spawn labels `1000..1300`;
/// 4. remove `Label` from the `toggle` subset in `remove` order, then re-add it in `readd` order;
/// 5. record the visit order of a query over `Label`.
pub struct History {
    pub despawn: Vec<u32>,
    pub remove: Vec<u32>,
    pub readd: Vec<u32>,
}

impl History {
    /// History `seed`'s despawns, with the remove/re-add orders of history `churn_seed`:
    /// identical entity ids for any deterministic allocator, different component churn.
    pub fn with_churn_of(seed: u64, churn_seed: u64) -> History {
        let h = History::new(seed);
        let c = History::new(churn_seed);
        History {
            despawn: h.despawn,
            remove: c.remove,
            readd: c.readd,
        }
    }

    pub fn new(seed: u64) -> History {
        let mut rng = SplitMix64(seed);
        let mut despawn: Vec<u32> = (0..PROBE_FIRST).filter(|l| l % 3 == 0).collect();
        rng.shuffle(&mut despawn);
        let mut remove: Vec<u32> = (0..PROBE_FIRST + PROBE_MORE)
            .filter(|l| l % 5 == 1 && (l % 3 != 0 || *l >= PROBE_FIRST))
            .collect();
        rng.shuffle(&mut remove);
        let mut readd = remove.clone();
        rng.shuffle(&mut readd);
        History {
            despawn,
            remove,
            readd,
        }
    }
}
