//! `#[derive(SystemParam)]`: a struct of system parameters that is itself one, whose access is
//! the union of its fields' — checked against the system's declarations like any parameter.
//!
//! parse (the struct, its one lifetime, its optional marker type parameter, its fields) →
//! validate → expand. Field types are used as written, with the struct's own lifetime and marker
//! substituted, so a field is any parameter type, spelled any way.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::visit_mut::{self, VisitMut};

/// The derive input, reduced to what validation and expansion need.
struct Model {
    ident: syn::Ident,
    /// The struct's lifetime parameter (the borrow of the world).
    lifetime: Option<syn::Lifetime>,
    /// The struct's type parameter, if any: the system marker (for `Commands<'w, S>` fields).
    marker: Option<syn::Ident>,
    fields: Vec<(syn::Member, syn::Type)>,
    errors: Vec<syn::Error>,
}

fn parse(input: TokenStream) -> syn::Result<Model> {
    let input: syn::DeriveInput = syn::parse2(input)?;
    let mut errors = Vec::new();
    let fields = match &input.data {
        syn::Data::Struct(s) => &s.fields,
        _ => {
            return Err(syn::Error::new_spanned(
                &input.ident,
                "`SystemParam` can only be derived for a struct whose fields are system parameters",
            ));
        }
    };
    let fields = fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let member = match &f.ident {
                Some(id) => syn::Member::Named(id.clone()),
                None => syn::Member::Unnamed(syn::Index::from(i)),
            };
            (member, f.ty.clone())
        })
        .collect();
    let lifetime = first_only(
        input.generics.lifetimes().map(|l| &l.lifetime),
        "a `SystemParam` struct has one lifetime, the borrow of the world (e.g. `'w`)",
        &mut errors,
    );
    let marker = first_only(
        input.generics.type_params().map(|t| &t.ident),
        "a `SystemParam` struct has at most one type parameter: the system marker `#[system]` fills in (used as `Commands<'w, S>`)",
        &mut errors,
    );
    for c in input.generics.const_params() {
        errors.push(syn::Error::new_spanned(
            &c.ident,
            "a `SystemParam` struct cannot have const parameters",
        ));
    }
    if lifetime.is_none() {
        errors.push(syn::Error::new_spanned(
            &input.ident,
            "a `SystemParam` struct needs a lifetime parameter for the borrow of the world, e.g. `struct Movers<'w> { q: Query<'w, &'static mut Position> }`",
        ));
    }
    Ok(Model {
        ident: input.ident,
        lifetime,
        marker,
        fields,
        errors,
    })
}

/// Replaces the struct's lifetime and marker in a field type.
struct Substitute<'a> {
    lifetime: Option<&'a syn::Lifetime>,
    with_lifetime: syn::Lifetime,
    marker: Option<&'a syn::Ident>,
    with_marker: Option<syn::Type>,
}

impl VisitMut for Substitute<'_> {
    fn visit_lifetime_mut(&mut self, l: &mut syn::Lifetime) {
        if self.lifetime.is_some_and(|own| own.ident == l.ident) {
            *l = self.with_lifetime.clone();
        }
    }
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let (Some(marker), Some(with), syn::Type::Path(p)) =
            (self.marker, &self.with_marker, &*ty)
            && p.qself.is_none()
            && p.path.is_ident(marker)
        {
            *ty = with.clone();
            return;
        }
        visit_mut::visit_type_mut(self, ty);
    }
}

fn substituted(
    model: &Model,
    ty: &syn::Type,
    lifetime: &str,
    marker: Option<syn::Type>,
) -> syn::Type {
    let mut ty = ty.clone();
    Substitute {
        lifetime: model.lifetime.as_ref(),
        with_lifetime: syn::Lifetime::new(lifetime, Span::call_site()),
        marker: model.marker.as_ref(),
        with_marker: marker,
    }
    .visit_type_mut(&mut ty);
    ty
}

pub(crate) fn derive_system_param(input: TokenStream) -> TokenStream {
    let model = match parse(input) {
        Ok(m) => m,
        Err(e) => return e.into_compile_error(),
    };
    match crate::combine(model.errors.clone()) {
        Ok(()) => expand(&model),
        Err(e) => e.into_compile_error(),
    }
}

fn expand(model: &Model) -> TokenStream {
    let ident = &model.ident;
    let outer_marker = format_ident!("__RotaOuter");
    let system = format_ident!("__RotaSystem");
    // Field types as the impl sees them ('static, the impl's marker) and as `fetch` builds them.
    let field_tys = |lifetime: &str, marker: &syn::Ident| -> Vec<syn::Type> {
        let marker: Option<syn::Type> = model.marker.as_ref().map(|_| syn::parse_quote!(#marker));
        model
            .fields
            .iter()
            .map(|(_, ty)| substituted(model, ty, lifetime, marker.clone()))
            .collect()
    };
    let state_tys = field_tys("'static", &outer_marker);
    let fetch_tys = field_tys("'__rota_w", &system);
    let (impl_params, self_ty, item_ty) = match &model.marker {
        Some(_) => (
            quote!(<'__rota_x, #outer_marker>),
            quote!(#ident<'__rota_x, #outer_marker>),
            quote!(#ident<'__rota_w, #system>),
        ),
        None => (
            quote!(<'__rota_x>),
            quote!(#ident<'__rota_x>),
            quote!(#ident<'__rota_w>),
        ),
    };
    let states: Vec<syn::Ident> = (0..model.fields.len())
        .map(|i| format_ident!("__rota_state_{}", i))
        .collect();
    let members = model.fields.iter().map(|(m, _)| m);
    // Nested pairs, so any number of fields composes.
    let access = state_tys.iter().rev().fold(
        quote!(()),
        |rest, ty| quote!((<#ty as ::rota::__private::SystemParam>::Access, #rest)),
    );
    // `Name { 0: .., 1: .. }` also builds a tuple struct: one form for both.
    let construct = quote!(#ident { #(#members: <#fetch_tys as ::rota::__private::SystemParam>::fetch::<#system>(context, #states)),* });
    quote! {
        #[automatically_derived]
        impl #impl_params ::rota::__private::ParamSeal for #self_ty {}

        #[automatically_derived]
        impl #impl_params ::rota::__private::SystemParam for #self_ty {
            type State = (#(<#state_tys as ::rota::__private::SystemParam>::State,)*);
            type Item<'__rota_w, #system> = #item_ty;
            type Access = #access;
            const ACCESS: ::rota::__private::ConstAccess = ::rota::__private::ConstAccess::List(&[
                #(<#state_tys as ::rota::__private::SystemParam>::ACCESS),*
            ]);
            const COMMANDS: u32 =
                0 #(+ <#state_tys as ::rota::__private::SystemParam>::COMMANDS)*;
            fn access(out: &mut ::rota::__private::Vec<::rota::__private::Access>) {
                #(<#state_tys as ::rota::__private::SystemParam>::access(out);)*
            }
            fn init_state() -> Self::State {
                (#(<#state_tys as ::rota::__private::SystemParam>::init_state(),)*)
            }
            fn fetch<'__rota_w, #system: ::rota::__private::SystemMarker>(
                context: &mut ::rota::__private::SystemContext<'__rota_w>,
                state: &'__rota_w mut Self::State,
            ) -> Self::Item<'__rota_w, #system> {
                let (#(#states,)*) = state;
                #construct
            }
        }
    }
}

/// The first of `params`; each later one is an error saying `message`, at that parameter.
fn first_only<'a, T: Clone + quote::ToTokens + 'a>(
    mut params: impl Iterator<Item = &'a T>,
    message: &str,
    errors: &mut Vec<syn::Error>,
) -> Option<T> {
    let first = params.next().cloned();
    errors.extend(params.map(|extra| syn::Error::new_spanned(extra, message)));
    first
}
