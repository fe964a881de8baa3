//! Parsing `#[system(..)]` and the function it decorates into a small model. Syntax errors in
//! one key do not stop the others from being read: every error is collected.

use proc_macro2::{Span, TokenStream};
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Token, Type};

use super::combine;

/// The attribute keys, as named constants so messages and parsing agree.
pub(crate) const READS: &str = "reads";
pub(crate) const WRITES: &str = "writes";
pub(crate) const AFTER: &str = "after";
pub(crate) const DEFERS: &str = "defers";
pub(crate) const EVERY_TICKS: &str = "every_ticks";
pub(crate) const SENDS: &str = "sends";
pub(crate) const RECEIVES: &str = "receives";
pub(crate) const RUN_IF: &str = "run_if";
pub(crate) const KEYS: [&str; 8] = [
    READS,
    WRITES,
    DEFERS,
    SENDS,
    RECEIVES,
    AFTER,
    EVERY_TICKS,
    RUN_IF,
];

/// What the attribute makes: a system (`#[system]`) or a run condition (`#[condition]`, which
/// only reads and returns `bool`).
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    System,
    Condition,
}

impl Kind {
    /// The word messages use.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Kind::System => "system",
            Kind::Condition => "condition",
        }
    }
}

/// A `reads(..)`/`writes(..)` entry: the type as written, for spans and messages.
pub(crate) struct Declared {
    pub(crate) ty: Type,
}

/// A parameter: its pattern and type as written. What kind of parameter it is, and what it
/// accesses, is for the type system to say (`SystemParam`), never for its spelling.
pub(crate) struct Param {
    pub(crate) pat: syn::Pat,
    pub(crate) ty: Type,
    /// The parameter's name, for messages.
    pub(crate) name: String,
}

pub(crate) struct Model {
    pub(crate) kind: Kind,
    pub(crate) item: syn::ItemFn,
    pub(crate) reads: Vec<Declared>,
    pub(crate) writes: Vec<Declared>,
    pub(crate) defers: Vec<Declared>,
    /// Event types sent (`sends(..)`).
    pub(crate) sends: Vec<Declared>,
    /// Event types received (`receives(..)`).
    pub(crate) receives: Vec<Declared>,
    pub(crate) after: Vec<syn::Path>,
    pub(crate) every_ticks: Option<syn::LitInt>,
    /// Run conditions (`run_if(..)`), all of which must hold: expressions of `IntoRunIf`.
    pub(crate) run_if: Vec<syn::Expr>,
    /// The function's parameters, in order.
    pub(crate) params: Vec<Param>,
    /// Receivers (`self`) found, rejected by validation.
    pub(crate) receivers: Vec<Span>,
}

pub(crate) fn parse(kind: Kind, attr: TokenStream, item: TokenStream) -> syn::Result<Model> {
    let item: syn::ItemFn = syn::parse2(item)?;
    let mut errors = Vec::new();
    let mut model = Model {
        kind,
        item,
        reads: Vec::new(),
        writes: Vec::new(),
        defers: Vec::new(),
        sends: Vec::new(),
        receives: Vec::new(),
        after: Vec::new(),
        every_ticks: None,
        run_if: Vec::new(),
        params: Vec::new(),
        receivers: Vec::new(),
    };
    let attr_parser = |input: ParseStream<'_>| parse_attr(input, &mut model, &mut errors);
    if let Err(e) = attr_parser.parse2(attr) {
        errors.push(e);
    }
    let inputs: Vec<syn::FnArg> = model.item.sig.inputs.iter().cloned().collect();
    for input in inputs {
        match input {
            syn::FnArg::Receiver(r) => model.receivers.push(r.span()),
            syn::FnArg::Typed(pt) => model.params.push(param(*pt.pat, *pt.ty)),
        }
    }
    combine(errors)?;
    Ok(model)
}

fn parse_attr(
    input: ParseStream<'_>,
    model: &mut Model,
    errors: &mut Vec<syn::Error>,
) -> syn::Result<()> {
    let mut seen: Vec<(String, Span)> = Vec::new();
    while !input.is_empty() {
        let key: syn::Ident = input.parse()?;
        let name = key.to_string();
        if let Some((_, first)) = seen.iter().find(|(k, _)| *k == name) {
            let mut e = syn::Error::new(
                key.span(),
                format!("`{name}` is given twice; list everything in one `{name}(..)`"),
            );
            e.combine(syn::Error::new(*first, format!("first `{name}` here")));
            errors.push(e);
        }
        seen.push((name.clone(), key.span()));
        if model.kind == Kind::Condition && name != READS && KEYS.contains(&name.as_str()) {
            let condition = &model.item.sig.ident;
            errors.push(syn::Error::new(
                key.span(),
                format!(
                    "condition `{condition}` cannot declare `{name}`: a condition only reads, so its one key is `reads(..)`"
                ),
            ));
        }
        let is_list = matches!(
            name.as_str(),
            READS | WRITES | DEFERS | SENDS | RECEIVES | AFTER | RUN_IF
        );
        if input.peek(Token![=]) {
            let eq: Token![=] = input.parse()?;
            let value: syn::Expr = input.parse()?;
            if is_list {
                errors.push(syn::Error::new(
                    eq.span.join(value.span()).unwrap_or(eq.span),
                    format!(
                        "write `{name}(A, B)`, not `{name} = ..`: rota's attribute lists types in parentheses, e.g. `#[system(reads(Velocity), writes(Position))]`"
                    ),
                ));
            } else if name == EVERY_TICKS {
                match value {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(lit),
                        ..
                    }) => model.every_ticks = Some(lit),
                    other => errors.push(syn::Error::new_spanned(
                        other,
                        "`every_ticks` takes a whole number of ticks, e.g. `every_ticks = 4` (strides are whole ticks, never seconds)",
                    )),
                }
            } else {
                errors.push(unknown_key(&key, model.kind));
            }
        } else if input.peek(syn::token::Paren) {
            let content;
            syn::parenthesized!(content in input);
            match name.as_str() {
                READS | WRITES | DEFERS | SENDS | RECEIVES => {
                    match Punctuated::<Type, Token![,]>::parse_terminated(&content) {
                        Ok(types) => {
                            let list = match name.as_str() {
                                READS => &mut model.reads,
                                WRITES => &mut model.writes,
                                SENDS => &mut model.sends,
                                RECEIVES => &mut model.receives,
                                _ => &mut model.defers,
                            };
                            list.extend(types.into_iter().map(|ty| Declared { ty }));
                        }
                        Err(e) => errors.push(e),
                    }
                }
                AFTER => match Punctuated::<syn::Path, Token![,]>::parse_terminated(&content) {
                    Ok(paths) => model.after.extend(paths),
                    Err(e) => errors.push(e),
                },
                RUN_IF => match Punctuated::<syn::Expr, Token![,]>::parse_terminated(&content) {
                    Ok(conditions) => model.run_if.extend(conditions),
                    Err(e) => errors.push(e),
                },
                EVERY_TICKS => errors.push(syn::Error::new(
                    key.span(),
                    "write `every_ticks = N`, not `every_ticks(N)`",
                )),
                _ => {
                    let _: TokenStream = content.parse()?;
                    errors.push(unknown_key(&key, model.kind));
                }
            }
        } else {
            errors.push(if KEYS.contains(&name.as_str()) {
                syn::Error::new(
                    key.span(),
                    format!(
                        "`{name}` needs a value: see the `#[{}]` documentation",
                        model.kind.word()
                    ),
                )
            } else {
                unknown_key(&key, model.kind)
            });
        }
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    Ok(())
}

fn unknown_key(key: &syn::Ident, kind: Kind) -> syn::Error {
    let message = match kind {
        Kind::System => format!(
            "unknown key `{key}` in `#[system(..)]`; valid keys are `reads(..)`, `writes(..)`, `defers(..)`, `sends(..)`, `receives(..)`, `after(..)`, `run_if(..)` and `every_ticks = N`"
        ),
        Kind::Condition => {
            format!("unknown key `{key}` in `#[condition(..)]`; its one key is `reads(..)`")
        }
    };
    syn::Error::new(key.span(), message)
}

fn param(pat: syn::Pat, ty: Type) -> Param {
    let name = match &pat {
        syn::Pat::Ident(i) => i.ident.to_string(),
        _ => "_".to_string(),
    };
    Param { pat, ty, name }
}
