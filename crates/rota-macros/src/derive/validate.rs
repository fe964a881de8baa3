//! Validation: everything rota cannot honour, each a spanned error, all reported together.

use super::Kind;
use super::parse::{Model, NO_SNAPSHOT};

pub(crate) fn validate(model: &Model, kind: Kind) -> syn::Result<()> {
    let mut errors: Vec<syn::Error> = Vec::new();
    let what = kind.trait_name();
    if let Some(token) = model.union_token {
        errors.push(syn::Error::new(
            token.span,
            format!(
                "`{what}` cannot be derived for a union: rota must drop and move values \
                 without knowing which field is live; use a struct or an enum"
            ),
        ));
    }
    for lifetime in model.generics.lifetimes() {
        errors.push(syn::Error::new_spanned(
            &lifetime.lifetime,
            format!(
                "a `{what}` cannot borrow: it must be `'static + Send + Sync` because the \
                 scheduler hands it to other threads; remove the lifetime parameter `{}`",
                lifetime.lifetime
            ),
        ));
    }
    let attribute = kind.attribute_name();
    for key in &model.unknown_keys {
        errors.push(syn::Error::new_spanned(
            key,
            format!(
                "unknown key in `#[{attribute}(..)]`: the only key is `{NO_SNAPSHOT}` \
                 (exclude this type from world snapshots)"
            ),
        ));
    }
    if kind == Kind::Event
        && let Some(&span) = model.no_snapshot.first()
    {
        errors.push(syn::Error::new(
            span,
            "an event cannot opt out of snapshots: `Event` requires `Clone`, so a world's \
             channels are always copied",
        ));
    }
    for &repeat in model.no_snapshot.iter().skip(1) {
        errors.push(syn::Error::new(
            repeat,
            format!("`{NO_SNAPSHOT}` is given more than once; write it once"),
        ));
    }
    crate::combine(errors)
}
