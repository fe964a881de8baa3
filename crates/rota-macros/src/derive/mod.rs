//! `#[derive(Component)]` and `#[derive(Resource)]`: parse → validate → expand.

mod expand;
mod parse;
pub(crate) mod stable_hash;
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
    let result = parse::parse(input)
        .and_then(|model| validate::validate(&model, kind).map(|()| model))
        .map(|model| expand::expand(&model, kind));
    result.unwrap_or_else(syn::Error::into_compile_error)
}
