//! Expansion: the trait impl, naming only `::rota::__private` paths.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use super::Kind;
use super::parse::Model;

/// Whether the impl checks that the type is `Clone` (snapshots need it unless `no_snapshot`).
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum CloneCheck {
    Emit,
    /// The input was rejected: its impl is emitted only to stop cascading errors.
    Skip,
}

pub(crate) fn expand(model: &Model, kind: Kind, clone_check: CloneCheck) -> TokenStream {
    let ident = &model.ident;
    let name = ident.to_string();
    let mut generics = model.generics.clone();
    let is_generic = model.generics.type_params().next().is_some()
        || model.generics.const_params().next().is_some();
    let snapshotted = model.no_snapshot.is_empty() && clone_check == CloneCheck::Emit;
    {
        let where_clause = generics.make_where_clause();
        for param in model.generics.type_params() {
            let p = &param.ident;
            where_clause.predicates.push(syn::parse_quote!(
                #p: ::core::marker::Send + ::core::marker::Sync + 'static
            ));
        }
        // A generic type is `Clone` only for some parameters (`#[derive(Clone)]` bounds each
        // one), so the bound goes on the impl: `Wrapper<NotClone>` is not a component.
        if is_generic && snapshotted {
            let (_, ty_generics, _) = model.generics.split_for_impl();
            where_clause
                .predicates
                .push(syn::parse_quote!(#ident #ty_generics: ::core::clone::Clone));
        }
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
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
    // `snapshot_by_clone` fails to compile, naming the type, if it is not `Clone`; spanned at
    // the type's name so the error points at the definition.
    let (policy_check, excluded) = match kind {
        Kind::Component => (
            quote_spanned!(span=> ::rota::__private::component_snapshot_by_clone::<Self>()),
            quote!(::rota::__private::SnapshotPolicy::<Self>::EXCLUDED),
        ),
        Kind::Resource => (
            quote_spanned!(span=> ::rota::__private::resource_snapshot_by_clone::<Self>()),
            quote!(::rota::__private::SnapshotPolicy::<Self>::EXCLUDED),
        ),
        // `Event: Clone` is a supertrait: no policy to choose.
        Kind::Event => (quote!(), quote!()),
    };
    let policy = if snapshotted { policy_check } else { excluded };
    // `Some(StableHash::stable_hash)` exactly when the type implements `StableHash`: method
    // resolution prefers the impl on `&HashProbe<T>` (bounded by `T: StableHash`) over the
    // fallback on `HashProbe<T>` (autoref specialisation; resolved per concrete type).
    let hash = quote! {
        fn stable_hash_fn() -> ::core::option::Option<::rota::__private::StableHashFn<Self>> {
            #[allow(unused_imports)]
            use ::rota::__private::{HashProbeFallback as _, HashProbeStableHash as _};
            (&&::rota::__private::HashProbe::<Self>::new()).stable_hash_fn()
        }
    };
    let snapshot_and_hash = quote! {
        const SNAPSHOT: ::rota::__private::SnapshotPolicy<Self> = #policy;
        #hash
    };
    let body = match kind {
        // A static inside a generic impl would be shared by every instantiation.
        Kind::Component if !is_generic => quote! {
            #snapshot_and_hash
            fn __registry_cell() -> ::core::option::Option<&'static ::core::sync::atomic::AtomicU32> {
                static CELL: ::core::sync::atomic::AtomicU32 = ::core::sync::atomic::AtomicU32::new(0);
                ::core::option::Option::Some(&CELL)
            }
        },
        Kind::Component | Kind::Resource => snapshot_and_hash,
        Kind::Event => hash,
    };
    let trait_name = format_ident!("{}", kind.trait_name());
    // Components and resources can be declared in `reads(..)`/`writes(..)`; events go through
    // `sends(..)`/`receives(..)` as their channels.
    let declarable = (kind != Kind::Event).then(|| {
        quote! {
            #[automatically_derived]
            impl #impl_generics ::rota::__private::Declarable for #ident #ty_generics
            #where_clause
            {
                const KIND: ::rota::__private::AccessKind = ::rota::__private::AccessKind::#trait_name;
                const NAME: &'static str = #name;
            }
        }
    });
    // Named after the kind, so a type that is not `Send + Sync + 'static` is told which derive
    // requires it.
    let send_sync_check = format_ident!("{}_must_be_send_sync_static", kind.attribute_name());
    quote! {
        #[automatically_derived]
        impl #impl_generics ::rota::__private::#trait_name for #ident #ty_generics
        #where_clause
        {
            const NAME: &'static str = #name;
            const UNIQUE_KEY: ::core::option::Option<&'static str> = #key;
            #body
        }
        #declarable
        const _: () = {
            #[allow(dead_code)]
            fn #send_sync_check #impl_generics () #where_clause {
                ::rota::__private::#send_sync_check::<#ident #ty_generics>();
            }
        };
    }
}
