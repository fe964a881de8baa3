//! `--trace`: rota-schedule's `tracing` spans (the `trace` feature) written as a Chrome trace.

use std::path::Path;

use tracing_chrome::{ChromeLayerBuilder, FlushGuard};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Sends every span of the process to a Chrome trace at `path`; the file is complete when the
/// returned guard is dropped.
pub fn install(path: &Path) -> Result<FlushGuard, String> {
    let (layer, guard) = ChromeLayerBuilder::new()
        .file(path)
        .include_args(true)
        .build();
    tracing_subscriber::registry()
        .with(layer)
        .try_init()
        .map_err(|e| format!("could not start the trace: {e}"))?;
    Ok(guard)
}
