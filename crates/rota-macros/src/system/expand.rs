//! Expansion: the system's constructor function, its unnameable marker type with exactly the
//! declared `Reads`/`Writes` impls, the descriptor built from the same lists, compile-time alias
//! checks, and the original body with each parameter tagged by the marker. Generated code names
//! only `::rota::__private` paths.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{GenericArgument, PathArguments, Type};

use super::parse::{Model, Param, ParamKind};

/// Replaces every lifetime (named or elided) with `'static`, for the type used to fetch.
struct StaticLifetimes;

impl VisitMut for StaticLifetimes {
    fn visit_lifetime_mut(&mut self, l: &mut syn::Lifetime) {
        *l = syn::Lifetime::new("'static", l.span());
    }
    fn visit_type_reference_mut(&mut self, r: &mut syn::TypeReference) {
        if r.lifetime.is_none() {
            r.lifetime = Some(syn::Lifetime::new("'static", r.and_token.span));
        }
        visit_mut::visit_type_reference_mut(self, r);
    }
}

/// `ty` with the system marker appended (and `F = ()` for a one-argument `Query`); `lifetime`
/// is inserted first when the path has none.
fn tagged(ty: &Type, kind: &ParamKind, marker: &syn::Ident, lifetime: &str) -> Type {
    let mut ty = ty.clone();
    let Type::Path(p) = &mut ty else {
        return ty;
    };
    let Some(seg) = p.path.segments.last_mut() else {
        return ty;
    };
    let span = seg.ident.span();
    let marker_ty: Type = syn::parse_quote_spanned!(span=> #marker);
    let mut args = match std::mem::replace(&mut seg.arguments, PathArguments::None) {
        PathArguments::AngleBracketed(a) => a,
        _ => syn::parse_quote!(<>),
    };
    if !args
        .args
        .iter()
        .any(|a| matches!(a, GenericArgument::Lifetime(_)))
    {
        let l = syn::Lifetime::new(lifetime, span);
        args.args.insert(0, GenericArgument::Lifetime(l));
    }
    match kind {
        ParamKind::Query { filter: None, .. } => {
            args.args
                .push(GenericArgument::Type(syn::parse_quote_spanned!(span=> ())));
            args.args.push(GenericArgument::Type(marker_ty));
        }
        ParamKind::Query { .. } | ParamKind::Res | ParamKind::ResMut | ParamKind::Commands => {
            args.args.push(GenericArgument::Type(marker_ty))
        }
        _ => {}
    }
    seg.arguments = PathArguments::AngleBracketed(args);
    ty
}

/// The component a query element accesses and whether mutably: `&T`, `&mut T`, `Option<&T>`,
/// `Option<&mut T>`. `None` for `Entity`, filters, and anything syntax cannot see through.
fn element_access(ty: &Type) -> Option<(bool, Type)> {
    match ty {
        Type::Reference(r) => Some((r.mutability.is_some(), (*r.elem).clone())),
        Type::Paren(p) => element_access(&p.elem),
        Type::Path(p) => {
            let seg = p.path.segments.last()?;
            if seg.ident != "Option" {
                return None;
            }
            match &seg.arguments {
                PathArguments::AngleBracketed(a) => match a.args.first()? {
                    GenericArgument::Type(t @ Type::Reference(_)) => element_access(t),
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    }
}

fn is_plain_element(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "Entity" || s.ident == "With" || s.ident == "Without"),
        Type::Tuple(t) => t.elems.is_empty(),
        _ => false,
    }
}

struct Element<'a> {
    param: &'a Param,
    write: bool,
    component: Type,
}

/// Compile-time alias checks: every pair of accesses to the same component (by unique key)
/// where one is mutable, within one query or across the system's queries.
fn alias_checks(model: &Model, system: &str) -> TokenStream {
    let mut elements: Vec<Element<'_>> = Vec::new();
    let mut fallbacks = Vec::new();
    for p in &model.params {
        let ParamKind::Query { data, .. } = &p.kind else {
            continue;
        };
        let items: Vec<&Type> = match &**data {
            Type::Tuple(t) => t.elems.iter().collect(),
            other => vec![other],
        };
        let mut opaque = false;
        for item in items {
            match element_access(item) {
                Some((write, component)) => elements.push(Element {
                    param: p,
                    write,
                    component,
                }),
                None if is_plain_element(item) => {}
                None => opaque = true,
            }
        }
        if opaque {
            let msg = format!(
                "system `{system}`: query parameter `{}` names one component twice and one of the two is `&mut`; split the query",
                p.name
            );
            let mut q: Type = (**data).clone();
            StaticLifetimes.visit_type_mut(&mut q);
            fallbacks.push(quote_spanned! {data.span()=>
                const _: () = if ::rota::__private::query_aliases::<#q>() {
                    ::core::panic!(#msg)
                };
            });
        }
    }
    let mut checks = Vec::new();
    for (i, a) in elements.iter().enumerate() {
        for b in &elements[i + 1..] {
            if !(a.write || b.write) {
                continue;
            }
            let (ta, tb) = (&a.component, &b.component);
            let (sa, sb) = (
                ta.to_token_stream().to_string(),
                tb.to_token_stream().to_string(),
            );
            let what = if sa == sb {
                format!("`{sa}` twice")
            } else {
                format!("`{sa}` and `{sb}` (the same component)")
            };
            let msg = if std::ptr::eq(a.param, b.param) {
                format!(
                    "system `{system}`: query parameter `{}` accesses {what} and one access is `&mut`; a `&mut` would alias: split the query",
                    a.param.name
                )
            } else {
                format!(
                    "system `{system}`: parameters `{}` and `{}` both access {what} and one access is `&mut`; a `&mut` would alias: use one query",
                    a.param.name, b.param.name
                )
            };
            checks.push(quote_spanned! {tb.span()=>
                const _: () = if ::rota::__private::same_component::<#ta, #tb>() {
                    ::core::panic!(#msg)
                };
            });
        }
    }
    quote! { #(#checks)* #(#fallbacks)* }
}

pub(crate) fn expand(model: &Model) -> TokenStream {
    let item = &model.item;
    let sig = &item.sig;
    let name = &sig.ident;
    let name_str = name.to_string();
    let vis = &item.vis;
    let attrs = &item.attrs;
    let block = &item.block;
    let marker = format_ident!("{}", name, span = name.span());
    let body_fn = format_ident!("__rota_system_body", span = Span::mixed_site());

    let writes: Vec<&Type> = model.writes.iter().map(|d| &d.ty).collect();
    let written: Vec<String> = writes
        .iter()
        .map(|t| t.to_token_stream().to_string())
        .collect();
    // A type in both lists is a write: its `Reads` impl comes with the `Writes` one.
    let reads: Vec<&Type> = model
        .reads
        .iter()
        .map(|d| &d.ty)
        .filter(|t| !written.contains(&t.to_token_stream().to_string()))
        .collect();
    let declarable = reads.iter().chain(&writes).map(|ty| {
        quote_spanned! {ty.span()=> ::rota::__private::assert_declarable::<#ty>(); }
    });
    let read_impls = reads.iter().map(|ty| {
        quote_spanned! {ty.span()=>
            impl ::rota::__private::Reads<#ty> for #marker {}
        }
    });
    let write_impls = writes.iter().map(|ty| {
        quote_spanned! {ty.span()=>
            impl ::rota::__private::Reads<#ty> for #marker {}
            impl ::rota::__private::Writes<#ty> for #marker {}
        }
    });
    let after = &model.after;
    let every_ticks = model
        .every_ticks
        .as_ref()
        .map(|l| l.base10_parse::<u64>().unwrap_or(1))
        .unwrap_or(1);

    let fetch_tys: Vec<Type> = model
        .params
        .iter()
        .map(|p| {
            let mut t = tagged(&p.ty, &p.kind, &marker, "'static");
            StaticLifetimes.visit_type_mut(&mut t);
            t
        })
        .collect();
    let body_params = model.params.iter().map(|p| {
        let pat = &p.pat;
        let ty = tagged(&p.ty, &p.kind, &marker, "'_");
        quote! { #pat: #ty }
    });
    let states: Vec<syn::Ident> = (0..model.params.len())
        .map(|i| format_ident!("__rota_state_{}", i, span = Span::mixed_site()))
        .collect();
    let context = syn::Ident::new("__rota_context", Span::mixed_site());
    let fetches = fetch_tys.iter().zip(&states).map(|(ty, s)| {
        quote_spanned! {ty.span()=>
            <#ty as ::rota::__private::SystemParam<#marker>>::fetch(&mut #context, #s)
        }
    });
    let checks = alias_checks(model, &name_str);
    // Each use of a parameter's `SystemParam` impl carries the user's span, so the compiler
    // reports an undeclared access once, at the parameter, instead of once per use.
    let state_tys = fetch_tys.iter().map(|ty| {
        quote_spanned! {ty.span()=> <#ty as ::rota::__private::SystemParam<#marker>>::State }
    });
    let init_states = fetch_tys.iter().map(|ty| {
        quote_spanned! {ty.span()=> <#ty as ::rota::__private::SystemParam<#marker>>::init_state() }
    });
    let uses_commands = fetch_tys.iter().map(|ty| {
        quote_spanned! {ty.span()=> <#ty as ::rota::__private::SystemParam<#marker>>::USES_COMMANDS }
    });
    let output = &sig.output;

    quote! {
        #(#attrs)*
        #[allow(clippy::let_unit_value, clippy::unused_unit)]
        #vis fn #name() -> impl ::rota::__private::System {
            #[allow(non_camel_case_types)]
            #[derive(Clone, Copy)]
            struct #marker;

            const _: () = { #(#declarable)* };
            #(#read_impls)*
            #(#write_impls)*
            #checks

            impl ::rota::__private::System for #marker {
                const NAME: &'static str = #name_str;
                type State = (#(#state_tys,)*);

                fn descriptor(&self) -> ::rota::__private::SystemDescriptor {
                    let descriptor = ::rota::__private::SystemDescriptor::new(
                        #name_str,
                        ::rota::__private::type_id_of::<#marker>(),
                    )
                    #(.read::<#reads>())*
                    #(.write::<#writes>())*
                    #(.after(::rota::__private::system_ref(#after)))*
                    .every_ticks(#every_ticks);
                    if false #(|| #uses_commands)* {
                        descriptor.uses_commands()
                    } else {
                        descriptor
                    }
                }

                fn init_state(&self) -> Self::State {
                    (#(#init_states,)*)
                }

                fn run(
                    &self,
                    state: &mut Self::State,
                    #context: ::rota::__private::SystemContext<'_>,
                ) {
                    let (#(#states,)*) = state;
                    // Shorten the context's lifetime to the state borrow's (covariance).
                    let mut #context: ::rota::__private::SystemContext<'_> = #context;
                    #body_fn(#(#fetches),*)
                }
            }

            #[allow(clippy::too_many_arguments, clippy::needless_pass_by_value)]
            fn #body_fn(#(#body_params),*) #output #block

            #marker
        }
    }
}
