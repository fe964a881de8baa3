//! [`SystemPanics`]: the payload [`crate::Schedule::run`] unwinds with when systems panic.

use std::any::Any;

/// One system's panic: its name and the payload it panicked with, untouched.
#[non_exhaustive]
pub struct SystemPanic {
    /// The system that panicked.
    pub system: &'static str,
    /// What it panicked with (`panic!("..")` gives a `&str` or `String`; `panic_any(x)` gives
    /// `x`), exactly as the system's thread caught it.
    pub payload: Box<dyn Any + Send>,
}

impl SystemPanic {
    /// The payload as text, when it is a `&str` or `String` (what `panic!` makes).
    pub fn message(&self) -> Option<&str> {
        if let Some(s) = self.payload.downcast_ref::<&'static str>() {
            Some(s)
        } else {
            self.payload.downcast_ref::<String>().map(String::as_str)
        }
    }
}

/// The panic payload of a [`crate::Schedule::run`] in which systems panicked: every system of
/// the batch that panicked, in plan order, each with its original payload.
///
/// `run` unwinds with `std::panic::resume_unwind(Box::new(SystemPanics { .. }))`, so the panic
/// hook is not called a second time: each system's own panic already printed its message and
/// location. Catch it with `std::panic::catch_unwind` and downcast:
///
/// ```
/// use std::panic::{catch_unwind, AssertUnwindSafe};
/// use rota::{system, World};
/// use rota::rota_schedule::{Schedule, SystemPanics};
///
/// #[system]
/// fn fails() {
///     std::panic::panic_any(42u32);
/// }
///
/// let mut schedule = Schedule::builder().add(fails).build()?;
/// let mut world = World::new();
/// # let hook = std::panic::take_hook();
/// # std::panic::set_hook(Box::new(|_| {}));
/// let payload = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world))).unwrap_err();
/// # std::panic::set_hook(hook);
/// let panics = payload.downcast::<SystemPanics>().unwrap();
/// assert_eq!(panics.systems(), ["fails"]);
/// assert_eq!(panics.panics[0].payload.downcast_ref::<u32>(), Some(&42));
/// # Ok::<(), rota::ScheduleError>(())
/// ```
#[non_exhaustive]
pub struct SystemPanics {
    /// The panics, in plan order; never empty.
    pub panics: Vec<SystemPanic>,
}

impl SystemPanics {
    /// The names of the systems that panicked, in plan order.
    pub fn systems(&self) -> Vec<&'static str> {
        self.panics.iter().map(|p| p.system).collect()
    }

    /// The first panicking system's payload, e.g. to re-raise it unchanged with
    /// `std::panic::resume_unwind`.
    pub fn into_first_payload(self) -> Box<dyn Any + Send> {
        self.panics
            .into_iter()
            .next()
            .map(|p| p.payload)
            .expect("SystemPanics is never empty")
    }
}

impl std::fmt::Display for SystemPanics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, p) in self.panics.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            match p.message() {
                // rota's own panics inside a system (a missing resource, say) already open with
                // "system `name` ..."; the name is said once.
                Some(m) if m.starts_with(&format!("system `{}` ", p.system)) => f.write_str(m)?,
                Some(m) => write!(f, "system `{}` panicked: {m}", p.system)?,
                None => write!(f, "system `{}` panicked with a non-text payload", p.system)?,
            }
        }
        Ok(())
    }
}

impl std::fmt::Debug for SystemPanics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SystemPanics({self})")
    }
}

impl std::fmt::Debug for SystemPanic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SystemPanic")
            .field("system", &self.system)
            .field("message", &self.message())
            .finish_non_exhaustive()
    }
}
