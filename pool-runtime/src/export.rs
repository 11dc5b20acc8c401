//! [`export_metrics`]: every pool's [`Stats`] through the
//! [`metrics`](https://docs.rs/metrics) facade (feature `metrics`), so any
//! exporter (Prometheus, StatsD, ...) can publish them. Pull-based: nothing
//! is recorded on the pools' own paths, only when this is called.

use std::collections::BTreeMap;

use crate::registry::live_and_dropped;
use crate::stats::Stats;

/// Record every pool's counters and gauges (see [`pools`](crate::pools))
/// on the installed `metrics` recorder, labelled `pool = <name>`. Call it
/// before each scrape, or from a timer; a pool's operations never touch the
/// recorder.
///
/// Pools that share a name are one series, their figures summed: a label
/// names one series, and two pools of one type keep the same default name
/// (`type_name`), as every `BufferPool` does unless named. Give pools
/// their own [`name`](crate::Pool::name)s to see them apart.
///
/// A dropped pool's counts stay in its name's series, so that a counter
/// never goes down: the pools of the name that live on, and any made under
/// it later, count on from them. (Summed over the live pools only, a
/// series would fall when one of them is dropped, and a recorder, which
/// keeps a counter's largest value, would lose every count until the
/// series was back up.) For this the export keeps one [`Stats`] for each
/// name of a dropped pool, for as long as the process runs: name pools
/// from a bounded set, as any label's values should be. The gauges count
/// the live pools only: a name whose pools are all dropped reads 0.
///
/// | metric | kind | from |
/// | --- | --- | --- |
/// | `poolable_gets_total` | counter | `gets` |
/// | `poolable_misses_total` | counter | `misses` |
/// | `poolable_puts_total` | counter | `puts` |
/// | `poolable_dropped_total{reason}` | counter | `dropped_oversize`, `dropped_full`, `dropped_panic`, `dropped_idle` (`reason` = `oversize`, `full`, `panic`, `idle`) |
/// | `poolable_detached_total` | counter | `detached` |
/// | `poolable_prefilled_total` | counter | `prefilled` |
/// | `poolable_drop_panics_total` | counter | `drop_panics` |
/// | `poolable_shrunk_total` | counter | `shrunk` |
/// | `poolable_external_total` | counter | `external` |
/// | `poolable_retained` | gauge | `retained` |
/// | `poolable_retained_bytes` | gauge | `retained_bytes` |
/// | `poolable_held` | gauge | [`Stats::held`]; for a `BufferPool` class, net (see below) |
///
/// A buffer goes back to the `BufferPool` class its capacity fits, which is
/// not the one it came from if it grew (and a detached one is counted on
/// the last class), so a class's `poolable_held` is net: the buffers it
/// handed out less those that came back to it, below 0 for a class that
/// buffers grow into. A `BufferPool`'s classes add up to the buffers out of
/// it (`sum(poolable_held{pool=~"name\\[.*"})`).
///
/// ```
/// use poolable::Pool;
///
/// static UPLOADS: Pool<Vec<u8>> = Pool::new().name("uploads");
/// drop(UPLOADS.get());
/// poolable::export_metrics(); // no recorder installed: a no-op
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
pub fn export_metrics() {
    let (live, dropped) = live_and_dropped();
    let mut by_name: BTreeMap<&str, Series> = BTreeMap::new();
    for (name, counted) in &dropped {
        by_name.entry(name).or_default().counted.add(counted);
    }
    for pool in &live {
        let core = pool.core();
        let stats = core.stats();
        let series = by_name.entry(&core.name).or_default();
        series.counted.add(&stats);
        series.live.add(&stats);
        series.class |= core.class.is_some();
    }
    // The recorder is user code: no lock of the pools is held here.
    for (name, series) in &by_name {
        record(name, series);
    }
}

/// What one series (a name) records.
#[derive(Default)]
struct Series {
    /// Its counters: the live pools' and what the dropped ones counted.
    counted: Stats,
    /// The live pools' figures, for the gauges: 0 once every pool of the
    /// name is dropped.
    live: Stats,
    /// Whether it is a `BufferPool` class, whose held figure is net.
    class: bool,
}

fn record(name: &str, series: &Series) {
    let stats = &series.counted;
    let counters = [
        ("poolable_gets_total", None, stats.gets),
        ("poolable_misses_total", None, stats.misses),
        ("poolable_puts_total", None, stats.puts),
        (
            "poolable_dropped_total",
            Some("oversize"),
            stats.dropped_oversize,
        ),
        ("poolable_dropped_total", Some("full"), stats.dropped_full),
        ("poolable_dropped_total", Some("panic"), stats.dropped_panic),
        ("poolable_dropped_total", Some("idle"), stats.dropped_idle),
        ("poolable_detached_total", None, stats.detached),
        ("poolable_prefilled_total", None, stats.prefilled),
        ("poolable_drop_panics_total", None, stats.drop_panics),
        ("poolable_shrunk_total", None, stats.shrunk),
        ("poolable_external_total", None, stats.external),
    ];
    for (metric, reason, value) in counters {
        let pool = name.to_owned();
        match reason {
            Some(reason) => metrics::counter!(metric, "pool" => pool, "reason" => reason),
            None => metrics::counter!(metric, "pool" => pool),
        }
        .absolute(value);
    }
    let stats = &series.live;
    let held = if series.class {
        stats.signed_held() as f64
    } else {
        stats.held() as f64
    };
    let gauges = [
        ("poolable_retained", stats.retained as f64),
        ("poolable_retained_bytes", stats.retained_bytes as f64),
        ("poolable_held", held),
    ];
    for (metric, value) in gauges {
        metrics::gauge!(metric, "pool" => name.to_owned()).set(value);
    }
}

#[cfg(test)]
mod tests {
    use crate::Pool;
    use metrics_util::debugging::{DebugValue, DebuggingRecorder};

    /// The value of `metric` for `pool` (and `reason`, if given).
    fn value(
        snapshot: &[(metrics_util::CompositeKey, DebugValue)],
        metric: &str,
        pool: &str,
        reason: Option<&str>,
    ) -> Option<f64> {
        snapshot.iter().find_map(|(key, value)| {
            let key = key.key();
            let labels: Vec<_> = key.labels().map(|l| (l.key(), l.value())).collect();
            let matches = key.name() == metric
                && labels.contains(&("pool", pool))
                && reason.is_none_or(|r| labels.contains(&("reason", r)));
            matches.then(|| match value {
                DebugValue::Counter(n) => *n as f64,
                DebugValue::Gauge(g) => g.into_inner(),
                DebugValue::Histogram(_) => f64::NAN,
            })
        })
    }

    /// Export into a fresh recorder; the snapshot as (key, value) pairs.
    fn exported() -> Vec<(metrics_util::CompositeKey, DebugValue)> {
        let recorder = DebuggingRecorder::new();
        metrics::with_local_recorder(&recorder, super::export_metrics);
        snapshot_of(&recorder)
    }

    /// The snapshot of `recorder` as (key, value) pairs.
    fn snapshot_of(recorder: &DebuggingRecorder) -> Vec<(metrics_util::CompositeKey, DebugValue)> {
        recorder
            .snapshotter()
            .snapshot()
            .into_vec()
            .into_iter()
            .map(|(key, _, _, value)| (key, value))
            .collect()
    }

    /// A pool dropped while another of its name lives on keeps its counts
    /// in the name's series, and so does one made again under the name:
    /// a counter never goes down, and the gets after the drop are counted.
    /// The series summed the live pools only, so it fell from 11 to 6 at
    /// the drop; a recorder keeps a counter's largest value (`absolute`
    /// sets it to at least the value), so the 5 gets after the drop were
    /// lost (11 read, 16 expected), and a pool made again under the name
    /// counted from 0.
    #[test]
    fn a_dropped_pool_keeps_its_counts_in_its_names_series() {
        let recorder = DebuggingRecorder::new();
        let export = || metrics::with_local_recorder(&recorder, super::export_metrics);
        let name = "export-test-dropped";
        let gets = |recorder: &DebuggingRecorder| {
            value(&snapshot_of(recorder), "poolable_gets_total", name, None)
        };
        let stays = Pool::<Vec<u16>>::new().name(name);
        let goes = Pool::<Vec<u16>>::new().name(name);
        for _ in 0..10 {
            drop(goes.get());
        }
        drop(stays.get());
        export();
        assert_eq!(gets(&recorder), Some(11.0));
        drop(goes);
        for _ in 0..5 {
            drop(stays.get());
        }
        export();
        assert_eq!(gets(&recorder), Some(16.0));
        drop(stays);
        let again = Pool::<Vec<u16>>::new().name(name);
        drop(again.get());
        export();
        assert_eq!(gets(&recorder), Some(17.0));
        let snapshot = snapshot_of(&recorder);
        let puts = value(&snapshot, "poolable_puts_total", name, None);
        assert_eq!(puts, Some(17.0));
    }

    /// Once every pool of a name is dropped, the name's gauges read 0:
    /// its values are gone. They were no longer recorded, so a recorder
    /// kept their last reading (1 retained value) for good.
    #[test]
    fn the_gauges_of_a_name_whose_pools_are_dropped_read_0() {
        // A trim of every pool (another test's) would drop the idle value.
        let _every_pool = crate::registry::tests::every_pool();
        let recorder = DebuggingRecorder::new();
        let export = || metrics::with_local_recorder(&recorder, super::export_metrics);
        let name = "export-test-gone";
        let gauges = |recorder: &DebuggingRecorder| {
            let snapshot = snapshot_of(recorder);
            [
                "poolable_retained",
                "poolable_retained_bytes",
                "poolable_held",
            ]
            .map(|metric| value(&snapshot, metric, name, None))
        };
        let pool = Pool::<String>::new().name(name);
        let held = pool.get();
        pool.put(String::with_capacity(100));
        export();
        assert_eq!(
            gauges(&recorder),
            [
                Some(1.0),
                Some((100 + size_of::<String>()) as f64),
                Some(1.0)
            ]
        );
        drop(held);
        drop(pool);
        export();
        assert_eq!(gauges(&recorder), [Some(0.0); 3]);
    }

    /// A `BufferPool`'s classes' `poolable_held` add up to the buffers out
    /// of it. A buffer goes back to the class its capacity fits, which is
    /// not the one it came from if it grew, and a detached one is counted
    /// on the last class: a class's figure is what it handed out less what
    /// came back to it. Each class exported `Stats::held`, which stops at
    /// 0, so the class the buffers came from counted them held for good
    /// (the classes added up to 12 with one buffer out).
    #[test]
    fn a_buffer_pools_classes_held_add_up_to_the_buffers_out() {
        static BUFS: crate::BufferPool = crate::BufferPool::new().name("export-test-buffers");
        let out = BUFS.get(100);
        for _ in 0..10 {
            let mut grows = BUFS.get(100);
            grows.reserve(10_000); // back to a larger class
        }
        let detached = crate::guard::PoolGuard::into_inner(BUFS.get(100));
        let snapshot = exported();
        let held: f64 = snapshot
            .iter()
            .filter(|(key, _)| {
                let key = key.key();
                key.name() == "poolable_held"
                    && key
                        .labels()
                        .any(|l| l.key() == "pool" && l.value().starts_with("export-test-buffers["))
            })
            .map(|(_, value)| match value {
                DebugValue::Gauge(g) => g.into_inner(),
                _ => f64::NAN,
            })
            .sum();
        assert_eq!(held, 1.0);
        drop((out, detached));
    }

    #[test]
    fn pools_that_share_a_name_are_exported_summed() {
        // A trim of every pool (another test's) would drop the idle value.
        let _every_pool = crate::registry::tests::every_pool();
        // Two pools of one type under one name (as the default name,
        // `type_name`, would be): one series, their figures added.
        static MANY: Pool<Vec<u16>> = Pool::new().name("export-test-shared");
        static ONE: Pool<Vec<u16>> = Pool::new().name("export-test-shared");
        for _ in 0..10 {
            drop(MANY.get());
        }
        let held = ONE.get();
        let snapshot = exported();
        let shared = "export-test-shared";
        assert_eq!(
            value(&snapshot, "poolable_gets_total", shared, None),
            Some(11.0)
        );
        assert_eq!(
            value(&snapshot, "poolable_retained", shared, None),
            Some(1.0)
        );
        assert_eq!(value(&snapshot, "poolable_held", shared, None), Some(1.0));
        drop(held);
    }

    #[test]
    fn every_pool_is_exported_with_its_name_and_stats() {
        static SCRATCH: Pool<Vec<u8>> = Pool::new().name("export-test-scratch").max_bytes(1024);
        let held = SCRATCH.get();
        drop(SCRATCH.get());
        let mut big = SCRATCH.get();
        big.reserve(4096);
        drop(big); // over the cap
        let heap = Pool::<String>::new().name("export-test-heap");
        drop(heap.get());

        let snapshot = exported();
        let scratch = "export-test-scratch";
        assert_eq!(
            value(&snapshot, "poolable_gets_total", scratch, None),
            Some(3.0)
        );
        assert_eq!(
            value(&snapshot, "poolable_misses_total", scratch, None),
            Some(2.0)
        );
        assert_eq!(
            value(
                &snapshot,
                "poolable_dropped_total",
                scratch,
                Some("oversize")
            ),
            Some(1.0)
        );
        assert_eq!(
            value(&snapshot, "poolable_retained", scratch, None),
            Some(0.0)
        );
        assert_eq!(value(&snapshot, "poolable_held", scratch, None), Some(1.0));
        assert_eq!(
            value(&snapshot, "poolable_gets_total", "export-test-heap", None),
            Some(1.0)
        );
        drop(held);
    }
}
