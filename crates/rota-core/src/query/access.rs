//! Access lists: what a query or system reads and writes, at run time and in `const`.

use std::any::TypeId;

use crate::component::Component;

/// One access to a component store: its type, name, and whether it writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Access {
    /// The component's `TypeId`.
    pub type_id: TypeId,
    /// The component's name.
    pub name: &'static str,
    /// Whether the access is mutable.
    pub write: bool,
}

impl Access {
    /// A read of `T`.
    pub fn read<T: Component>() -> Access {
        Access {
            type_id: TypeId::of::<T>(),
            name: T::NAME,
            write: false,
        }
    }

    /// A write of `T`.
    pub fn write<T: Component>() -> Access {
        Access {
            type_id: TypeId::of::<T>(),
            name: T::NAME,
            write: true,
        }
    }
}

/// A query's accesses as a tree a `const fn` can walk (tuples are lists).
#[derive(Copy, Clone, Debug)]
pub enum ConstAccess {
    /// One component access.
    Leaf {
        /// `Component::NAME`, for messages.
        name: &'static str,
        /// `Component::UNIQUE_KEY`: only components with a key are compared at compile time.
        key: Option<&'static str>,
        /// Whether the access is mutable.
        write: bool,
    },
    /// A tuple's accesses.
    List(&'static [ConstAccess]),
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// (accesses with key `key`, of which writes) in `node`.
const fn count(node: &ConstAccess, key: &str) -> (u32, u32) {
    match node {
        ConstAccess::Leaf {
            key: Some(k),
            write,
            ..
        } if str_eq(k, key) => (1, *write as u32),
        ConstAccess::Leaf { .. } => (0, 0),
        ConstAccess::List(children) => {
            let (mut total, mut writes) = (0, 0);
            let mut i = 0;
            while i < children.len() {
                let (t, w) = count(&children[i], key);
                total += t;
                writes += w;
                i += 1;
            }
            (total, writes)
        }
    }
}

const fn find_in(root: &ConstAccess, node: &ConstAccess) -> Option<&'static str> {
    match node {
        ConstAccess::Leaf {
            name,
            key: Some(key),
            ..
        } => {
            let (total, writes) = count(root, key);
            if total >= 2 && writes >= 1 {
                Some(name)
            } else {
                None
            }
        }
        ConstAccess::Leaf { .. } => None,
        ConstAccess::List(children) => {
            let mut i = 0;
            while i < children.len() {
                if let Some(n) = find_in(root, &children[i]) {
                    return Some(n);
                }
                i += 1;
            }
            None
        }
    }
}

/// The first component (by unique key) that `access` names twice with at least one write.
/// Evaluated in `const`, so aliasing queries fail to build.
pub const fn find_alias(access: &ConstAccess) -> Option<&'static str> {
    find_in(access, access)
}

/// Whether two component types are the same, comparing their unique keys in `const` (used by
/// `#[system]`'s compile-time alias checks). Generic components have no key and compare unequal
/// here; the run-time check by `TypeId` catches them.
pub const fn same_component<A: Component, B: Component>() -> bool {
    match (A::UNIQUE_KEY, B::UNIQUE_KEY) {
        (Some(a), Some(b)) => str_eq(a, b),
        _ => false,
    }
}

/// The first component `accesses` names twice with at least one write, compared by `TypeId`
/// (this also catches generic components, whose names are not unique).
pub fn find_alias_runtime(accesses: &[Access]) -> Option<&'static str> {
    accesses.iter().enumerate().find_map(|(i, a)| {
        accesses[i + 1..]
            .iter()
            .any(|b| b.type_id == a.type_id && (a.write || b.write))
            .then_some(a.name)
    })
}
