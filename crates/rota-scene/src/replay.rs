//! Replays: a world save to start from, each tick's inputs (a user serde type) and each tick's
//! [`full_checksum`](World::full_checksum), in one file. [`Replay::verify`] loads the start,
//! re-simulates tick by tick with the caller's step function and reports the first tick whose
//! checksum differs from the recorded one: where a nondeterminism (or a changed build) first
//! shows.
//!
//! File layout: `"ROTARPLY" version:u32 start:blob ticks:u32 (input:blob checksum:u64)*`,
//! integers little-endian, inputs encoded with bincode 1 (as world saves encode resources).

use bincode::Options;
use rota_core::{ChecksumError, World};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::WorldLoadError;
use crate::set::SceneSet;
use crate::world_file::bytes::{Reader, Writer};
use crate::world_file::load_world;
use crate::world_file::sets::{EventSet, ResourceSet};

/// The replay format this build writes and reads.
pub const REPLAY_FORMAT_VERSION: u32 = 1;

const MAGIC: &[u8; 8] = b"ROTARPLY";

/// A recorded run: the start (a world save) and, per tick, the inputs and the checksum after
/// the tick.
///
/// # Examples
///
/// ```
/// use rota::{Resource, StableHash, World};
/// use rota::scene::{Replay, save_world};
///
/// #[derive(Resource, StableHash, Clone, serde::Serialize, serde::Deserialize)]
/// struct Total(i64);
/// fn step(world: &mut World, input: &i64) {
///     world.resource_mut::<Total>().unwrap().0 += input;
///     world.advance_tick();
/// }
///
/// let mut world = World::new();
/// world.insert_resource(Total(0));
/// let mut replay = Replay::new(save_world::<(), (Total,), ()>(&world)?);
/// for input in [3, -1, 4] {
///     step(&mut world, &input);
///     replay.record(input, world.full_checksum()?);
/// }
/// let bytes = replay.to_bytes()?;
/// let replay = Replay::<i64>::from_bytes(&bytes)?;
/// assert_eq!(replay.verify::<(), (Total,), ()>(step)?, None); // no tick diverged
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Replay<I> {
    /// The world save the run starts from.
    pub start: Vec<u8>,
    /// Per tick: its inputs and the world's `full_checksum` after it.
    pub ticks: Vec<(I, u64)>,
}

/// The first tick whose re-simulated checksum differs from the recorded one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The tick, counted from 1 (the first recorded tick).
    pub tick: usize,
    /// The recorded checksum.
    pub recorded: u64,
    /// The checksum the re-simulation reached.
    pub simulated: u64,
}

/// Why a replay could not be read, written or verified.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// Not a replay file, or a version this build does not read.
    #[error("not a rota replay of format version {REPLAY_FORMAT_VERSION}")]
    NotAReplay,
    /// The file (or its start save) is damaged.
    #[error("replay: {0}")]
    Bytes(#[from] WorldLoadError),
    /// An input could not be encoded or decoded.
    #[error("replay tick {tick}: input: {message}")]
    Input {
        /// The tick (from 1).
        tick: usize,
        /// serde's message.
        message: String,
    },
    /// The re-simulated world cannot be checksummed.
    #[error("replay: {0}")]
    Checksum(#[from] ChecksumError),
}

impl<I: Serialize + DeserializeOwned> Replay<I> {
    /// A replay starting from `start` (a [`save_world`](crate::save_world)), with no tick.
    pub fn new(start: Vec<u8>) -> Replay<I> {
        Replay {
            start,
            ticks: Vec::new(),
        }
    }

    /// Records one tick: its inputs and the checksum after it.
    pub fn record(&mut self, input: I, checksum: u64) {
        self.ticks.push((input, checksum));
    }

    /// The replay as bytes.
    ///
    /// # Errors
    ///
    /// [`ReplayError::Input`] if serde refuses an input.
    pub fn to_bytes(&self) -> Result<Vec<u8>, ReplayError> {
        let mut out = Writer::default();
        out.bytes.extend_from_slice(MAGIC);
        out.u32(REPLAY_FORMAT_VERSION);
        out.blob(&self.start);
        out.len(self.ticks.len());
        for (i, (input, checksum)) in self.ticks.iter().enumerate() {
            let bytes = bincode::DefaultOptions::new()
                .serialize(input)
                .map_err(|e| ReplayError::Input {
                    tick: i + 1,
                    message: e.to_string(),
                })?;
            out.blob(&bytes);
            out.u64(*checksum);
        }
        Ok(out.bytes)
    }

    /// Reads a replay.
    ///
    /// # Errors
    ///
    /// [`ReplayError::NotAReplay`], [`ReplayError::Bytes`] (truncation, trailing bytes, with
    /// the offset) or [`ReplayError::Input`]; never panics.
    pub fn from_bytes(bytes: &[u8]) -> Result<Replay<I>, ReplayError> {
        let mut input = Reader::new(bytes);
        if input.take(8, "the magic").ok() != Some(&MAGIC[..])
            || input.u32("the version").ok() != Some(REPLAY_FORMAT_VERSION)
        {
            return Err(ReplayError::NotAReplay);
        }
        let start = input.blob("the start save")?.to_vec();
        let n = input.count(12, "the ticks")?;
        let mut ticks = Vec::with_capacity(n);
        for i in 0..n {
            let raw = input.blob("a tick's input")?;
            let value = bincode::DefaultOptions::new()
                .with_limit(raw.len() as u64)
                .reject_trailing_bytes()
                .deserialize(raw)
                .map_err(|e| ReplayError::Input {
                    tick: i + 1,
                    message: e.to_string(),
                })?;
            ticks.push((value, input.u64("a tick's checksum")?));
        }
        if input.remaining() > 0 {
            return Err(WorldLoadError::TrailingBytes {
                offset: input.offset,
            }
            .into());
        }
        Ok(Replay { start, ticks })
    }

    /// Loads the start (with the types a [`load_world`] needs), runs `step` once per recorded
    /// tick with its inputs, and compares `full_checksum` after each: the first tick that
    /// differs, or `None` when every tick matches.
    ///
    /// # Errors
    ///
    /// [`ReplayError::Bytes`] when the start does not load, [`ReplayError::Checksum`] when the
    /// world cannot be checksummed.
    pub fn verify<C: SceneSet, R: ResourceSet, E: EventSet>(
        &self,
        mut step: impl FnMut(&mut World, &I),
    ) -> Result<Option<Divergence>, ReplayError> {
        let mut world = load_world::<C, R, E>(&self.start)?;
        for (i, (input, recorded)) in self.ticks.iter().enumerate() {
            step(&mut world, input);
            let simulated = world.full_checksum()?;
            if simulated != *recorded {
                return Ok(Some(Divergence {
                    tick: i + 1,
                    recorded: *recorded,
                    simulated,
                }));
            }
        }
        Ok(None)
    }
}
