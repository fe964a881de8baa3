use rota::{StableHash, StableHasher};

#[derive(StableHash)]
union Bits {
    int: u32,
    float: f32,
}

// The rejected derive still emits an impl: this use reports nothing more.
fn hash(bits: &Bits) -> u64 {
    let mut hasher = StableHasher::new();
    bits.stable_hash(&mut hasher);
    hasher.finish()
}

fn main() {
    let _ = hash;
}
