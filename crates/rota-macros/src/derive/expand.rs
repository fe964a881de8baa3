//! Expansion: the trait impl, naming only `::rota::__private` paths.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::Kind;
use super::parse::Model;

pub(crate) fn expand(model: &Model, kind: Kind) -> TokenStream {
    let ident = &model.ident;
    let name = ident.to_string();
    let mut generics = model.generics.clone();
    {
        let where_clause = generics.make_where_clause();
        for param in model.generics.type_params() {
            let p = &param.ident;
            where_clause.predicates.push(syn::parse_quote!(
                #p: ::core::marker::Send + ::core::marker::Sync + 'static
            ));
        }
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let is_generic = model.generics.type_params().next().is_some()
        || model.generics.const_params().next().is_some();
    // A key no other type shares: module, name, and where the type is defined (two types named
    // alike in one module — one inside a function — differ by line and column). Generic types
    // cannot have one in `const` (see `Component::UNIQUE_KEY`).
    let span = ident.span();
    let key = if is_generic {
        quote!(::core::option::Option::None)
    } else {
        quote_spanned!(span=> ::core::option::Option::Some(::core::concat!(
            ::core::module_path!(), "::", #name, "@", ::core::file!(), ":",
            ::core::line!(), ":", ::core::column!()
        )))
    };
    match kind {
        Kind::Component => {
            // A static inside a generic impl would be shared by every instantiation.
            let cell = (!is_generic).then(|| quote! {
                fn __registry_cell() -> ::core::option::Option<&'static ::core::sync::atomic::AtomicU32> {
                    static CELL: ::core::sync::atomic::AtomicU32 = ::core::sync::atomic::AtomicU32::new(0);
                    ::core::option::Option::Some(&CELL)
                }
            });
            quote! {
                #[automatically_derived]
                impl #impl_generics ::rota::__private::Component for #ident #ty_generics
                #where_clause
                {
                    const NAME: &'static str = #name;
                    const UNIQUE_KEY: ::core::option::Option<&'static str> = #key;
                    #cell
                }
                #[automatically_derived]
                impl #impl_generics ::rota::__private::Declarable for #ident #ty_generics
                #where_clause
                {
                    const KIND: ::rota::__private::AccessKind =
                        ::rota::__private::AccessKind::Component;
                    const NAME: &'static str = #name;
                }
                const _: () = {
                    #[allow(dead_code)]
                    fn component_must_be_send_sync_static #impl_generics () #where_clause {
                        ::rota::__private::component_must_be_send_sync_static::<#ident #ty_generics>();
                    }
                };
            }
        }
        Kind::Event => quote! {
            #[automatically_derived]
            impl #impl_generics ::rota::__private::Event for #ident #ty_generics
            #where_clause
            {
                const NAME: &'static str = #name;
                const UNIQUE_KEY: ::core::option::Option<&'static str> = #key;
            }
            const _: () = {
                #[allow(dead_code)]
                fn event_must_be_send_sync_static #impl_generics () #where_clause {
                    ::rota::__private::event_must_be_send_sync_static::<#ident #ty_generics>();
                }
            };
        },
        Kind::Resource => quote! {
            #[automatically_derived]
            impl #impl_generics ::rota::__private::Resource for #ident #ty_generics
            #where_clause
            {
                const NAME: &'static str = #name;
                const UNIQUE_KEY: ::core::option::Option<&'static str> = #key;
            }
            #[automatically_derived]
            impl #impl_generics ::rota::__private::Declarable for #ident #ty_generics
            #where_clause
            {
                const KIND: ::rota::__private::AccessKind = ::rota::__private::AccessKind::Resource;
                const NAME: &'static str = #name;
            }
            const _: () = {
                #[allow(dead_code)]
                fn resource_must_be_send_sync_static #impl_generics () #where_clause {
                    ::rota::__private::resource_must_be_send_sync_static::<#ident #ty_generics>();
                }
            };
        },
    }
}
