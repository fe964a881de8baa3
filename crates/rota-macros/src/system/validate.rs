//! Validation: everything `#[system]` cannot honour, each a spanned error, all reported at once.

use quote::ToTokens;
use syn::spanned::Spanned;

use super::combine;
use super::parse::{Declared, Model, ParamKind, type_arg_count};

pub(crate) fn validate(model: &Model) -> syn::Result<()> {
    let mut errors = Vec::new();
    let sig = &model.item.sig;
    let name = &sig.ident;
    for span in &model.receivers {
        errors.push(syn::Error::new(
            *span,
            format!(
                "system `{name}` cannot take `self`: a system is a free function whose parameters are all declared accesses"
            ),
        ));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.push(syn::Error::new_spanned(
            &sig.generics,
            format!(
                "system `{name}` cannot be generic: its accesses must be known types so the compiler can check them"
            ),
        ));
    }
    if let Some(t) = &sig.asyncness {
        errors.push(syn::Error::new_spanned(
            t,
            format!("system `{name}` cannot be `async`"),
        ));
    }
    if let Some(t) = &sig.constness {
        errors.push(syn::Error::new_spanned(
            t,
            format!("system `{name}` cannot be `const`"),
        ));
    }
    if let Some(t) = &sig.unsafety {
        errors.push(syn::Error::new_spanned(
            t,
            format!("system `{name}` cannot be `unsafe`"),
        ));
    }
    if let Some(t) = &sig.abi {
        errors.push(syn::Error::new_spanned(
            t,
            format!("system `{name}` cannot be `extern`"),
        ));
    }
    if let Some(v) = &sig.variadic {
        errors.push(syn::Error::new_spanned(
            v,
            format!("system `{name}` cannot be variadic"),
        ));
    }
    if let syn::ReturnType::Type(_, ty) = &sig.output {
        let unit = matches!(&**ty, syn::Type::Tuple(t) if t.elems.is_empty());
        if !unit {
            errors.push(syn::Error::new_spanned(
                ty,
                format!(
                    "system `{name}` must return `()`: the scheduler has nowhere to put a value"
                ),
            ));
        }
    }
    for (list, what) in [(&model.reads, "reads"), (&model.writes, "writes")] {
        duplicates(list, what, name, &mut errors);
    }
    if let Some(lit) = &model.every_ticks {
        match lit.base10_parse::<u64>() {
            Ok(0) => errors.push(syn::Error::new_spanned(
                lit,
                format!("system `{name}`: `every_ticks` must be at least 1 (1 = every tick)"),
            )),
            Ok(_) => {}
            Err(e) => errors.push(syn::Error::new_spanned(
                lit,
                format!("system `{name}`: `every_ticks` must be a whole number of ticks: {e}"),
            )),
        }
    }
    let mut commands = model
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Commands));
    if let (Some(_), Some(second)) = (commands.next(), commands.next()) {
        errors.push(syn::Error::new(
            second.ty.span(),
            format!(
                "system `{name}` takes `Commands` twice; one buffer records everything (two would reserve the same entities)"
            ),
        ));
    }
    for p in &model.params {
        let args = type_arg_count(&p.ty);
        let bad = match &p.kind {
            ParamKind::Query { .. } if args > 2 => Some(
                "a `Query` takes the fetched data and an optional filter, `Query<Q>` or `Query<Q, F>`; `#[system]` adds the system's marker itself",
            ),
            ParamKind::Res | ParamKind::ResMut if args != 1 => {
                Some("`Res`/`ResMut` take exactly the resource type, e.g. `Res<Gravity>`")
            }
            ParamKind::Local if args != 1 => {
                Some("`Local` takes exactly the state type, e.g. `Local<u32>`")
            }
            ParamKind::Commands if args != 0 => Some(
                "write `Commands` without type arguments; `#[system]` adds the system's marker itself",
            ),
            _ => None,
        };
        if let Some(msg) = bad {
            errors.push(syn::Error::new(
                p.ty.span(),
                format!("system `{name}`, parameter `{}`: {msg}", p.name),
            ));
        }
    }
    combine(errors)
}

fn duplicates(list: &[Declared], what: &str, system: &syn::Ident, errors: &mut Vec<syn::Error>) {
    let mut seen: Vec<String> = Vec::new();
    for d in list {
        let key = d.ty.to_token_stream().to_string();
        if seen.contains(&key) {
            errors.push(syn::Error::new_spanned(
                &d.ty,
                format!("system `{system}` declares `{key}` twice in `{what}(..)`"),
            ));
        } else {
            seen.push(key);
        }
    }
}
