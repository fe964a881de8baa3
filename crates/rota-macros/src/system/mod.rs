//! `#[system(reads(..), writes(..), after(..), every_ticks = N)]`: parse → validate → expand.

mod expand;
mod parse;
mod validate;

use proc_macro2::TokenStream;

pub(crate) fn system(attr: TokenStream, item: TokenStream) -> TokenStream {
    let parsed = parse::parse(attr, item);
    let result = parsed.and_then(|model| {
        validate::validate(&model)?;
        Ok(expand::expand(&model))
    });
    result.unwrap_or_else(syn::Error::into_compile_error)
}

pub(crate) use crate::combine;
