//! Workload 6, producer/consumer: [`Handoff`], how each contender hands a
//! value from a producer thread to a consumer thread, and
//! [`Contenders::pipe`](super::contenders::Contenders::pipe), the worker
//! bodies written once over it; and the workload's message.

use super::contenders::{
    Contenders, Guarded, Item, Kind, ObjectPool, Plain, ShardedSlab, ThreadLocal,
};
use super::workers::{Body, share};
use poolable::Reset;
use std::hint::black_box;
use std::sync::mpsc::sync_channel;

/// Bound of the producer/consumer channels.
pub const CHANNEL_BOUND: usize = 16;

/// How one contender hands a value from a producer to a consumer on another
/// thread. The bodies ([`pipe_bodies`]) are generic over this trait, so each
/// contender's loops are compiled for its own type, with no `dyn` call in
/// them.
pub trait Handoff<T>: Sync {
    /// What the producer sends: the value, its guard, or a key to it.
    type Sent<'a>: Send
    where
        Self: 'a;

    /// The producer's half of an op: take a value and let `fill` write it.
    fn produce(&self, fill: impl FnOnce(&mut T)) -> Self::Sent<'_>;

    /// The consumer's half: let `read` see the value, then give it back.
    fn consume(&self, sent: Self::Sent<'_>, read: impl FnOnce(&T));
}

impl<T: Item> Contenders<T> {
    /// Producer/consumer, as worker bodies for
    /// [`with_workers`](super::workers::with_workers): `pairs` producers each
    /// take values, `fill` them and send them through their own bounded
    /// channel to a consumer that `read`s and drops them. Bodies come in
    /// pairs (producer, consumer); a run of `total` messages splits them over
    /// the pairs. The channels live as long as the bodies.
    pub fn pipe<'a, F, R>(
        &'a self,
        kind: Kind,
        pairs: usize,
        fill: &'a F,
        read: &'a R,
    ) -> Vec<Body<'a>>
    where
        F: Fn(&mut T, u64) + Sync,
        R: Fn(&T) + Sync,
    {
        with_contender!(self, kind, |c| pipe_bodies(
            pairs,
            move |i| c.produce(|v| fill(v, i)),
            move |sent| c.consume(sent, read),
        ))
    }
}

/// The producer and consumer bodies of `pairs` channels.
fn pipe_bodies<'a, G: Send + 'a>(
    pairs: usize,
    make: impl Fn(u64) -> G + Send + Copy + 'a,
    consume: impl Fn(G) + Send + Copy + 'a,
) -> Vec<Body<'a>> {
    let pairs = pairs.max(1);
    let mut bodies: Vec<Body<'a>> = Vec::with_capacity(2 * pairs);
    for pair in 0..pairs {
        let (tx, rx) = sync_channel::<G>(CHANNEL_BOUND);
        bodies.push(Box::new(move |total| {
            for i in 0..share(total, pairs, pair) {
                tx.send(make(i)).expect("consumer gone");
            }
        }));
        bodies.push(Box::new(move |total| {
            for _ in 0..share(total, pairs, pair) {
                consume(rx.recv().expect("producer gone"));
            }
        }));
    }
    bodies
}

// ---------------------------------------------------------- the message

const MESSAGE_LEN: usize = 256;

/// What a message is made of.
static PAYLOAD: [u8; MESSAGE_LEN] = [b'x'; MESSAGE_LEN];

/// 6, producer side: write a 256-byte message.
#[inline(never)]
pub fn message(v: &mut Vec<u8>, i: u64) {
    v.extend_from_slice(&PAYLOAD);
    v[0] = i as u8;
}

/// 6, consumer side: read the message.
#[inline(never)]
pub fn consume(v: &[u8]) {
    black_box(v.len() + usize::from(v[0]));
}

// ------------------------------------------------------ the contenders

/// poolable and the peers that hand out a guard: the producer sends the
/// guard, and its drop on the consumer's thread gives the value back.
impl<G: Guarded + Sync> Handoff<G::Value> for G {
    type Sent<'a>
        = G::Guard<'a>
    where
        G: 'a;

    #[inline]
    fn produce(&self, fill: impl FnOnce(&mut G::Value)) -> Self::Sent<'_> {
        let mut v = self.take();
        fill(&mut v);
        v
    }

    #[inline]
    fn consume(&self, v: Self::Sent<'_>, read: impl FnOnce(&G::Value)) {
        read(&v);
    }
}

impl<T: Item> Handoff<T> for Plain<T> {
    type Sent<'a> = T;

    #[inline]
    fn produce(&self, fill: impl FnOnce(&mut T)) -> T {
        let mut v = (self.new)();
        fill(&mut v);
        v
    }

    #[inline]
    fn consume(&self, v: T, read: impl FnOnce(&T)) {
        read(&v);
    }
}

/// The value returns to the consumer's slot, so the producer's is always
/// empty: the row shows what that costs.
impl<T: Item> Handoff<T> for ThreadLocal<T> {
    type Sent<'a> = Box<T>;

    #[inline]
    fn produce(&self, fill: impl FnOnce(&mut T)) -> Box<T> {
        let mut v = self.take();
        fill(&mut v);
        v
    }

    #[inline]
    fn consume(&self, v: Box<T>, read: impl FnOnce(&T)) {
        read(&v);
        self.put(v);
    }
}

impl<T: Item> Handoff<T> for ObjectPool<T> {
    type Sent<'a> = object_pool::Reusable<'a, T>;

    #[inline]
    fn produce(&self, fill: impl FnOnce(&mut T)) -> Self::Sent<'_> {
        let mut v = self.pool.pull(self.new);
        fill(&mut v);
        v
    }

    #[inline]
    fn consume(&self, mut v: Self::Sent<'_>, read: impl FnOnce(&T)) {
        read(&v);
        Reset::reset(&mut *v);
    }
}

/// The producer sends the key, and the consumer looks the value up.
impl<T: Item> Handoff<T> for ShardedSlab<T> {
    type Sent<'a> = usize;

    #[inline]
    fn produce(&self, fill: impl FnOnce(&mut T)) -> usize {
        let mut v = self.pool.create().expect("sharded-slab shard full");
        fill(&mut v);
        v.key()
    }

    #[inline]
    fn consume(&self, key: usize, read: impl FnOnce(&T)) {
        read(&self.pool.get(key).expect("sharded-slab key vanished"));
        self.pool.clear(key);
    }
}
