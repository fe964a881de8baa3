//! Access lists: what a query or a system parameter touches, as run-time data ([`Access`]) and
//! as a tree a `const fn` can walk ([`ConstAccess`]), and the aliasing rule both are held to.
//!
//! # The aliasing rule
//!
//! Two accesses to the same store alias when one of them writes values and neither is a
//! *membership* access. Filters (`With<T>`, `Without<T>`) only ask whether an entity has a `T`,
//! and membership cannot change while a system runs (structural changes are deferred), so
//! `Query<&mut H, With<H>>` is fine while `Query<(&mut H, &H)>` is not.

use std::any::TypeId;

use crate::const_text::{ConstMessage, str_eq};

/// Which kind of storage an access reaches.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Space {
    /// A component store.
    Component,
    /// A resource.
    Resource,
}

/// How an access uses what it reaches.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Reads values.
    Read,
    /// Writes values (and so reads them).
    Write,
    /// Only tests which entities are present (filters).
    Membership,
}

impl Mode {
    /// Whether two accesses to the same store in one system would alias.
    pub const fn aliases(self, other: Mode) -> bool {
        matches!(
            (self, other),
            (Mode::Write, Mode::Write) | (Mode::Write, Mode::Read) | (Mode::Read, Mode::Write)
        )
    }
}

/// One access to a store or resource: its type, name, and how it is used.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Access {
    /// The component's or resource's `TypeId`.
    pub type_id: TypeId,
    /// Its name, for messages.
    pub name: &'static str,
    /// Component store or resource.
    pub space: Space,
    /// Read, write or membership.
    pub mode: Mode,
    /// The store registry's key for the type (0: none), so a query finds its store with one
    /// array index. A lookup key only (it depends on which type a process met first).
    #[doc(hidden)]
    pub registry_key: u32,
}

/// Where [`QueryData`](super::QueryData) and system parameters append their accesses: a `Vec`
/// for systems (built once), an inline list for a world-level query (built per query, so it
/// must not allocate).
#[doc(hidden)]
pub trait AccessSink {
    /// Appends one access.
    fn push_access(&mut self, access: Access);
}

impl AccessSink for Vec<Access> {
    fn push_access(&mut self, access: Access) {
        self.push(access);
    }
}

impl<const N: usize> AccessSink for crate::inline_vec::InlineVec<Access, N> {
    #[inline]
    fn push_access(&mut self, access: Access) {
        self.push(access);
    }
}

/// A placeholder for the empty slots of an inline access list (`inline_vec.rs`); never an
/// access anything reads.
impl Default for Access {
    fn default() -> Self {
        Access {
            type_id: TypeId::of::<()>(),
            name: "",
            space: Space::Component,
            mode: Mode::Membership,
            registry_key: 0,
        }
    }
}

impl Access {
    /// Whether the access writes.
    pub fn writes(&self) -> bool {
        self.mode == Mode::Write
    }
}

/// The first pair of accesses in `accesses` that alias, compared by `TypeId` (this also covers
/// generic components and resources, which have no `const` identity): the name of the type.
pub fn find_alias_runtime(accesses: &[Access]) -> Option<&'static str> {
    accesses.iter().enumerate().find_map(|(i, a)| {
        accesses[i + 1..]
            .iter()
            .any(|b| b.type_id == a.type_id && b.space == a.space && a.mode.aliases(b.mode))
            .then_some(a.name)
    })
}

/// A query's or parameter's accesses as a tree a `const fn` can walk (tuples are lists).
#[derive(Copy, Clone, Debug)]
pub enum ConstAccess {
    /// One access.
    Leaf {
        /// The type's name, for messages.
        name: &'static str,
        /// The type's `UNIQUE_KEY`: only keyed types are compared at compile time.
        key: Option<&'static str>,
        /// Component store or resource.
        space: Space,
        /// Read, write or membership.
        mode: Mode,
    },
    /// A tuple's (or a composite parameter's) accesses.
    List(&'static [ConstAccess]),
}

const fn same_space(a: Space, b: Space) -> bool {
    matches!(
        (a, b),
        (Space::Component, Space::Component) | (Space::Resource, Space::Resource)
    )
}

/// Whether the leaf `(key, space, mode)` aliases any leaf of `node`, skipping the `skip`-th
/// leaf of `node` in walk order (the leaf itself, when `node` is its own tree).
const fn leaf_aliases_in(
    key: &str,
    space: Space,
    mode: Mode,
    node: &ConstAccess,
    skip: usize,
    seen: &mut usize,
) -> bool {
    match node {
        ConstAccess::Leaf {
            key: k,
            space: s,
            mode: m,
            ..
        } => {
            let me = *seen;
            *seen += 1;
            match k {
                Some(k) => {
                    me != skip && str_eq(k, key) && same_space(*s, space) && mode.aliases(*m)
                }
                None => false,
            }
        }
        ConstAccess::List(children) => {
            let mut i = 0;
            while i < children.len() {
                if leaf_aliases_in(key, space, mode, &children[i], skip, seen) {
                    return true;
                }
                i += 1;
            }
            false
        }
    }
}

/// The first leaf of `node` (walk order, counted in `seen`) that aliases a leaf of `other`
/// (`same`: `other` is `node` itself, so a leaf is not compared with itself).
const fn first_alias(
    node: &ConstAccess,
    other: &ConstAccess,
    same: bool,
    seen: &mut usize,
) -> Option<&'static str> {
    match node {
        ConstAccess::Leaf {
            name,
            key: Some(key),
            space,
            mode,
        } => {
            let me = *seen;
            *seen += 1;
            let mut counter = 0;
            let skip = if same { me } else { usize::MAX };
            if leaf_aliases_in(key, *space, *mode, other, skip, &mut counter) {
                Some(name)
            } else {
                None
            }
        }
        ConstAccess::Leaf { key: None, .. } => {
            *seen += 1;
            None
        }
        ConstAccess::List(children) => {
            let mut i = 0;
            while i < children.len() {
                if let Some(n) = first_alias(&children[i], other, same, seen) {
                    return Some(n);
                }
                i += 1;
            }
            None
        }
    }
}

/// How many accesses `access` lists (leaves, tuples flattened): a world-level query with one
/// names one store and cannot alias (`QueryIter::from_world`'s one-store path).
pub(crate) const fn leaf_count(access: &ConstAccess) -> usize {
    match access {
        ConstAccess::Leaf { .. } => 1,
        ConstAccess::List(list) => {
            let mut n = 0;
            let mut i = 0;
            while i < list.len() {
                n += leaf_count(&list[i]);
                i += 1;
            }
            n
        }
    }
}

/// The first type `access` names twice in a way that aliases (for keyed types). Evaluated in
/// `const`, so aliasing queries fail to build.
pub const fn find_alias(access: &ConstAccess) -> Option<&'static str> {
    first_alias(access, access, true, &mut 0)
}

/// The first type that `a` and `b` (two different parameters) both access in a way that
/// aliases.
pub const fn find_alias_between(a: &ConstAccess, b: &ConstAccess) -> Option<&'static str> {
    first_alias(a, b, false, &mut 0)
}

/// Fails compilation if parameter `params[last]` of system `system` aliases itself or an earlier
/// parameter. `#[system]` evaluates one such `const` per parameter, spanned at the parameter, so
/// a mistake is reported once, at its second occurrence.
///
/// # Panics
///
/// At compile time, with a message naming the system, the parameter(s) and the type.
pub const fn check_parameter_aliasing(
    system: &str,
    names: &[&str],
    params: &[ConstAccess],
    last: usize,
) {
    let here = &params[last];
    if let Some(component) = find_alias(here) {
        let m = ConstMessage::concat(&[
            "system `",
            system,
            "`: parameter `",
            names[last],
            "` accesses `",
            component,
            "` twice and one access writes it; a `&mut` would alias: split the query",
        ]);
        panic!("{}", m.as_str());
    }
    let mut i = 0;
    while i < last {
        if let Some(component) = find_alias_between(here, &params[i]) {
            let m = ConstMessage::concat(&[
                "system `",
                system,
                "`: parameters `",
                names[i],
                "` and `",
                names[last],
                "` both access `",
                component,
                "` and one of them writes it; a `&mut` would alias: use one parameter",
            ]);
            panic!("{}", m.as_str());
        }
        i += 1;
    }
}

/// Fails compilation if system `system` holds more than one `Commands` buffer (`count`, summed
/// over its parameters by type): two buffers would reserve the same entities.
///
/// # Panics
///
/// At compile time, naming the system.
pub const fn check_one_commands(system: &str, count: u32) {
    if count > 1 {
        let m = ConstMessage::concat(&[
            "system `",
            system,
            "` takes `Commands` more than once (directly or inside a `SystemParam` struct); one buffer records everything (two would reserve the same entities)",
        ]);
        panic!("{}", m.as_str());
    }
}

/// The access list of an element or query that names one store: its one access.
pub(crate) struct OneAccess(pub(crate) Option<Access>);

impl AccessSink for OneAccess {
    #[inline]
    fn push_access(&mut self, access: Access) {
        debug_assert!(self.0.is_none(), "a one-store query with two accesses");
        self.0 = Some(access);
    }
}

/// Whether `node` holds a write.
const fn writes_any(node: &ConstAccess) -> Option<&'static str> {
    match node {
        ConstAccess::Leaf {
            name,
            mode: Mode::Write,
            ..
        } => Some(name),
        ConstAccess::Leaf { .. } => None,
        ConstAccess::List(list) => {
            let mut i = 0;
            while i < list.len() {
                if let Some(name) = writes_any(&list[i]) {
                    return Some(name);
                }
                i += 1;
            }
            None
        }
    }
}

/// Fails compilation if parameter `parameter` of run condition `condition` writes (its
/// `access` holds a write) or records commands (`commands` > 0): a condition only reads.
///
/// # Panics
///
/// At compile time, naming the condition, the parameter and what it writes.
pub const fn check_condition_parameter(
    condition: &str,
    parameter: &str,
    access: ConstAccess,
    commands: u32,
) {
    if let Some(name) = writes_any(&access) {
        let m = ConstMessage::concat(&[
            "condition `",
            condition,
            "`: parameter `",
            parameter,
            "` writes `",
            name,
            "`; a condition only reads (`Res`, `Query` of `&T`)",
        ]);
        panic!("{}", m.as_str());
    }
    if commands > 0 {
        let m = ConstMessage::concat(&[
            "condition `",
            condition,
            "`: parameter `",
            parameter,
            "` records `Commands`; a condition only reads",
        ]);
        panic!("{}", m.as_str());
    }
}
