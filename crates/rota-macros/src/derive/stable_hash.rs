//! `#[derive(StableHash)]`: feeds every field, in declaration order, to a `StableHasher`;
//! enums feed their variant index first. Unions are refused.
//!
//! Parse → validate → expand, like the other derives: the model keeps the syn nodes for spans,
//! validation collects every error (each spanned) and reports them together, and a rejected
//! input still gets an impl (with an empty body) so the one mistake does not cascade into
//! "`X` is not `StableHash`" at every use.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The derive input, reduced to what validation and expansion need.
struct Model {
    ident: syn::Ident,
    generics: syn::Generics,
    shape: Shape,
}

/// What is hashed.
enum Shape {
    /// Every field, in declaration order.
    Struct(syn::Fields),
    /// The variant index, then the variant's fields.
    Enum(Vec<syn::Variant>),
    /// Refused: which field to hash is unknown.
    Union(syn::token::Union),
}

pub(crate) fn derive_stable_hash(input: TokenStream) -> TokenStream {
    let model = match parse(input) {
        Ok(model) => model,
        Err(e) => return e.into_compile_error(),
    };
    match validate(&model) {
        Ok(()) => expand(&model, Body::Hash),
        Err(e) => {
            let mut out = e.into_compile_error();
            out.extend(expand(&model, Body::Fallback));
            out
        }
    }
}

fn parse(input: TokenStream) -> syn::Result<Model> {
    let input: syn::DeriveInput = syn::parse2(input)?;
    let shape = match input.data {
        syn::Data::Struct(s) => Shape::Struct(s.fields),
        syn::Data::Enum(e) => Shape::Enum(e.variants.into_iter().collect()),
        syn::Data::Union(u) => Shape::Union(u.union_token),
    };
    Ok(Model {
        ident: input.ident,
        generics: input.generics,
        shape,
    })
}

/// Everything the derive cannot honour, each a spanned error, all reported together.
fn validate(model: &Model) -> syn::Result<()> {
    let mut errors = Vec::new();
    if let Shape::Union(token) = &model.shape {
        errors.push(syn::Error::new(
            token.span,
            "`StableHash` cannot be derived for a union: which field to hash is unknown",
        ));
    }
    crate::combine(errors)
}

/// What the generated `stable_hash` does.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Body {
    /// Hash the value.
    Hash,
    /// Nothing: the input was rejected, and the impl only stops cascading errors.
    Fallback,
}

fn expand(model: &Model, body: Body) -> TokenStream {
    let ident = &model.ident;
    let mut generics = model.generics.clone();
    {
        let where_clause = generics.make_where_clause();
        for param in model.generics.type_params() {
            let p = &param.ident;
            where_clause
                .predicates
                .push(syn::parse_quote!(#p: ::rota::__private::StableHash));
        }
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let hash = quote!(::rota::__private::StableHash::stable_hash);
    let statements = match (&model.shape, body) {
        (_, Body::Fallback) | (Shape::Union(_), _) => quote!(let _ = hasher;),
        (Shape::Struct(fields), Body::Hash) => {
            let members = fields.members();
            quote!(#(#hash(&self.#members, hasher);)*)
        }
        (Shape::Enum(variants), Body::Hash) => {
            let arms = variants.iter().enumerate().map(|(index, variant)| {
                let index = index as u32;
                let name = &variant.ident;
                let binds: Vec<_> = (0..variant.fields.len())
                    .map(|i| format_ident!("__field_{}", i))
                    .collect();
                let pattern = match &variant.fields {
                    syn::Fields::Named(named) => {
                        let names = named.named.iter().map(|f| f.ident.as_ref());
                        quote!({ #(#names: #binds),* })
                    }
                    syn::Fields::Unnamed(_) => quote!(( #(#binds),* )),
                    syn::Fields::Unit => quote!(),
                };
                quote! {
                    Self::#name #pattern => {
                        #hash(&#index, hasher);
                        #(#hash(#binds, hasher);)*
                    }
                }
            });
            quote!(match self { #(#arms)* })
        }
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics ::rota::__private::StableHash for #ident #ty_generics #where_clause {
            fn stable_hash(&self, hasher: &mut ::rota::__private::StableHasher) {
                #statements
            }
        }
    }
}
