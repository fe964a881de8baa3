//! `#[derive(Component)]`, `#[derive(Resource)]`: parse → validate → expand; and the other derives.

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
}

impl Kind {
    pub(crate) fn trait_name(self) -> &'static str {
        match self {
            Kind::Component => "Component",
            Kind::Resource => "Resource",
        }
    }
}

pub(crate) fn derive(input: TokenStream, kind: Kind) -> TokenStream {
    let model = match parse::parse(input) {
        Ok(model) => model,
        Err(e) => return e.into_compile_error(),
    };
    match validate::validate(&model, kind) {
        Ok(()) => expand::expand(&model, kind),
        // Emit the impl anyway where it can compile (thiserror's habit), so one mistake does
        // not cascade into "`X` is not a component" at every use.
        Err(e) if model.generics.lifetimes().next().is_none() => {
            let mut out = e.into_compile_error();
            out.extend(expand::expand(&model, kind));
            out
        }
        Err(e) => e.into_compile_error(),
    }
}
