//! `#[system(reads(..), writes(..), after(..), every_ticks = N, run_if(..))]` and
//! `#[condition(reads(..))]`: parse → validate → expand.

mod expand;
mod parse;
mod validate;

use proc_macro2::TokenStream;

pub(crate) fn system(attr: TokenStream, item: TokenStream) -> TokenStream {
    generate(parse::Kind::System, attr, item)
}

/// `#[condition(reads(..))]`: a system-like item that only reads and returns `bool`.
pub(crate) fn condition(attr: TokenStream, item: TokenStream) -> TokenStream {
    generate(parse::Kind::Condition, attr, item)
}

fn generate(kind: parse::Kind, attr: TokenStream, item: TokenStream) -> TokenStream {
    let parsed = parse::parse(kind, attr, item);
    let result = parsed.and_then(|model| {
        validate::validate(&model)?;
        Ok(expand::expand(&model))
    });
    result.unwrap_or_else(syn::Error::into_compile_error)
}

pub(crate) use crate::combine;
