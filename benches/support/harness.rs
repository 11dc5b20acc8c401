//! The suite's criterion settings, for every criterion bench.

use std::time::Duration;

/// Criterion settings of the suite (see `benches/RESULTS.md`). They are set on
/// the `Criterion` value rather than on each group so that the command-line
/// flags (`-- --warm-up-time 0.2 --measurement-time 0.5`) still override them
/// for a quick run.
pub const WARM_UP: Duration = Duration::from_millis(500);
pub const MEASUREMENT: Duration = Duration::from_millis(1500);
pub const SAMPLES: usize = 20;
pub const RESAMPLES: usize = 10_000;

/// The suite's `Criterion` configuration.
pub fn criterion() -> criterion::Criterion {
    criterion::Criterion::default()
        .without_plots()
        .warm_up_time(WARM_UP)
        .measurement_time(MEASUREMENT)
        .sample_size(SAMPLES)
        .nresamples(RESAMPLES)
}
