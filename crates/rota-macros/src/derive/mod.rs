//! `#[derive(Component)]`, `#[derive(Resource)]`, `#[derive(Event)]`: parse → validate → expand; and the other derives.

mod expand;
mod parse;
pub(crate) mod scene;
pub(crate) mod stable_hash;
pub(crate) mod system_param;
mod validate;

use proc_macro2::TokenStream;

/// Which marker trait to implement.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    Component,
    Resource,
    Event,
}

impl Kind {
    pub(crate) fn trait_name(self) -> &'static str {
        match self {
            Kind::Component => "Component",
            Kind::Resource => "Resource",
            Kind::Event => "Event",
        }
    }

    /// The helper attribute: `#[component(..)]`, `#[resource(..)]` (`#[event(..)]` takes no
    /// key: events are always `Clone`).
    pub(crate) fn attribute_name(self) -> &'static str {
        match self {
            Kind::Component => "component",
            Kind::Resource => "resource",
            Kind::Event => "event",
        }
    }
}

pub(crate) fn derive(input: TokenStream, kind: Kind) -> TokenStream {
    let model = match parse::parse(input, kind) {
        Ok(model) => model,
        Err(e) => return e.into_compile_error(),
    };
    match validate::validate(&model, kind) {
        Ok(()) => expand::expand(&model, kind, expand::CloneCheck::Emit),
        // Emit the impl anyway where it can compile (thiserror's habit), so one mistake does
        // not cascade into "`X` is not a component" at every use — without the `Clone` check,
        // so a rejected input reports only what is wrong with it.
        Err(e) if model.generics.lifetimes().next().is_none() => {
            let mut out = e.into_compile_error();
            out.extend(expand::expand(&model, kind, expand::CloneCheck::Skip));
            out
        }
        Err(e) => e.into_compile_error(),
    }
}
