//! `--save-scene`: save the running world's animals to a scene file, load the file into a
//! fresh world, and prove nothing was lost: per-component counts and a checksum of the
//! component values (which ignores entity bits, so the fresh world's new slots do not matter)
//! must be equal before and after.

use std::path::Path;
use std::time::Instant;

use rota::World;
use rota::scene::{load, save_to, value_checksum};

use super::{Age, Energy, Position, Predator, Prey, Velocity};

/// Every component of an animal.
type Animals = (Position, Velocity, Energy, Age, Prey, Predator);

/// Per-component counts, in `Animals` order.
fn counts(world: &World) -> [(&'static str, usize); 6] {
    [
        ("Position", world.query::<&Position>().count()),
        ("Velocity", world.query::<&Velocity>().count()),
        ("Energy", world.query::<&Energy>().count()),
        ("Age", world.query::<&Age>().count()),
        ("Prey", world.query::<&Prey>().count()),
        ("Predator", world.query::<&Predator>().count()),
    ]
}

/// What a save and reload measured.
#[derive(Debug)]
pub struct Report {
    /// Bytes in the file.
    pub bytes: u64,
    /// Seconds to save (including writing the file).
    pub save_seconds: f64,
    /// Seconds to load (parsing included, reading the file excluded).
    pub load_seconds: f64,
}

/// Saves `world` to `path`, loads the file into a fresh world and compares them.
///
/// # Errors
///
/// Any save, file or load error, or a difference in counts or value checksum.
pub fn save_and_reload(world: &World, path: &Path) -> Result<Report, String> {
    let before = counts(world);
    let before_sum = value_checksum::<Animals>(world).map_err(|e| e.to_string())?;

    let start = Instant::now();
    let file = std::fs::File::create(path)
        .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    save_to::<Animals>(world, file).map_err(|e| e.to_string())?;
    let save_seconds = start.elapsed().as_secs_f64();
    let bytes = std::fs::metadata(path).map_err(|e| e.to_string())?.len();

    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let start = Instant::now();
    let mut fresh = World::new();
    load::<Animals>(&mut fresh, &text).map_err(|e| format!("{}: {e}", path.display()))?;
    let load_seconds = start.elapsed().as_secs_f64();

    let after = counts(&fresh);
    let after_sum = value_checksum::<Animals>(&fresh).map_err(|e| e.to_string())?;
    println!("scene: tick {}, {} entities", world.tick(), world.len());
    println!("scene: {:<10} {:>9} {:>9}", "component", "saved", "loaded");
    for ((name, saved), (_, loaded)) in before.iter().zip(&after) {
        println!("scene: {name:<10} {saved:>9} {loaded:>9}");
    }
    println!("scene: value checksum saved {before_sum:016x}, loaded {after_sum:016x}");
    if before != after || before_sum != after_sum {
        return Err(format!(
            "the scene loaded from {} differs from the world that saved it",
            path.display()
        ));
    }
    Ok(Report {
        bytes,
        save_seconds,
        load_seconds,
    })
}
