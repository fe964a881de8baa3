//! The file: a RON document with a format version and one record per entity.
//!
//! ```text
//! (
//!     format: 1,
//!     entities: [
//!         (id: 0, components: {"eco.Position": {1: F32(1.0), 2: F32(-2.5)}}),
//!         (id: 1, parent: Some(0), components: {"eco.Energy": {1: F32(3.0)}}),
//!     ],
//! )
//! ```
//!
//! Components are keyed by their stable key, fields by their stable numeric id: never by Rust
//! names or positions, so renaming or reordering a type's fields does not change its file.
//! Maps keep duplicates as they were written ([`Entries`]) so the loader can refuse them: a
//! plain map would let the last one win silently.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::value::Value;

/// The file layout this crate writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// A whole scene file. An unknown key is refused, here and in a record: a misspelt `parent`
/// or `components` would otherwise load as an entity without them, and nothing would say so.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SceneFile {
    pub(crate) format: u32,
    pub(crate) entities: Vec<EntityRecord>,
}

/// Only the version, read when the whole file does not parse (a newer layout should be
/// refused as a newer version, not as a syntax error).
#[derive(Deserialize)]
pub(crate) struct Header {
    pub(crate) format: u32,
}

/// One entity: its scene id, its parent's scene id, its components (unknown keys refused, as
/// in [`SceneFile`]).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct EntityRecord {
    pub(crate) id: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) parent: Option<u64>,
    /// Keys are borrowed from the types when saving (no allocation per component).
    pub(crate) components: Entries<Cow<'static, str>, Entries<u32, Value>>,
}

/// A map as written, duplicates and order kept.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entries<K, V>(pub(crate) Vec<(K, V)>);

impl<K, V> Default for Entries<K, V> {
    fn default() -> Self {
        Entries(Vec::new())
    }
}

impl<K: Serialize, V: Serialize> Serialize for Entries<K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> Deserialize<'de> for Entries<K, V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor<K, V>(PhantomData<(K, V)>);
        impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> Visitor<'de> for EntriesVisitor<K, V> {
            type Value = Entries<K, V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                // The size hint comes from the input: cap it so a hostile file cannot make us
                // reserve gigabytes up front.
                let mut out = Vec::with_capacity(access.size_hint().unwrap_or(0).min(64));
                while let Some(entry) = access.next_entry()? {
                    out.push(entry);
                }
                Ok(Entries(out))
            }
        }
        deserializer.deserialize_map(EntriesVisitor(PhantomData))
    }
}
