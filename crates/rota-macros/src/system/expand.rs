//! Expansion of `#[system]`. For
//!
//! ```text
//! #[system(reads(Vel), writes(Pos))]
//! fn movement(mut q: Query<(&mut Pos, &Vel)>) { body }
//! ```
//!
//! it generates, naming only `::rota::__private` paths:
//!
//! ```text
//! fn movement() -> impl System {
//!     // The body, generic over the marker and bounded by exactly the declarations: it cannot
//!     // name the concrete marker (it is in the block below) nor add to its declarations.
//!     fn body<movement: Marker + Reads<Vel> + Reads<Pos> + Writes<Pos> + Defers<Pos>>(
//!         mut q: <Query<(&mut Pos, &Vel)> as SystemParam>::Item<'_, movement>,
//!     ) { body }
//!     {
//!         struct movement;                       // the marker: its name is the system's
//!         impl Reads<Vel> for movement {} ...    // exactly the declared impls
//!         const _: () = check_access::<movement, Query<(&mut Pos, &Vel)>>();   // per parameter
//!         const _: () = check_parameter_aliasing("movement", &["q"], &[ACCESS..], 0);
//!         impl System for movement { descriptor from the same lists; run = fetch each + body }
//!         movement
//!     }
//! }
//! ```
//!
//! Parameters are recognised by type (`<T as SystemParam>`), never by spelling, so aliases,
//! `use .. as` and macro-generated types work, and every check is reported once, at the
//! parameter.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::Type;
use syn::spanned::Spanned;

use super::parse::{Declared, Kind, Model};

pub(crate) fn expand(model: &Model) -> TokenStream {
    let item = &model.item;
    let sig = &item.sig;
    let name = &sig.ident;
    let name_str = name.to_string();
    let vis = &item.vis;
    let attrs = &item.attrs;
    let block = &item.block;
    let output = &sig.output;
    let marker = format_ident!("{}", name, span = name.span());
    let body_fn = format_ident!("__rota_system_body", span = Span::mixed_site());
    let context = syn::Ident::new("__rota_context", Span::mixed_site());
    let state = syn::Ident::new("__rota_state", Span::mixed_site());

    // A type in both `reads` and `writes` is a write: its `Reads` impl comes with `Writes`.
    let writes: Vec<&Type> = model.writes.iter().map(|d| &d.ty).collect();
    let written: Vec<String> = writes.iter().map(|t| spelled(t)).collect();
    let reads = not_written(&model.reads, &written);
    let defers = not_written(&model.defers, &written);

    let sends: Vec<&Type> = model.sends.iter().map(|d| &d.ty).collect();
    let receives: Vec<&Type> = model.receives.iter().map(|d| &d.ty).collect();
    let declarable =
        reads
            .iter()
            .chain(&writes)
            .chain(&defers)
            .map(|ty| quote_spanned! {ty.span()=> ::rota::__private::assert_declarable::<#ty>(); })
            .chain(defers.iter().map(|ty| {
                quote_spanned! {ty.span()=>
                    ::rota::__private::assert_deferrable::<#ty>();
                    ::rota::__private::assert_deferrable_hierarchy::<#ty>();
                }
            }))
            .chain(writes.iter().map(
                |ty| quote_spanned! {ty.span()=> ::rota::__private::assert_writable::<#ty>(); },
            ))
            .chain(
                sends.iter().chain(&receives).map(
                    |ty| quote_spanned! {ty.span()=> ::rota::__private::assert_event::<#ty>(); },
                ),
            );
    let impls = {
        let r = reads.iter().map(|ty| {
            quote_spanned! {ty.span()=> impl ::rota::__private::Reads<#ty> for #marker {} }
        });
        let w = writes.iter().map(|ty| {
            quote_spanned! {ty.span()=>
                impl ::rota::__private::Reads<#ty> for #marker {}
                impl ::rota::__private::Writes<#ty> for #marker {}
                impl ::rota::__private::Defers<#ty> for #marker {}
            }
        });
        let d = defers.iter().map(|ty| {
            quote_spanned! {ty.span()=> impl ::rota::__private::Defers<#ty> for #marker {} }
        });
        let s = sends.iter().map(|ty| {
            quote_spanned! {ty.span()=> impl ::rota::__private::Sends<#ty> for #marker {} }
        });
        let v = receives.iter().map(|ty| {
            quote_spanned! {ty.span()=> impl ::rota::__private::Receives<#ty> for #marker {} }
        });
        quote! { #(#r)* #(#w)* #(#d)* #(#s)* #(#v)* }
    };
    let bounds = {
        let r = reads
            .iter()
            .map(|ty| quote!(+ ::rota::__private::Reads<#ty>));
        let w = writes
            .iter()
            .map(|ty| quote!(+ ::rota::__private::Writes<#ty> + ::rota::__private::Defers<#ty>));
        let d = defers
            .iter()
            .map(|ty| quote!(+ ::rota::__private::Defers<#ty>));
        let s = sends
            .iter()
            .map(|ty| quote!(+ ::rota::__private::Sends<#ty>));
        let v = receives
            .iter()
            .map(|ty| quote!(+ ::rota::__private::Receives<#ty>));
        quote! { ::rota::__private::Marker #(#r)* #(#w)* #(#d)* #(#s)* #(#v)* }
    };

    let tys: Vec<&Type> = model.params.iter().map(|p| &p.ty).collect();
    let names: Vec<&str> = model.params.iter().map(|p| p.name.as_str()).collect();

    let body_params = model.params.iter().map(|p| {
        let pat = &p.pat;
        let ty = &p.ty;
        quote_spanned! {ty.span()=> #pat: <#ty as ::rota::__private::SystemParam>::Item<'_, #marker> }
    });
    // One access check per parameter, at the parameter: one error per mistake.
    let access_checks = tys.iter().map(|ty| {
        quote_spanned! {ty.span()=>
            const _: () = ::rota::__private::check_access::<#marker, #ty>();
        }
    });
    // Every use of a parameter's `SystemParam` impl is spanned entirely at the parameter, so a
    // type that is not a parameter is reported once (rustc merges identical errors).
    let accesses: Vec<TokenStream> = tys
        .iter()
        .map(|ty| quote_spanned! {ty.span()=> <#ty as ::rota::__private::SystemParam>::ACCESS })
        .collect();
    let alias_checks = tys.iter().enumerate().map(|(i, ty)| {
        quote_spanned! {ty.span()=>
            const _: () = ::rota::__private::check_parameter_aliasing(
                #name_str, &[#(#names),*], &[#(#accesses),*], #i,
            );
        }
    });
    let commands_counts = tys
        .iter()
        .map(|ty| quote_spanned! {ty.span()=> <#ty as ::rota::__private::SystemParam>::COMMANDS });
    let commands_check = quote! {
        const _: () = ::rota::__private::check_one_commands(#name_str, 0 #(+ #commands_counts)*);
    };
    let state_tys: Vec<TokenStream> = tys
        .iter()
        .map(|ty| quote_spanned! {ty.span()=> <#ty as ::rota::__private::SystemParam>::State })
        .collect();
    let states: Vec<syn::Ident> = (0..tys.len())
        .map(|i| format_ident!("__rota_state_{}", i, span = Span::mixed_site()))
        .collect();
    let fetches = tys.iter().zip(&states).map(|(ty, s)| {
        quote_spanned! {ty.span()=>
            <#ty as ::rota::__private::SystemParam>::fetch::<#marker>(&mut #context, #s)
        }
    });
    let init_states = tys.iter().map(|ty| {
        quote_spanned! {ty.span()=> <#ty as ::rota::__private::SystemParam>::init_state() }
    });
    let param_access = tys.iter().map(|ty| {
        quote_spanned! {ty.span()=> <#ty as ::rota::__private::SystemParam>::access(&mut accesses); }
    });
    let uses_commands = tys
        .iter()
        .map(|ty| quote_spanned! {ty.span()=> <#ty as ::rota::__private::SystemParam>::COMMANDS });
    let after = &model.after;
    let every_ticks = model
        .every_ticks
        .as_ref()
        .map(|l| l.base10_parse::<u64>().unwrap_or(1))
        .unwrap_or(1);

    let run_if = match model.run_if.split_first() {
        None => quote! {},
        Some((first, rest)) => {
            let first = quote_spanned! {first.span()=>
                ::rota::__private::IntoRunIf::into_run_if(#first)
            };
            let rest = rest.iter().map(|c| {
                quote_spanned! {c.span()=> .and(::rota::__private::IntoRunIf::into_run_if(#c)) }
            });
            quote! {
                fn run_if(&self) -> ::rota::__private::Option<::rota::__private::RunIf> {
                    ::rota::__private::Some(#first #(#rest)*)
                }
            }
        }
    };
    let header = quote! {
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy)]
        struct #marker;

        impl ::rota::__private::Marker for #marker {}
        impl ::rota::__private::SystemMarker for #marker {}
        const _: () = { #(#declarable)* };
        #impls
        #(#access_checks)*
        #(#alias_checks)*
    };
    let descriptor = quote! {
        let mut accesses = ::rota::__private::Vec::new();
        #(#param_access)*
        let descriptor = ::rota::__private::SystemDescriptor::new(
            #name_str,
            ::rota::__private::type_id_of::<#marker>(),
        )
        #(.read::<#reads>())*
        #(.write::<#writes>())*
        #(.defer::<#defers>())*
        #(.send::<#sends>())*
        #(.receive::<#receives>())*
        #(.after(::rota::__private::system_ref(#after)))*
        .every_ticks(#every_ticks)
        .params(&accesses);
    };
    let run_body = quote! {
        let (#(#states,)*) = ::rota::__private::state_mut::<(#(#state_tys,)*)>(#state);
        // Shorten the context's lifetime to the state borrow's (covariance).
        let mut #context: ::rota::__private::SystemContext<'_> = #context;
        #body_fn::<#marker>(#(#fetches),*)
    };

    if model.kind == Kind::Condition {
        // One read-only check per parameter, at the parameter.
        let read_only = model.params.iter().map(|p| {
            let ty = &p.ty;
            let param_name = &p.name;
            quote_spanned! {ty.span()=>
                const _: () = ::rota::__private::check_condition_parameter(
                    #name_str,
                    #param_name,
                    <#ty as ::rota::__private::SystemParam>::ACCESS,
                    <#ty as ::rota::__private::SystemParam>::COMMANDS,
                );
            }
        });
        return quote! {
            #(#attrs)*
            #[allow(clippy::let_unit_value, clippy::unused_unit, clippy::type_complexity, elided_lifetimes_in_paths)]
            #vis fn #name() -> impl ::rota::__private::Condition {
                #[allow(non_camel_case_types, elided_lifetimes_in_paths, clippy::too_many_arguments, clippy::needless_pass_by_value)]
                fn #body_fn<#marker: #bounds>(#(#body_params),*) #output #block

                {
                    #header
                    #(#read_only)*
                    impl ::rota::__private::ConditionSeal for #marker {}

                    impl ::rota::__private::Condition for #marker {
                        const NAME: &'static str = #name_str;
                        type State = ::rota::__private::ErasedState;

                        fn descriptor(&self) -> ::rota::__private::SystemDescriptor {
                            #descriptor
                            descriptor
                        }

                        fn init_state(&self) -> Self::State {
                            ::rota::__private::erase_state((#(#init_states,)*))
                        }

                        fn evaluate(
                            &self,
                            #state: &mut Self::State,
                            #context: ::rota::__private::SystemContext<'_>,
                        ) -> bool {
                            #run_body
                        }
                    }

                    #marker
                }
            }
        };
    }

    quote! {
        #(#attrs)*
        #[allow(clippy::let_unit_value, clippy::unused_unit, clippy::type_complexity, elided_lifetimes_in_paths)]
        #vis fn #name() -> impl ::rota::__private::System {
            #[allow(non_camel_case_types, elided_lifetimes_in_paths, clippy::too_many_arguments, clippy::needless_pass_by_value)]
            fn #body_fn<#marker: #bounds>(#(#body_params),*) #output #block

            {
                #header
                impl ::rota::__private::SystemSeal for #marker {}
                #commands_check

                impl ::rota::__private::System for #marker {
                    const NAME: &'static str = #name_str;
                    type State = ::rota::__private::ErasedState;

                    fn descriptor(&self) -> ::rota::__private::SystemDescriptor {
                        #descriptor
                        if (0 #(+ #uses_commands)*) > 0 {
                            descriptor.uses_commands()
                        } else {
                            descriptor
                        }
                    }

                    fn init_state(&self) -> Self::State {
                        ::rota::__private::erase_state((#(#init_states,)*))
                    }

                    fn run(
                        &self,
                        #state: &mut Self::State,
                        #context: ::rota::__private::SystemContext<'_>,
                    ) {
                        #run_body
                    }

                    #run_if
                }

                #marker
            }
        }
    }
}

/// How a type is spelled: the identity a type in both `reads` and `writes` is matched by.
fn spelled(ty: &Type) -> String {
    ty.to_token_stream().to_string()
}

/// The types of `list` not spelled as in `written`.
fn not_written<'m>(list: &'m [Declared], written: &[String]) -> Vec<&'m Type> {
    list.iter()
        .map(|d| &d.ty)
        .filter(|t| !written.contains(&spelled(t)))
        .collect()
}
