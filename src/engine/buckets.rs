//! The calls waiting for each tick, in blocks that move from tick to tick.
//!
//! A tick's calls are a list of blocks of at most [`BLOCK`] calls, all full but the last.
//! When a tick is read, each block goes back to a shared pool as soon as its calls are
//! handled, and the retries that the tick sends to later ticks are written into those
//! same blocks. So a run holds about one copy of its pending calls, however they move:
//! with one growing list per tick, a crowd that retries together sat in memory twice
//! (the tick being read and the tick its retries go to), plus the slack of doubling.
//!
//! A fresh block starts small and grows by doubling up to [`BLOCK`], so that ticks with
//! a handful of calls each cost little.
//!
//! A block's vector never shrinks: its length is the places made for it (whatever its
//! allocation), at least the calls it holds. The bucket's count says how many of its
//! places hold calls, and the rest hold copies of calls (stale, never read).
//! So appending a call is a store at an index within the vector, and only a full block
//! takes the way out of line that grows it or starts the next one; the vector's own
//! `push`, whose growth check the browser's module (built for size) leaves as a call,
//! is never called for a call.

use crate::engine::rng::Pcg64;
use rand::distr::uniform::{SampleUniform, UniformSampler};

/// A uniform draw in `lo..hi`, the very draw of `rng.random_range(lo..hi)`, but always
/// inlined: the shuffles' loops draw once per swap, and a call per draw, which the
/// compiler may leave there as the code around it changes (the browser's module, built
/// for size, did), costs a twentieth of a run.
#[inline(always)]
fn draw(rng: &mut Pcg64, lo: usize, hi: usize) -> usize {
    debug_assert!(lo < hi, "an empty range");
    // rand's sampler of `usize` draws a range whose end fits 32 bits as `u32`, the
    // same on every machine; a wider one by its own sampler.
    if hi > u32::MAX as usize {
        return <usize as SampleUniform>::Sampler::sample_single(lo, hi, rng).unwrap_or(lo);
    }
    draw_inclusive(rng, lo, hi - 1)
}

/// A uniform draw in `lo..=hi`, as `rng.random_range(lo..=hi)` draws it (see [`draw`]):
/// for a range within 32 bits, rand's `UniformInt::<u32>::sample_single_inclusive`
/// (Canon's method, biased by at most one in 2⁹⁶: one draw of 32 bits scaled by the
/// range, and a second one only when the first's low half could carry), written out
/// here; `the_shuffles_draws_are_random_range_s` holds it to rand's.
#[inline(always)]
fn draw_inclusive(rng: &mut Pcg64, lo: usize, hi: usize) -> usize {
    if hi > u32::MAX as usize {
        return <usize as SampleUniform>::Sampler::sample_single_inclusive(lo, hi, rng)
            .unwrap_or(lo);
    }
    let (lo, hi) = (lo as u32, hi as u32);
    let range = hi.wrapping_sub(lo).wrapping_add(1);
    if range == 0 {
        return rng.word32() as usize;
    }
    let wide = u64::from(rng.word32()) * u64::from(range);
    let (mut result, low_order) = ((wide >> 32) as u32, wide as u32);
    if low_order > range.wrapping_neg() {
        let next_high = ((u64::from(rng.word32()) * u64::from(range)) >> 32) as u32;
        result += u32::from(low_order.checked_add(next_high).is_none());
    }
    lo.wrapping_add(result) as usize
}

/// log2 of [`BLOCK`].
const SHIFT: u32 = 12;
/// The most calls in one block.
pub const BLOCK: usize = 1 << SHIFT;
/// An index within a block.
const MASK: usize = BLOCK - 1;

/// The length of a block that a tick starts (it doubles up to [`BLOCK`] as it fills).
const FIRST_BLOCK: usize = 16;

/// One tick's calls: blocks, all full but the last; `len` counts the calls, the last
/// block's places past them are stale (see the module's note).
#[derive(Debug)]
pub struct Bucket<C> {
    blocks: Vec<Vec<C>>,
    len: usize,
}

impl<C> Default for Bucket<C> {
    fn default() -> Bucket<C> {
        Bucket {
            blocks: Vec::new(),
            len: 0,
        }
    }
}

impl<C: Copy> Bucket<C> {
    /// How many calls it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The call at `i`.
    #[inline(always)]
    pub fn get(&self, i: usize) -> C {
        self.blocks[i >> SHIFT][i & MASK]
    }

    /// Every call, front to back.
    pub fn iter(&self) -> impl Iterator<Item = &C> {
        self.blocks.iter().flatten().take(self.len)
    }

    /// The first `n` calls, as slices of its blocks, front to back: a loop over each
    /// slice is as tight as over one vector.
    pub fn front(&self, n: usize) -> impl Iterator<Item = &[C]> {
        let mut left = n;
        self.blocks.iter().map_while(move |block| {
            if left == 0 {
                return None;
            }
            let k = left.min(block.len());
            left -= k;
            Some(&block[..k])
        })
    }

    /// Swaps the calls at `i` and `j`.
    #[inline(always)]
    fn swap(&mut self, i: usize, j: usize) {
        // Two reads and two writes, in or across blocks (a slice's `swap` was a call in
        // the browser's module).
        let (a, b) = (self.get(i), self.get(j));
        self.set(i, b);
        self.set(j, a);
    }

    /// Moves a uniformly random choice of `served` of the first `admitted` calls to the
    /// front (a partial Fisher–Yates shuffle over the smaller of the two groups).
    pub fn choose_served(&mut self, admitted: usize, served: usize, rng: &mut Pcg64) {
        self.choose_in(0, admitted, served, rng);
    }

    /// Moves a uniformly random choice of `chosen` of the calls in `[lo, hi)` to the
    /// front of that range: the shuffle of [`Bucket::choose_served`] over the range, its
    /// indices offset by `lo`.
    ///
    /// The partners of the swaps are drawn a batch at a time and read before any of the
    /// batch is swapped: in a large tick each is a cache miss, and reads that do not wait
    /// for each other overlap. The draws and the swaps are those of the plain shuffle, in
    /// its order.
    pub fn choose_in(&mut self, lo: usize, hi: usize, chosen: usize, rng: &mut Pcg64) {
        const BATCH: usize = 16;
        let n = hi;
        let served = lo + chosen;
        if chosen == 0 || served == n {
            return;
        }
        let mut partners = [0usize; BATCH];
        if chosen <= n - served {
            for first in (lo..served).step_by(BATCH) {
                let batch = (served - first).min(BATCH);
                for (b, j) in partners[..batch].iter_mut().enumerate() {
                    *j = draw(rng, first + b, n);
                }
                self.touch(&partners[..batch]);
                for (b, &j) in partners[..batch].iter().enumerate() {
                    self.swap(first + b, j);
                }
            }
        } else {
            for last in (served..n).rev().step_by(BATCH) {
                let batch = (last + 1 - served).min(BATCH);
                for (b, j) in partners[..batch].iter_mut().enumerate() {
                    *j = draw_inclusive(rng, lo, last - b);
                }
                self.touch(&partners[..batch]);
                for (b, &j) in partners[..batch].iter().enumerate() {
                    self.swap(last - b, j);
                }
            }
        }
    }

    /// Reorders the front of the bucket: afterwards the call at `i` is the one that was
    /// at the place in the low 32 bits of `order[i]` (see [`by_arrival`]); `buffer`
    /// holds the calls on the way, kept from tick to tick.
    pub fn permute(&mut self, order: &[u64], buffer: &mut Vec<C>) {
        self.permute_with(order, buffer, |_, _| {});
    }

    /// [`Bucket::permute`], each call changed by `change` with its key on the way.
    pub fn permute_with(
        &mut self,
        order: &[u64],
        buffer: &mut Vec<C>,
        mut change: impl FnMut(&mut C, u64),
    ) {
        buffer.clear();
        buffer.extend(order.iter().map(|&k| {
            let mut call = self.get(k as u32 as usize);
            change(&mut call, k);
            call
        }));
        let mut i = 0;
        for block in &mut self.blocks {
            if i == buffer.len() {
                break;
            }
            let n = block.len().min(buffer.len() - i);
            block[..n].copy_from_slice(&buffer[i..i + n]);
            i += n;
        }
    }

    /// Moves the calls in `[0, n)` for which `keep` is false to the back of that range,
    /// keeping the order of each part; returns how many are kept.
    pub fn partition(&mut self, n: usize, mut keep: impl FnMut(usize) -> bool) -> usize {
        let mut out = Vec::new();
        let mut w = 0;
        for i in 0..n {
            let call = self.get(i);
            if keep(i) {
                self.set(w, call);
                w += 1;
            } else {
                out.push(call);
            }
        }
        for (i, call) in out.into_iter().enumerate() {
            self.set(w + i, call);
        }
        w
    }

    /// Writes `call` at `i`.
    #[inline(always)]
    pub fn set(&mut self, i: usize, call: C) {
        self.blocks[i >> SHIFT][i & MASK] = call;
    }

    /// Reads the calls at `indices`, so that they are in the cache for what follows.
    #[inline(always)]
    fn touch(&self, indices: &[usize]) {
        for &i in indices {
            std::hint::black_box(self.get(i));
        }
    }
}

/// The buckets of every tick of a run, with the pool of spare blocks.
#[derive(Debug)]
pub struct Buckets<C> {
    ticks: Vec<Bucket<C>>,
    spare: Spare<C>,
}

/// What ticks that were read leave for the ticks to come: their blocks, and their
/// lists of blocks (a tick's list would otherwise be allocated, grown and freed again
/// for every tick).
#[derive(Debug)]
struct Spare<C> {
    blocks: Vec<Vec<C>>,
    lists: Vec<Vec<Vec<C>>>,
}

impl<C: Copy> Buckets<C> {
    /// Empty buckets for `ticks` ticks.
    pub fn new(ticks: usize) -> Buckets<C> {
        Buckets {
            ticks: std::iter::repeat_with(Bucket::default)
                .take(ticks)
                .collect(),
            spare: Spare {
                blocks: Vec::new(),
                lists: Vec::new(),
            },
        }
    }

    /// Fills tick `k`, which must be empty, with `count` copies of `call`.
    pub fn fill(&mut self, k: usize, call: C, count: usize) {
        let bucket = &mut self.ticks[k];
        let mut left = count;
        while left > 0 {
            let n = left.min(BLOCK);
            bucket.blocks.push(vec![call; n]);
            left -= n;
        }
        bucket.len = count;
    }

    /// Appends `call` to tick `k`.
    #[cfg_attr(target_arch = "wasm32", inline(always))]
    #[cfg_attr(not(target_arch = "wasm32"), inline)]
    pub fn push(&mut self, k: usize, call: C) {
        push(&mut self.ticks[k], &mut self.spare, call);
    }

    /// Appends `call` to `bucket`, a tick taken out with [`Buckets::take`].
    #[cfg_attr(target_arch = "wasm32", inline(always))]
    #[cfg_attr(not(target_arch = "wasm32"), inline)]
    pub fn push_to(&mut self, bucket: &mut Bucket<C>, call: C) {
        push(bucket, &mut self.spare, call);
    }

    /// The first tick from `k` on that holds a call; the number of ticks if none does.
    pub fn next_busy(&self, k: usize) -> usize {
        (self.ticks[k..].iter())
            .position(|bucket| bucket.len > 0)
            .map_or(self.ticks.len(), |i| k + i)
    }

    /// Takes the calls of tick `k` out, leaving it empty.
    pub fn take(&mut self, k: usize) -> Bucket<C> {
        std::mem::take(&mut self.ticks[k])
    }

    /// Gives a block from [`Bucket::into_blocks`] or [`Bucket::drain_blocks`], whose
    /// calls are handled, back to the pool, where its places are all stale.
    pub fn recycle(&mut self, block: Vec<C>) {
        self.spare.blocks.push(block);
    }

    /// Gives a tick drained by [`Bucket::drain_blocks`] back to the pool: its list of
    /// blocks, for a tick to come.
    pub fn recycle_list(&mut self, bucket: Bucket<C>) {
        debug_assert!(bucket.blocks.is_empty(), "a tick with its calls");
        if bucket.blocks.capacity() > 0 {
            self.spare.lists.push(bucket.blocks);
        }
    }
}

impl<C> Bucket<C> {
    /// Its blocks, each with how many of its first places hold calls (the rest are
    /// stale), to be handled in order and given back with [`Buckets::recycle`].
    pub fn into_blocks(self) -> impl Iterator<Item = (Vec<C>, usize)> {
        self.blocks.into_iter().map(held(self.len))
    }

    /// [`Bucket::into_blocks`], leaving the tick empty with its list of blocks, to be
    /// given back with [`Buckets::recycle_list`].
    pub fn drain_blocks(&mut self) -> impl Iterator<Item = (Vec<C>, usize)> + '_ {
        let len = std::mem::take(&mut self.len);
        self.blocks.drain(..).map(held(len))
    }
}

/// Pairs each block of a tick of `len` calls with how many of its places hold calls.
fn held<C>(mut len: usize) -> impl FnMut(Vec<C>) -> (Vec<C>, usize) {
    move |block| {
        let held = len.min(block.len());
        len -= held;
        (block, held)
    }
}

/// Puts calls in order of arrival. Each key is a call's time shifted up by 32 bits, with
/// its place in the tick below (times are below an hour, 2³² µs; places below 2³²). The
/// keys are sorted (by time, then by place, so the sort is the same on every machine),
/// then each run of equal times, front to back, gets a Fisher–Yates shuffle from its
/// back: calls of equal times come in a uniformly random order, at one draw per call of
/// the run but its first. Out of line and not generic, so that the browser's module
/// carries it once.
///
/// The keys must come with their places in ascending order (as `(0..n)` makes them):
/// then a stable sort by time alone is the sort of the whole keys, which a radix sort
/// does in a few passes where the tick has many calls (`scratch` is its buffer).
#[inline(never)]
pub fn by_arrival(keys: &mut [u64], scratch: &mut Vec<u64>, rng: &mut Pcg64) {
    sort_by_time(keys, scratch);
    let n = keys.len();
    let mut lo = 0;
    while lo < n {
        let t = keys[lo] >> 32;
        let mut hi = lo + 1;
        while hi < n && keys[hi] >> 32 == t {
            hi += 1;
        }
        for i in (lo + 1..hi).rev() {
            keys.swap(i, draw_inclusive(rng, lo, i));
        }
        lo = hi;
    }
}

/// Below this many keys, a comparison sort is as quick as the radix sort.
const RADIX_FROM: usize = 256;

/// Bits of a digit of the radix sort.
const DIGIT: u32 = 11;

/// Sorts `keys`, whose low 32 bits ascend, by their high 32 bits (a time), stably: the
/// order of sorting the whole keys. Many keys are sorted by a least-significant-digit
/// radix sort of the times less the least, in digits of [`DIGIT`] bits, over as many
/// digits as the tick's span of times needs (two for a span of up to 4 s in µs).
fn sort_by_time(keys: &mut [u64], scratch: &mut Vec<u64>) {
    let n = keys.len();
    if n < RADIX_FROM {
        keys.sort_unstable();
        return;
    }
    // Calls that arrive in order (open-loop arrivals, most often) are sorted already.
    if keys.is_sorted() {
        return;
    }
    debug_assert!(keys.windows(2).all(|w| w[0] as u32 <= w[1] as u32));
    let (least, most) = (keys.iter()).fold((u64::MAX, 0), |(lo, hi), &k| {
        (lo.min(k >> 32), hi.max(k >> 32))
    });
    let bits = u64::BITS - (most - least).leading_zeros();
    if bits == 0 {
        return;
    }
    scratch.clear();
    scratch.resize(n, 0);
    let mask = (1u64 << DIGIT) - 1;
    let pass = |from: &[u64], to: &mut [u64], shift: u32| {
        let digit = |k: u64| (((k >> 32) - least) >> shift & mask) as usize;
        let mut at = [0usize; 1 << DIGIT];
        for &k in from {
            at[digit(k)] += 1;
        }
        let mut sum = 0;
        for slot in at.iter_mut() {
            (*slot, sum) = (sum, sum + *slot);
        }
        for &k in from {
            let d = digit(k);
            to[at[d]] = k;
            at[d] += 1;
        }
    };
    let mut shift = 0;
    let mut in_keys = true;
    while shift < bits {
        if in_keys {
            pass(keys, scratch, shift);
        } else {
            pass(scratch, keys, shift);
        }
        in_keys = !in_keys;
        shift += DIGIT;
    }
    if !in_keys {
        keys.copy_from_slice(scratch);
    }
}

/// Moves a uniformly random choice of `chosen` of `items` to their front: the shuffle
/// of [`Bucket::choose_in`] over a slice, with the same draws (a uniform draw in a
/// range depends only on its width), as the blocks must reproduce it.
pub fn choose_in_slice<T>(items: &mut [T], chosen: usize, rng: &mut Pcg64) {
    let n = items.len();
    let rest = n - chosen;
    if chosen == 0 || rest == 0 {
        return;
    }
    if chosen <= rest {
        for i in 0..chosen {
            let j = draw(rng, i, n);
            items.swap(i, j);
        }
    } else {
        for i in (chosen..n).rev() {
            let j = draw_inclusive(rng, 0, i);
            items.swap(i, j);
        }
    }
}

/// Moves the last `n` of the first `len` keys to the front, each part keeping its order
/// (a rotation by three reversals: out of line, and small in the browser's module).
#[inline(never)]
pub fn last_to_front(keys: &mut [u64], len: usize, n: usize) {
    keys[..len].reverse();
    keys[..n].reverse();
    keys[n..len].reverse();
}

// Always inlined in the browser's module, which is built for size: a call per retry
// there cost a tenth of the open-loop crowd's time.
#[cfg_attr(target_arch = "wasm32", inline(always))]
#[cfg_attr(not(target_arch = "wasm32"), inline)]
fn push<C: Copy>(bucket: &mut Bucket<C>, spare: &mut Spare<C>, call: C) {
    let (b, i) = (bucket.len >> SHIFT, bucket.len & MASK);
    match bucket.blocks.get_mut(b).and_then(|block| block.get_mut(i)) {
        Some(place) => *place = call,
        None => make_room(bucket, spare, call),
    }
    bucket.len += 1;
}

/// Makes the place for the next call of `bucket` when its last block is full, writing
/// `call` there: the last block twice as long (up to [`BLOCK`]), or a block from the
/// pool (or a new one) after a last block of [`BLOCK`] calls or none. Every block is
/// filled to its new length (with copies of `call`), as the module's note says.
#[cold]
#[inline(never)]
fn make_room<C: Copy>(bucket: &mut Bucket<C>, spare: &mut Spare<C>, call: C) {
    let (b, i) = (bucket.len >> SHIFT, bucket.len & MASK);
    if let Some(last) = bucket.blocks.get_mut(b) {
        debug_assert_eq!(i, last.len());
        last.resize((2 * i).clamp(FIRST_BLOCK, BLOCK), call);
        last[i] = call;
        return;
    }
    debug_assert_eq!(i, 0);
    // A block from the pool is as long as it was when it held calls.
    if bucket.blocks.capacity() == 0
        && let Some(list) = spare.lists.pop()
    {
        bucket.blocks = list;
    }
    let mut block = spare.blocks.pop().unwrap_or_default();
    if block.is_empty() {
        block.resize(block.capacity().clamp(FIRST_BLOCK, BLOCK), call);
    }
    block[0] = call;
    bucket.blocks.push(block);
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn the_shuffles_draws_are_random_range_s() {
        // Every draw of the shuffles is the one `random_range` makes, on the same stream.
        for seed in 0..4 {
            let (mut a, mut b) = (Pcg64::seed_from_u64(seed), Pcg64::seed_from_u64(seed));
            let top = u32::MAX as usize;
            for (lo, hi) in [
                (0, 1),
                (0, 2),
                (3, 10),
                (0, 1 << 20),
                (1 << 20, (1 << 20) + 3),
                (5, 1 << 33),
                (0, usize::MAX),
                (0, top),
                (0, top + 1),
                (7, top),
                (top - 1, top),
                (top, top + 1),
                (top - 2, top + 2),
                (0, (1 << 31) + 1),
            ] {
                for _ in 0..2_000 {
                    assert_eq!(draw(&mut a, lo, hi), b.random_range(lo..hi));
                    assert_eq!(draw_inclusive(&mut a, lo, hi), b.random_range(lo..=hi));
                }
            }
        }
    }

    #[test]
    fn blocks_shuffle_as_one_slice_would() {
        for (n, served) in [
            (10_000, 3_000),
            (10_000, 9_000),
            (BLOCK + 1, 1),
            (BLOCK + 1, BLOCK),
            (5, 2),
            (40, 17),
            (40, 23),
        ] {
            let mut buckets = Buckets::new(2);
            for i in 0..n as u32 {
                buckets.push(1, i);
            }
            let mut bucket = buckets.take(1);
            assert_eq!(bucket.len(), n);
            let mut slice: Vec<u32> = (0..n as u32).collect();
            let mut a = Pcg64::seed_from_u64(5);
            let mut b = Pcg64::seed_from_u64(5);
            bucket.choose_served(n, served, &mut a);
            choose_in_slice(&mut slice, served, &mut b);
            assert_eq!(bucket.iter().copied().collect::<Vec<_>>(), slice);
            assert_eq!(bucket.front(served).flatten().count(), served);
        }
    }

    #[test]
    fn calls_arrive_in_order_of_time_and_only_ties_are_shuffled() {
        let mut buckets = Buckets::new(1);
        // Times 3, 1, 2, 1, 1, 0 (tens), then calls past the sorted front.
        for call in [30u32, 11, 20, 12, 13, 0, 99, 5] {
            buckets.push(0, call);
        }
        let mut bucket = buckets.take(0);
        let mut keys: Vec<u64> = (0..6)
            .map(|i| (u64::from(bucket.get(i) / 10) << 32) | i as u64)
            .collect();
        let mut rng = Pcg64::seed_from_u64(1);
        by_arrival(&mut keys, &mut Vec::new(), &mut rng);
        bucket.permute(&keys, &mut Vec::new());
        let calls: Vec<u32> = bucket.iter().copied().collect();
        assert_eq!((calls[0], calls[4], calls[5]), (0, 20, 30));
        let mut ties = calls[1..4].to_vec();
        ties.sort_unstable();
        assert_eq!(ties, [11, 12, 13]);
        assert_eq!(&calls[6..], [99, 5]);
        // The three calls of equal times took two draws.
        let mut check = Pcg64::seed_from_u64(1);
        check.random_range(0..=2usize);
        check.random_range(0..=1usize);
        assert_eq!(rng.random::<u64>(), check.random::<u64>());
        // Same seed, same order; three tied calls come out in all six orders over seeds.
        let mut orders = std::collections::BTreeSet::new();
        for seed in 0..200 {
            let mut keys = [7 << 32, (7 << 32) | 1, (7 << 32) | 2];
            by_arrival(&mut keys, &mut Vec::new(), &mut Pcg64::seed_from_u64(seed));
            orders.insert(keys);
        }
        assert_eq!(orders.len(), 6);
        // The last two of the first five to the front.
        let mut keys = [0, 1, 2, 3, 4, 5];
        last_to_front(&mut keys, 5, 2);
        assert_eq!(keys, [3, 4, 0, 1, 2, 5]);
    }

    #[test]
    fn the_radix_sort_sorts_as_a_comparison_sort_does() {
        let mut rng = Pcg64::seed_from_u64(7);
        let mut scratch = Vec::new();
        // Spans of times of one digit, two, three and every bit; sizes either side of
        // the radix sort's threshold; all times equal.
        for span in [1u64, 2_000, 200_000, 3_600_000_000, u64::from(u32::MAX)] {
            for n in [0, 1, RADIX_FROM - 1, RADIX_FROM, 5_000] {
                let base = rng.random_range(0..=u64::from(u32::MAX) - (span - 1));
                let mut keys: Vec<u64> = (0..n)
                    .map(|i| ((base + rng.random_range(0..span)) << 32) | i as u64)
                    .collect();
                let mut sorted = keys.clone();
                sorted.sort_unstable();
                sort_by_time(&mut keys, &mut scratch);
                assert_eq!(keys, sorted, "{span} {n}");
            }
        }
    }

    #[test]
    fn a_permutation_across_blocks_moves_the_front_and_leaves_the_rest() {
        let mut buckets = Buckets::new(1);
        let n = 2 * BLOCK + 3;
        for i in 0..n as u32 {
            buckets.push(0, i);
        }
        let mut bucket = buckets.take(0);
        let front = BLOCK + 5;
        let order: Vec<u64> = (0..front as u64).rev().collect();
        bucket.permute(&order, &mut Vec::new());
        let calls: Vec<u32> = bucket.iter().copied().collect();
        let want: Vec<u32> = (0..front as u32)
            .rev()
            .chain(front as u32..n as u32)
            .collect();
        assert_eq!(calls, want);
    }

    #[test]
    fn recycled_blocks_carry_the_next_calls() {
        let mut buckets = Buckets::new(3);
        buckets.fill(0, 7u32, 2 * BLOCK + 3);
        let blocks: Vec<(Vec<u32>, usize)> = buckets.take(0).into_blocks().collect();
        let held: Vec<usize> = blocks.iter().map(|&(_, held)| held).collect();
        assert_eq!(held, [BLOCK, BLOCK, 3]);
        for (block, _) in blocks {
            buckets.recycle(block);
        }
        for i in 0..BLOCK as u32 + 1 {
            buckets.push(2, i);
        }
        let bucket = buckets.take(2);
        assert_eq!(bucket.len(), BLOCK + 1);
        assert_eq!(bucket.get(BLOCK), BLOCK as u32);
        assert!(bucket.blocks[0].capacity() >= BLOCK);
        // The recycled blocks' stale places are never read as calls.
        let calls: Vec<u32> = bucket.iter().copied().collect();
        assert_eq!(calls, (0..BLOCK as u32 + 1).collect::<Vec<_>>());
        let held: Vec<usize> = bucket.into_blocks().map(|(_, held)| held).collect();
        assert_eq!(held, [BLOCK, 1]);
    }

    /// A tick drained block by block and given back leaves its blocks and its list to
    /// the ticks to come, which hold what is pushed to them and nothing of before.
    #[test]
    fn drained_ticks_give_their_blocks_and_lists_to_the_next() {
        let mut buckets = Buckets::new(6);
        for i in 0..BLOCK as u32 + 5 {
            buckets.push(1, i);
        }
        let mut tick = buckets.take(1);
        let drained: Vec<(Vec<u32>, usize)> = tick.drain_blocks().collect();
        assert_eq!(tick.len(), 0);
        let held: Vec<usize> = drained.iter().map(|&(_, held)| held).collect();
        assert_eq!(held, [BLOCK, 5]);
        for (block, _) in drained {
            buckets.recycle(block);
        }
        buckets.recycle_list(tick);
        assert_eq!(
            (buckets.spare.blocks.len(), buckets.spare.lists.len()),
            (2, 1)
        );
        // The next ticks take the pool's list and blocks, stale places and all.
        for (k, n) in [(2, 3), (3, BLOCK + 2), (4, 1)] {
            for i in 0..n as u32 {
                buckets.push(k, 1_000_000 + i);
            }
            let bucket = buckets.take(k);
            let calls: Vec<u32> = bucket.iter().copied().collect();
            assert_eq!(calls, (1_000_000..1_000_000 + n as u32).collect::<Vec<_>>());
        }
        assert_eq!(buckets.spare.lists.len(), 0);
        // A tick nobody pushed to holds nothing; the one after the last call is found.
        assert_eq!(buckets.next_busy(5), 6);
        buckets.push(5, 7);
        assert_eq!((buckets.next_busy(0), buckets.next_busy(5)), (5, 5));
    }

    /// Calls pushed into a tick, through blocks that grow, blocks from the pool longer
    /// than the calls they get and blocks of every length, come out as pushed: by
    /// index, in order, and block by block with the count each holds.
    #[test]
    fn a_tick_holds_what_was_pushed_and_no_stale_place() {
        let mut buckets = Buckets::new(2);
        let mut next = 0u32;
        for n in [
            0,
            1,
            15,
            16,
            17,
            100,
            BLOCK - 1,
            BLOCK,
            BLOCK + 1,
            3 * BLOCK + 7,
            5,
            0,
            2,
        ] {
            let want: Vec<u32> = (next..next + n as u32).collect();
            next += n as u32;
            for &call in &want {
                buckets.push(1, call);
            }
            let bucket = buckets.take(1);
            assert_eq!(bucket.len(), n);
            assert_eq!(bucket.iter().copied().collect::<Vec<_>>(), want);
            assert!((0..n).all(|i| bucket.get(i) == want[i]));
            let mut got = Vec::new();
            for (block, held) in bucket.into_blocks() {
                assert!(held > 0 && held <= block.len() && block.len() <= BLOCK);
                got.extend_from_slice(&block[..held]);
                buckets.recycle(block);
            }
            assert_eq!(got, want);
        }
    }
}
