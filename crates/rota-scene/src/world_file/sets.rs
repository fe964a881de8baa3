//! [`ResourceSet`] and [`EventSet`]: the tuples of resource and event types a world save
//! holds, each encoded with serde (bincode 1's documented varint little-endian format, with a
//! size limit), and their type-erased codecs.

use std::any::TypeId;

use bincode::Options;
use rota_core::image::ChannelImage;
use rota_core::sequence::Rewind;
use rota_core::{Event, Events, Resource, World};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{WorldLoadError, WorldSaveError};
use crate::world_file::bytes::{Reader, Writer};

/// The payload encoding: bincode 1 with varint integers, refusing trailing bytes, and never
/// reading (or allocating) past the payload's own length.
fn options(limit: usize) -> impl Options {
    bincode::DefaultOptions::new()
        .with_limit(limit as u64)
        .reject_trailing_bytes()
}

fn encode<T: Serialize>(value: &T, key: &'static str) -> Result<Vec<u8>, WorldSaveError> {
    options(usize::MAX)
        .serialize(value)
        .map_err(|e| WorldSaveError::Payload {
            key,
            message: e.to_string(),
        })
}

fn decode<T: DeserializeOwned>(
    bytes: &[u8],
    key: &'static str,
    offset: usize,
) -> Result<T, WorldLoadError> {
    options(bytes.len())
        .deserialize(bytes)
        .map_err(|e| WorldLoadError::Payload {
            key,
            offset,
            message: e.to_string(),
        })
}

/// The resource types a world save holds: `()` or a tuple of up to 12 types that are
/// [`Resource`] + serde's `Serialize` + `DeserializeOwned`. A resource's key in the file is
/// its [`Resource::NAME`] (keep it when the type is renamed).
pub trait ResourceSet {
    #[doc(hidden)]
    fn codecs() -> ResourceCodecs;
}

/// The codecs of a [`ResourceSet`] (plumbing, opaque).
#[doc(hidden)]
pub struct ResourceCodecs(pub(crate) Vec<Box<dyn ResourceCodec>>);

/// The codecs of an [`EventSet`] (plumbing, opaque).
#[doc(hidden)]
pub struct EventCodecs(pub(crate) Vec<Box<dyn EventCodec>>);

/// The event types a world save holds: `()` or a tuple of up to 12 types that are
/// [`Event`] + `Serialize` + `DeserializeOwned`. A channel's key is [`Event::NAME`].
pub trait EventSet {
    #[doc(hidden)]
    fn codecs() -> EventCodecs;
}

/// One resource type's codec.
pub(crate) trait ResourceCodec {
    fn key(&self) -> &'static str;
    fn type_id(&self) -> TypeId;
    /// The encoded value, if the world has one.
    fn save(&self, world: &World) -> Result<Option<Vec<u8>>, WorldSaveError>;
    fn load(&self, world: &mut World, bytes: &[u8], offset: usize) -> Result<(), WorldLoadError>;
}

/// One event type's codec.
pub(crate) trait EventCodec {
    fn key(&self) -> &'static str;
    /// The `TypeId` of its channel (`Events<E>`).
    fn type_id(&self) -> TypeId;
    /// Writes the channel; returns whether the world has one.
    fn save(&self, world: &World, out: &mut Writer) -> Result<bool, WorldSaveError>;
    fn load(&self, world: &mut World, input: &mut Reader<'_>) -> Result<(), WorldLoadError>;
}

struct ResourceOf<R>(std::marker::PhantomData<fn() -> R>);
struct EventOf<E>(std::marker::PhantomData<fn() -> E>);

impl<R: Resource + Serialize + DeserializeOwned> ResourceCodec for ResourceOf<R> {
    fn key(&self) -> &'static str {
        R::NAME
    }
    fn type_id(&self) -> TypeId {
        TypeId::of::<R>()
    }
    fn save(&self, world: &World) -> Result<Option<Vec<u8>>, WorldSaveError> {
        match world.resource::<R>() {
            Ok(r) => encode(r, R::NAME).map(Some),
            Err(_) => Ok(None),
        }
    }
    fn load(&self, world: &mut World, bytes: &[u8], offset: usize) -> Result<(), WorldLoadError> {
        let value: R = decode(bytes, R::NAME, offset)?;
        world.insert_resource(value);
        Ok(())
    }
}

impl<E: Event + Serialize + DeserializeOwned> EventCodec for EventOf<E> {
    fn key(&self) -> &'static str {
        E::NAME
    }
    fn type_id(&self) -> TypeId {
        TypeId::of::<Events<E>>()
    }
    fn save(&self, world: &World, out: &mut Writer) -> Result<bool, WorldSaveError> {
        let Some(image) = world.channel_image::<E>()? else {
            return Ok(false);
        };
        out.u64(image.capacity as u64);
        out.u64(image.next_sequence);
        out.u64(image.this_tick_start);
        out.u64(image.previous_tick_start);
        out.len(image.rewinds.len());
        for r in &image.rewinds {
            out.u64(r.to);
            out.u64(r.from);
        }
        out.len(image.readers.len());
        for (system, index, cursor) in &image.readers {
            out.str(system);
            out.u32(*index);
            out.u64(*cursor);
        }
        out.len(image.events.len());
        for (sequence, event) in &image.events {
            out.u64(*sequence);
            out.blob(&encode(event, E::NAME)?);
        }
        Ok(true)
    }
    fn load(&self, world: &mut World, input: &mut Reader<'_>) -> Result<(), WorldLoadError> {
        let what = "an event channel";
        let at = input.offset;
        let capacity = usize::try_from(input.u64(what)?).unwrap_or(usize::MAX);
        let next_sequence = input.u64(what)?;
        let this_tick_start = input.u64(what)?;
        let previous_tick_start = input.u64(what)?;
        let n = input.count(16, "a channel's rewinds")?;
        let mut rewinds = Vec::with_capacity(n);
        for _ in 0..n {
            let to = input.u64(what)?;
            let from = input.u64(what)?;
            rewinds.push(Rewind { to, from });
        }
        let n = input.count(16, "a channel's readers")?;
        let mut readers = Vec::with_capacity(n);
        for _ in 0..n {
            let system = input.str("a reader's system name")?.to_owned();
            let index = input.u32(what)?;
            let cursor = input.u64(what)?;
            readers.push((system, index, cursor));
        }
        let n = input.count(12, "a channel's events")?;
        let mut events = Vec::with_capacity(n);
        for _ in 0..n {
            let sequence = input.u64(what)?;
            let offset = input.offset + 4;
            let bytes = input.blob("an event")?;
            events.push((sequence, decode::<E>(bytes, E::NAME, offset)?));
        }
        world
            .import_channel(ChannelImage {
                capacity,
                next_sequence,
                rewinds,
                events,
                readers,
                this_tick_start,
                previous_tick_start,
            })
            .map_err(|source| WorldLoadError::Invalid { offset: at, source })
    }
}

impl ResourceSet for () {
    fn codecs() -> ResourceCodecs {
        ResourceCodecs(Vec::new())
    }
}

impl EventSet for () {
    fn codecs() -> EventCodecs {
        EventCodecs(Vec::new())
    }
}

macro_rules! set_tuples {
    ($($T:ident),+) => {
        impl<$($T: Resource + Serialize + DeserializeOwned),+> ResourceSet for ($($T,)+) {
            fn codecs() -> ResourceCodecs {
                ResourceCodecs(vec![$(Box::new(ResourceOf::<$T>(std::marker::PhantomData))),+])
            }
        }
        impl<$($T: Event + Serialize + DeserializeOwned),+> EventSet for ($($T,)+) {
            fn codecs() -> EventCodecs {
                EventCodecs(vec![$(Box::new(EventOf::<$T>(std::marker::PhantomData))),+])
            }
        }
    };
}
set_tuples!(A);
set_tuples!(A, B);
set_tuples!(A, B, C);
set_tuples!(A, B, C, D);
set_tuples!(A, B, C, D, E);
set_tuples!(A, B, C, D, E, F);
set_tuples!(A, B, C, D, E, F, G);
set_tuples!(A, B, C, D, E, F, G, H);
set_tuples!(A, B, C, D, E, F, G, H, I);
set_tuples!(A, B, C, D, E, F, G, H, I, J);
set_tuples!(A, B, C, D, E, F, G, H, I, J, K);
set_tuples!(A, B, C, D, E, F, G, H, I, J, K, L);
