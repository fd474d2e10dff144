//! Structured logs (tracing) and the Prometheus recorder.

use std::io::IsTerminal;
use std::sync::OnceLock;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

/// Installs the global log subscriber, writing to stderr so stdout stays for command output.
/// Calling it twice is harmless (the first call wins).
pub fn init_tracing(format: LogFormat, filter: &str) {
    let filter = EnvFilter::try_new(filter).unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    let _ = match format {
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .try_init(),
        LogFormat::Text => builder.try_init(),
    };
}

/// The process-wide Prometheus recorder (installed once; every app in a test process shares it).
#[allow(
    clippy::expect_used,
    reason = "the bucket list is a constant, not empty"
)]
pub fn metrics_handle() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let builder = PrometheusBuilder::new()
                .set_buckets_for_metric(
                    Matcher::Suffix("_seconds".into()),
                    &[
                        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
                        5.0, 10.0,
                    ],
                )
                .expect("static bucket list is not empty");
            let recorder = builder.build_recorder();
            let handle = recorder.handle();
            // In a test process another recorder may already be set; rendering our handle then
            // simply shows nothing, which only affects that process's /metrics test.
            let _ = metrics::set_global_recorder(recorder);
            handle
        })
        .clone()
}

/// Drains histogram samples into their buckets every few seconds; without it a process that is
/// never scraped would keep every sample in memory.
pub async fn upkeep(handle: PrometheusHandle, stop: tokio_util::sync::CancellationToken) {
    loop {
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = tokio::time::sleep(std::time::Duration::from_secs(5)) => handle.run_upkeep(),
        }
    }
}
