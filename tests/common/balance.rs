//! The stats identity, checked with the public `Stats::is_balanced` rather
//! than written out again in each test.

use poolable::Stats;

/// Every value the pool created or was given is retained, held, or counted
/// where it was dropped or detached (`Stats::is_balanced`); `held` values
/// are still out in guards, and `external` values were given to `put` from
/// outside the pool.
///
/// `Stats::held()` stops at 0, so it cannot show a pool that counted more
/// returns than it handed out; the signed count below can.
#[track_caller]
pub fn assert_balanced(stats: Stats, held: u64, external: u64) {
    let out = i128::from(stats.gets)
        - (i128::from(stats.puts) - i128::from(stats.external))
        - i128::from(stats.detached)
        - i128::from(stats.dropped_panic);
    assert_eq!(
        out,
        i128::from(held),
        "values held (gets - returns): {stats}"
    );
    assert_eq!(stats.held(), held, "values held: {stats}");
    assert_eq!(stats.external, external, "external puts: {stats}");
    assert!(stats.is_balanced(), "unbalanced: {stats}");
}
