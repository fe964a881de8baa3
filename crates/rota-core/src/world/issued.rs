//! What a restore keeps: how far each numbered stream ever numbered, so that a restored log or
//! event channel goes on past every number it handed out (see [`crate::sequence`]).

use std::any::TypeId;
use std::collections::BTreeMap;

use crate::world::World;
use crate::world::log::StructuralLog;

/// The highest `next` number each stream had in this world, across restores. Lookup only;
/// never iterated for a result.
#[derive(Clone, Debug, Default)]
pub(crate) struct Issued {
    /// The structural log's, and its capacity (a restore to a moment before the log was on
    /// keeps it on: it is a setting of the world, not of the moment).
    log: Option<(u64, usize)>,
    /// Each event channel's, by the channel's `TypeId`.
    channels: BTreeMap<TypeId, u64>,
}

impl World {
    /// How far `E`'s channel (by the channel's `TypeId`) ever numbered here, if a restore
    /// removed it.
    pub(crate) fn issued_for(&self, channel: TypeId) -> Option<u64> {
        self.issued.channels.get(&channel).copied()
    }

    /// Before a restore: records how far every stream has numbered.
    pub(crate) fn record_issued(&mut self) {
        let World {
            issued,
            log,
            resources,
            ..
        } = self;
        if let Some(log) = log {
            let (next, _) = issued.log.unwrap_or((0, 0));
            issued.log = Some((next.max(log.next_sequence()), log.capacity()));
        }
        for (type_id, stream) in resources.streams() {
            let next = stream.numbering().next();
            let entry = issued.channels.entry(type_id).or_insert(next);
            *entry = (*entry).max(next);
        }
    }

    /// After a restore: every stream goes on past what it ever numbered, recording the rewind;
    /// a log that was on stays on.
    pub(crate) fn rejoin_streams(&mut self) {
        let World {
            issued,
            log,
            resources,
            ..
        } = self;
        if let Some((next, capacity)) = issued.log {
            let log = log.get_or_insert_with(|| StructuralLog::with_capacity(capacity));
            log.rejoin(next);
        }
        for (type_id, stream) in resources.streams_mut() {
            if let Some(&next) = issued.channels.get(&type_id) {
                stream.rejoin(next);
            }
        }
    }
}
