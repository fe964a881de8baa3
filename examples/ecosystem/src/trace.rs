//! `--trace`: rota-schedule's `tracing` spans (the `trace` feature) written as a Chrome trace,
//! each system's slice named after the system.

use std::path::Path;

use tracing::Subscriber;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing_chrome::{ChromeLayerBuilder, EventOrSpan, FlushGuard};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;

/// Sends every span of the process to a Chrome trace at `path`; the file is complete when the
/// returned guard is dropped.
pub fn install(path: &Path) -> Result<FlushGuard, String> {
    let (chrome, guard) = ChromeLayerBuilder::new()
        .file(path)
        .include_args(true)
        .name_fn(Box::new(|event_or_span| match event_or_span {
            EventOrSpan::Event(event) => event.metadata().name().into(),
            EventOrSpan::Span(span) => match span.extensions().get::<SystemName>() {
                Some(SystemName(name)) => name.clone(),
                None => span.name().into(),
            },
        }))
        .build();
    tracing_subscriber::registry()
        .with(SystemNames)
        .with(chrome)
        .try_init()
        .map_err(|e| format!("could not start the trace: {e}"))?;
    Ok(guard)
}

/// The `system` field of a `rota.system` span, kept so the trace can name the slice after it.
struct SystemName(String);

/// Records [`SystemName`] on every span that has a `system` field.
struct SystemNames;

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for SystemNames {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut visitor = SystemField(None);
        attrs.record(&mut visitor);
        if let (Some(name), Some(span)) = (visitor.0, ctx.span(id)) {
            span.extensions_mut().insert(SystemName(name));
        }
    }
}

struct SystemField(Option<String>);

impl Visit for SystemField {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "system" {
            self.0 = Some(value.to_owned());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "system" {
            self.0 = Some(format!("{value:?}"));
        }
    }
}
