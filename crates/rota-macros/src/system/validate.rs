//! Validation: everything `#[system]` cannot honour in the function's shape and the attribute's
//! lists, each a spanned error, all reported at once. What a parameter accesses is not checked
//! here: that is the type system's job (see `expand.rs`), because only types — not spellings —
//! say what a parameter is.

use quote::ToTokens;

use super::combine;
use super::parse::{Declared, Kind, Model};

pub(crate) fn validate(model: &Model) -> syn::Result<()> {
    let mut errors = Vec::new();
    let sig = &model.item.sig;
    let name = &sig.ident;
    let what = model.kind.word();
    for span in &model.receivers {
        errors.push(syn::Error::new(
            *span,
            format!(
                "{what} `{name}` cannot take `self`: a system is a free function whose parameters are all declared accesses"
            ),
        ));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.push(syn::Error::new_spanned(
            &sig.generics,
            format!(
                "{what} `{name}` cannot be generic: its accesses must be known types so the compiler can check them"
            ),
        ));
    }
    // Qualifiers a system cannot have: (the token, if present; what it is).
    let qualifiers: [(Option<&dyn ToTokens>, &str); 5] = [
        (sig.asyncness.as_ref().map(|t| t as _), "`async`"),
        (sig.constness.as_ref().map(|t| t as _), "`const`"),
        (sig.unsafety.as_ref().map(|t| t as _), "`unsafe`"),
        (sig.abi.as_ref().map(|t| t as _), "`extern`"),
        (sig.variadic.as_ref().map(|t| t as _), "variadic"),
    ];
    for (token, what) in qualifiers {
        if let Some(token) = token {
            errors.push(syn::Error::new_spanned(
                token,
                format!("{what} `{name}` cannot be {what}"),
            ));
        }
    }
    if model.kind == Kind::Condition {
        let boolean = match &sig.output {
            syn::ReturnType::Type(_, ty) => {
                matches!(&**ty, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("bool"))
            }
            syn::ReturnType::Default => false,
        };
        if !boolean {
            errors.push(match &sig.output {
                syn::ReturnType::Type(_, ty) => syn::Error::new_spanned(
                    ty,
                    format!("condition `{name}` must return `bool`: whether its systems run"),
                ),
                syn::ReturnType::Default => syn::Error::new_spanned(
                    &sig.ident,
                    format!("condition `{name}` must return `bool`: whether its systems run"),
                ),
            });
        }
    } else if let syn::ReturnType::Type(_, ty) = &sig.output {
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
    for (list, what) in [
        (&model.reads, "reads"),
        (&model.writes, "writes"),
        (&model.defers, "defers"),
        (&model.sends, "sends"),
        (&model.receives, "receives"),
    ] {
        duplicates(list, what, model.kind, name, &mut errors);
    }
    for path in &model.after {
        if path.is_ident(name) {
            errors.push(syn::Error::new_spanned(
                path,
                format!("{what} `{name}` cannot run after itself: `after(..)` names other systems"),
            ));
        }
    }
    if let Some(lit) = &model.every_ticks {
        match lit.base10_parse::<u64>() {
            Ok(0) => errors.push(syn::Error::new_spanned(
                lit,
                format!("{what} `{name}`: `every_ticks` must be at least 1 (1 = every tick)"),
            )),
            Ok(_) => {}
            Err(e) => errors.push(syn::Error::new_spanned(
                lit,
                format!("{what} `{name}`: `every_ticks` must be a whole number of ticks: {e}"),
            )),
        }
    }
    combine(errors)
}

/// A type listed twice in one list, reported at its second occurrence.
fn duplicates(
    list: &[Declared],
    what: &str,
    kind: Kind,
    system: &syn::Ident,
    errors: &mut Vec<syn::Error>,
) {
    let mut seen: Vec<String> = Vec::new();
    for d in list {
        let key = d.ty.to_token_stream().to_string();
        if seen.contains(&key) {
            errors.push(syn::Error::new_spanned(
                &d.ty,
                format!(
                    "{} `{system}` declares `{key}` twice in `{what}(..)`",
                    kind.word()
                ),
            ));
        } else {
            seen.push(key);
        }
    }
}
