//! `#[derive(StableHash)]`: feeds every field, in declaration order, to a `StableHasher`;
//! enums feed their variant index first. Unions are refused.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

pub(crate) fn derive_stable_hash(input: TokenStream) -> TokenStream {
    let input: syn::DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.into_compile_error(),
    };
    let ident = &input.ident;
    let mut generics = input.generics.clone();
    {
        let wc = generics.make_where_clause();
        for p in input.generics.type_params() {
            let p = &p.ident;
            wc.predicates
                .push(syn::parse_quote!(#p: ::rota::__private::StableHash));
        }
    }
    let (impl_g, ty_g, where_c) = generics.split_for_impl();
    let hash = quote!(::rota::__private::StableHash::stable_hash);
    let body = match &input.data {
        syn::Data::Struct(s) => {
            let fields = s.fields.iter().enumerate().map(|(i, f)| match &f.ident {
                Some(name) => quote!(#hash(&self.#name, hasher);),
                None => {
                    let i = syn::Index::from(i);
                    quote!(#hash(&self.#i, hasher);)
                }
            });
            quote!(#(#fields)*)
        }
        syn::Data::Enum(e) => {
            let arms = e.variants.iter().enumerate().map(|(index, v)| {
                let index = index as u32;
                let vname = &v.ident;
                let binds: Vec<_> = (0..v.fields.len())
                    .map(|i| format_ident!("__field_{}", i))
                    .collect();
                let pattern = match &v.fields {
                    syn::Fields::Named(n) => {
                        let names = n.named.iter().map(|f| f.ident.as_ref());
                        quote!({ #(#names: #binds),* })
                    }
                    syn::Fields::Unnamed(_) => quote!(( #(#binds),* )),
                    syn::Fields::Unit => quote!(),
                };
                quote! {
                    Self::#vname #pattern => {
                        #hash(&#index, hasher);
                        #(#hash(#binds, hasher);)*
                    }
                }
            });
            quote!(match self { #(#arms)* })
        }
        syn::Data::Union(u) => {
            return syn::Error::new(
                u.union_token.span,
                "`StableHash` cannot be derived for a union: which field to hash is unknown",
            )
            .into_compile_error();
        }
    };
    quote! {
        #[automatically_derived]
        impl #impl_g ::rota::__private::StableHash for #ident #ty_g #where_c {
            fn stable_hash(&self, hasher: &mut ::rota::__private::StableHasher) {
                #body
            }
        }
    }
}
