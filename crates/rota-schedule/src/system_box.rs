//! `BoxedSystem`: a system and its state, with the system type erased.

use rota_core::system::{System, SystemContext, SystemDescriptor};

/// A system plus its persistent state (its `Local` parameters).
pub(crate) trait BoxedSystem: Send {
    fn run(&mut self, context: SystemContext<'_>);
    fn descriptor(&self) -> SystemDescriptor;
}

pub(crate) struct WithState<S: System> {
    pub(crate) system: S,
    pub(crate) state: S::State,
}

impl<S: System> BoxedSystem for WithState<S> {
    fn run(&mut self, context: SystemContext<'_>) {
        self.system.run(&mut self.state, context);
    }
    fn descriptor(&self) -> SystemDescriptor {
        self.system.descriptor()
    }
}
