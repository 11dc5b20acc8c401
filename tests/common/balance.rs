//! The stats identity, checked with the public `Stats::is_balanced` rather
//! than written out again in each test.

use poolable::Stats;

/// Every value the pool created or was given is retained, held, or counted
/// where it was dropped or detached (`Stats::is_balanced`); `held` values
/// are still out in guards, and `external` values were given to `put` from
/// outside the pool.
#[track_caller]
pub fn assert_balanced(stats: Stats, held: u64, external: u64) {
    assert_eq!(stats.held(), held, "values held: {stats}");
    assert_eq!(stats.external, external, "external puts: {stats}");
    assert!(stats.is_balanced(), "unbalanced: {stats}");
}
