//! Validation: every way a scene declaration could break an old file, each a spanned error,
//! all reported together. A duplicate is reported at its second occurrence.

use super::parse::Model;
use super::{ID, KEY, RETIRED, SCENE};

/// What expansion needs once the model is known good.
pub(crate) struct Valid {
    pub(crate) key: String,
}

pub(crate) fn validate(model: &Model) -> syn::Result<Valid> {
    let mut errors: Vec<syn::Error> = model.attr_errors.clone();
    if let Some((span, what)) = model.not_a_struct {
        errors.push(syn::Error::new(
            span,
            format!(
                "`Scene` cannot be derived for {what}: scene fields are addressed by id, so \
                 use a struct"
            ),
        ));
    }
    if let Some(param) = model.generics.params.first() {
        errors.push(syn::Error::new_spanned(
            param,
            "`Scene` cannot be derived for a generic type: a scene key names one type",
        ));
    }
    let key = match &model.key {
        None => {
            errors.push(syn::Error::new(
                model.ident.span(),
                format!(
                    "`{}` has no scene key: add `#[{SCENE}({KEY} = \"..\")]` to the type; the \
                     file names the component by it, so keep it when the type is renamed",
                    model.ident
                ),
            ));
            String::new()
        }
        Some(lit) if lit.value().is_empty() => {
            errors.push(syn::Error::new_spanned(
                lit,
                "the scene key cannot be empty",
            ));
            String::new()
        }
        Some(lit) => lit.value(),
    };
    let mut retired: Vec<u32> = Vec::new();
    for (id, lit) in &model.retired {
        if retired.contains(id) {
            errors.push(syn::Error::new_spanned(
                lit,
                format!("scene field id {id} is retired twice"),
            ));
        }
        retired.push(*id);
    }
    let mut used: Vec<(u32, &str)> = Vec::new();
    for field in &model.fields {
        let Some((id, lit)) = &field.id else {
            errors.push(syn::Error::new(
                field.span,
                format!(
                    "field `{}` has no scene id: add `#[{SCENE}({ID} = N)]` with a number no \
                     other field of `{}` uses and that is not retired",
                    field.name, model.ident
                ),
            ));
            continue;
        };
        if let Some((_, other)) = used.iter().find(|(u, _)| u == id) {
            errors.push(syn::Error::new_spanned(
                lit,
                format!(
                    "scene field id {id} is used twice: by `{other}` and by `{}`",
                    field.name
                ),
            ));
        } else if retired.contains(id) {
            errors.push(syn::Error::new_spanned(
                lit,
                format!(
                    "scene field id {id} of `{}` was retired (`{RETIRED}({id})`): ids of removed \
                     fields are never reused, or old files would load the removed field's value \
                     into this one; choose a new id",
                    field.name
                ),
            ));
        }
        used.push((*id, &field.name));
    }
    crate::combine(errors)?;
    Ok(Valid { key })
}
