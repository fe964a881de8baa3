//! Parsing: the derive input into a small model that keeps syn nodes for spans.

use proc_macro2::{Span, TokenStream};

use super::Kind;

/// The one key `#[component(..)]` / `#[resource(..)]` accepts.
pub(crate) const NO_SNAPSHOT: &str = "no_snapshot";

/// The derive input, reduced to what validation and expansion need.
pub(crate) struct Model {
    pub(crate) ident: syn::Ident,
    pub(crate) generics: syn::Generics,
    /// `Some(union token)` when the input is a union (always rejected).
    pub(crate) union_token: Option<syn::token::Union>,
    /// Every `no_snapshot` key, in order (validation refuses a second one).
    pub(crate) no_snapshot: Vec<Span>,
    /// Keys of our attribute that are not `no_snapshot`, with their spans.
    pub(crate) unknown_keys: Vec<syn::Path>,
}

pub(crate) fn parse(input: TokenStream, kind: Kind) -> syn::Result<Model> {
    let input: syn::DeriveInput = syn::parse2(input)?;
    let union_token = match &input.data {
        syn::Data::Union(u) => Some(u.union_token),
        _ => None,
    };
    let mut no_snapshot = Vec::new();
    let mut unknown_keys = Vec::new();
    for attr in &input.attrs {
        if !attr.path().is_ident(kind.attribute_name()) {
            continue;
        }
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident(NO_SNAPSHOT) {
                no_snapshot.push(syn::spanned::Spanned::span(&meta.path));
            } else {
                unknown_keys.push(meta.path.clone());
                // Skip a value (`key = ..` or `key(..)`) so one unknown key reports once.
                if meta.input.peek(syn::Token![=]) {
                    let _: syn::Expr = meta.value()?.parse()?;
                } else if meta.input.peek(syn::token::Paren) {
                    let _ = meta.parse_nested_meta(|_| Ok(()));
                }
            }
            Ok(())
        })?;
    }
    Ok(Model {
        ident: input.ident,
        generics: input.generics,
        union_token,
        no_snapshot,
        unknown_keys,
    })
}
