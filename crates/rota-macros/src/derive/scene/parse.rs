//! Parsing: the struct and its `#[scene(..)]` attributes into a model that keeps the syn nodes
//! (for spans). Malformed attributes are collected, not returned at the first one.

use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned;

use super::{ID, KEY, RETIRED, SCENE};

/// One field of the struct.
pub(crate) struct Field {
    /// `self.<member>`: a name or a position.
    pub(crate) member: syn::Member,
    /// The name the error messages and `FieldInfo` use.
    pub(crate) name: String,
    pub(crate) ty: syn::Type,
    /// `#[scene(id = N)]`, with the literal for spans.
    pub(crate) id: Option<(u32, syn::LitInt)>,
    /// Where to point when the field has no id.
    pub(crate) span: Span,
}

pub(crate) struct Model {
    pub(crate) ident: syn::Ident,
    pub(crate) generics: syn::Generics,
    /// `Some(token span)` when the input is an enum or a union.
    pub(crate) not_a_struct: Option<(Span, &'static str)>,
    pub(crate) key: Option<syn::LitStr>,
    pub(crate) retired: Vec<(u32, syn::LitInt)>,
    pub(crate) fields: Vec<Field>,
    /// Malformed attributes, reported with the validation errors.
    pub(crate) attr_errors: Vec<syn::Error>,
}

pub(crate) fn parse(input: TokenStream) -> syn::Result<Model> {
    let input: syn::DeriveInput = syn::parse2(input)?;
    let mut attr_errors = Vec::new();
    let mut key = None;
    let mut retired = Vec::new();
    for attr in input.attrs.iter().filter(|a| a.path().is_ident(SCENE)) {
        let parsed = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident(KEY) {
                key = Some(meta.value()?.parse::<syn::LitStr>()?);
                Ok(())
            } else if meta.path.is_ident(RETIRED) {
                let content;
                syn::parenthesized!(content in meta.input);
                let ids = content
                    .parse_terminated(<syn::LitInt as syn::parse::Parse>::parse, syn::Token![,])?;
                for lit in ids {
                    retired.push((lit.base10_parse::<u32>()?, lit));
                }
                Ok(())
            } else if meta.path.is_ident(ID) {
                Err(meta.error("`id` goes on each field: `#[scene(id = N)]`"))
            } else {
                Err(meta
                    .error("unknown `scene` key: the type takes `key = \"..\"` and `retired(..)`"))
            }
        });
        if let Err(e) = parsed {
            attr_errors.push(e);
        }
    }
    let (not_a_struct, raw_fields) = match &input.data {
        syn::Data::Struct(s) => (None, s.fields.iter().collect::<Vec<_>>()),
        syn::Data::Enum(e) => (Some((e.enum_token.span, "an enum")), Vec::new()),
        syn::Data::Union(u) => (Some((u.union_token.span, "a union")), Vec::new()),
    };
    let mut fields = Vec::new();
    for (i, field) in raw_fields.into_iter().enumerate() {
        let (member, name) = match &field.ident {
            Some(ident) => (syn::Member::Named(ident.clone()), ident.to_string()),
            None => (syn::Member::Unnamed(syn::Index::from(i)), i.to_string()),
        };
        let mut id = None;
        for attr in field.attrs.iter().filter(|a| a.path().is_ident(SCENE)) {
            let parsed = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident(ID) {
                    let lit = meta.value()?.parse::<syn::LitInt>()?;
                    id = Some((lit.base10_parse::<u32>()?, lit));
                    Ok(())
                } else {
                    Err(meta.error("unknown `scene` key on a field: fields take `id = N`"))
                }
            });
            if let Err(e) = parsed {
                attr_errors.push(e);
            }
        }
        let span = field
            .ident
            .as_ref()
            .map_or_else(|| field.ty.span(), |i| i.span());
        fields.push(Field {
            member,
            name,
            ty: field.ty.clone(),
            id,
            span,
        });
    }
    Ok(Model {
        ident: input.ident,
        generics: input.generics,
        not_a_struct,
        key,
        retired,
        fields,
        attr_errors,
    })
}
