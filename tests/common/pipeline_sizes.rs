//! The request sizes of the buffer pipeline, shared by
//! `benches/rss_pipeline.rs` and `tests/working_set.rs` so that both run
//! the same sequence.

/// `messages` sizes, uniform in `min..=max`, from a fixed seed
/// (xorshift64*): the same in every run.
pub fn sizes(messages: usize, min: usize, max: usize) -> impl Iterator<Item = usize> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..messages).map(move |_| {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let r = state.wrapping_mul(0x2545_F491_4F6C_DD1D);
        min + (r % (max - min + 1) as u64) as usize
    })
}
