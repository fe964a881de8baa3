//! Unit tests of `commands.rs`.

use std::sync::{Arc, Mutex};

use super::{CommandQueue, Commands};
use crate::system::Unrestricted;
use crate::world::World;

/// `queue` hands a closure the whole world: a system's buffer refuses it, whatever type it
/// has (only a system whose seal was implemented by hand could name this one).
#[test]
#[should_panic(expected = "system `sneak` queued a closure on its `Commands`")]
fn a_systems_buffer_refuses_queue() {
    let world = World::new();
    let sink = Mutex::new(CommandQueue::default());
    let mut commands: Commands<'_, Unrestricted> =
        Commands::for_system(world.entities(), &sink, "sneak", Arc::new([]));
    commands.queue(|_| {});
}
