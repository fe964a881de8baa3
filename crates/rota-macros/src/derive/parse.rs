//! Parsing: the derive input into a small model that keeps syn nodes for spans.

use proc_macro2::TokenStream;

/// The derive input, reduced to what validation and expansion need.
pub(crate) struct Model {
    pub(crate) ident: syn::Ident,
    pub(crate) generics: syn::Generics,
    /// `Some(union token)` when the input is a union (always rejected).
    pub(crate) union_token: Option<syn::token::Union>,
}

pub(crate) fn parse(input: TokenStream) -> syn::Result<Model> {
    let input: syn::DeriveInput = syn::parse2(input)?;
    let union_token = match &input.data {
        syn::Data::Union(u) => Some(u.union_token),
        _ => None,
    };
    Ok(Model {
        ident: input.ident,
        generics: input.generics,
        union_token,
    })
}
