//! `#[derive(Scene)]`: parse → validate → expand. The derive gives a component a stable key and
//! every field a stable numeric id; it refuses, at compile time, a field without an id, an id
//! used twice, and an id that was retired (removed fields' ids are never reused, or an old file
//! would load a removed field's value into the new one).

mod expand;
mod parse;
mod validate;

use proc_macro2::TokenStream;

/// Attribute keywords, named once.
pub(crate) const SCENE: &str = "scene";
pub(crate) const KEY: &str = "key";
pub(crate) const ID: &str = "id";
pub(crate) const RETIRED: &str = "retired";

pub(crate) fn derive_scene(input: TokenStream) -> TokenStream {
    let model = match parse::parse(input) {
        Ok(model) => model,
        Err(e) => return e.into_compile_error(),
    };
    match validate::validate(&model) {
        Ok(valid) => expand::expand(&model, &valid),
        Err(e) => e.into_compile_error(),
    }
}
