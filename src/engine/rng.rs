//! The engine's random generator: PCG-64 (`Lcg128Xsl64`), exactly rand_pcg's `Pcg64`,
//! draw for draw from the same seed, with its 128-bit state kept as two 64-bit halves.
//!
//! Why not rand_pcg's own: its step multiplies two `u128`s, which the browser's module
//! (WebAssembly has no 128-bit product, and the module is built for size) makes a call
//! to a routine that passes its result through memory, once per draw, about a twentieth
//! of a run of the playground's metastable preset. Here the step is written in 64-bit
//! products: the low half of the state times the multiplier's low half in full (its
//! high word by 32-bit halves in the browser, one instruction elsewhere), plus the two
//! cross products' low words; all of it inlined. The tests hold it to rand_pcg's over
//! millions of draws and many seeds.

use rand::rand_core::{Infallible, SeedableRng, TryRng, utils};

/// PCG-64's multiplier, `0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645`, in halves.
const MULTIPLIER_HIGH: u64 = 0x2360_ED05_1FC6_5DA4;
const MULTIPLIER_LOW: u64 = 0x4385_DF64_9FCC_F645;

/// PCG-64: a 128-bit linear congruential generator with the XSL RR output (rand_pcg's
/// `Lcg128Xsl64`, named `Pcg64` there as here).
#[derive(Clone, PartialEq, Eq)]
pub struct Pcg64 {
    state_low: u64,
    state_high: u64,
    increment_low: u64,
    increment_high: u64,
}

impl std::fmt::Debug for Pcg64 {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        // As rand_pcg's, which keeps its state to itself.
        write!(f, "Lcg128Xsl64 {{}}")
    }
}

impl Pcg64 {
    /// `state · multiplier + increment`, modulo 2¹²⁸.
    #[inline(always)]
    fn step(&mut self) {
        let (low, high) = (self.state_low, self.state_high);
        let product_low = low.wrapping_mul(MULTIPLIER_LOW);
        let product_high = high_word(low, MULTIPLIER_LOW)
            .wrapping_add(low.wrapping_mul(MULTIPLIER_HIGH))
            .wrapping_add(high.wrapping_mul(MULTIPLIER_LOW));
        let (sum_low, carry) = product_low.overflowing_add(self.increment_low);
        self.state_low = sum_low;
        self.state_high = product_high
            .wrapping_add(self.increment_high)
            .wrapping_add(u64::from(carry));
    }

    /// The output of the state: its halves xored, rotated right by its top six bits.
    #[inline(always)]
    fn output(&self) -> u64 {
        let rotation = (self.state_high >> 58) as u32;
        (self.state_high ^ self.state_low).rotate_right(rotation)
    }

    /// The next 64 random bits: rand's `random::<u64>()`.
    #[inline(always)]
    pub fn word(&mut self) -> u64 {
        self.step();
        self.output()
    }

    /// The next 32 random bits, the low half of a word: rand's `random::<u32>()`.
    #[inline(always)]
    pub fn word32(&mut self) -> u32 {
        self.word() as u32
    }

    /// A uniform draw in `[0, 1)`: rand's `random::<f64>()`, a word's top 53 bits
    /// times 2⁻⁵³. These three are always inlined, where rand's generic `random`, in
    /// the browser's module (built for size), was a call per draw.
    #[inline(always)]
    pub fn unit(&mut self) -> f64 {
        const SCALE: f64 = 1.0 / (1u64 << 53) as f64;
        SCALE * (self.word() >> 11) as f64
    }
}

/// The high 64 bits of the 128-bit product of `a` and `b`.
#[inline(always)]
fn high_word(a: u64, b: u64) -> u64 {
    if cfg!(target_arch = "wasm32") {
        high_word_by_halves(a, b)
    } else {
        ((u128::from(a) * u128::from(b)) >> 64) as u64
    }
}

/// [`high_word`] from four products of 32-bit halves, each exact in 64 bits.
#[inline(always)]
fn high_word_by_halves(a: u64, b: u64) -> u64 {
    let (a_low, a_high) = (a & 0xFFFF_FFFF, a >> 32);
    let (b_low, b_high) = (b & 0xFFFF_FFFF, b >> 32);
    let low_low = a_low * b_low;
    let low_high = a_low * b_high;
    let high_low = a_high * b_low;
    let high_high = a_high * b_high;
    // The middle column: at most three words of 32 bits, no overflow.
    let middle = (low_low >> 32) + (low_high & 0xFFFF_FFFF) + (high_low & 0xFFFF_FFFF);
    high_high + (low_high >> 32) + (high_low >> 32) + (middle >> 32)
}

impl SeedableRng for Pcg64 {
    type Seed = [u8; 32];

    /// As rand_pcg: the state and the increment from the seed's four little-endian
    /// words, the increment made odd, the increment added and one step taken.
    fn from_seed(seed: [u8; 32]) -> Pcg64 {
        let [state_low, state_high, increment_low, increment_high] =
            utils::read_words::<u64, 4>(&seed);
        let increment_low = increment_low | 1;
        let (low, carry) = state_low.overflowing_add(increment_low);
        let mut pcg = Pcg64 {
            state_low: low,
            state_high: (state_high.wrapping_add(increment_high)).wrapping_add(u64::from(carry)),
            increment_low,
            increment_high,
        };
        pcg.step();
        pcg
    }
}

impl TryRng for Pcg64 {
    type Error = Infallible;

    #[inline(always)]
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        self.try_next_u64().map(|word| word as u32)
    }

    #[inline(always)]
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.word())
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), Infallible> {
        utils::fill_bytes_via_next_word(dest, || self.try_next_u64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, RngExt};

    /// Every draw the engine makes (words, floats, ranges) is rand_pcg's, from many
    /// seeds, including the seeds next to the ends of `u64`.
    #[test]
    fn it_draws_what_rand_pcg_draws() {
        let seeds = (0..200).chain([u64::MAX, u64::MAX - 1, 1 << 63, 0x5eed, 12_345_678_901]);
        for seed in seeds {
            let mut ours = Pcg64::seed_from_u64(seed);
            let mut theirs = rand_pcg::Pcg64::seed_from_u64(seed);
            for _ in 0..2_000 {
                assert_eq!(ours.next_u64(), theirs.next_u64(), "seed {seed}");
                assert_eq!(ours.next_u32(), theirs.next_u32(), "seed {seed}");
                assert_eq!(
                    ours.random::<f64>().to_bits(),
                    theirs.random::<f64>().to_bits()
                );
                assert_eq!(
                    ours.random_range(0..1_000_003usize),
                    theirs.random_range(0..1_000_003usize)
                );
                assert_eq!(ours.unit().to_bits(), theirs.random::<f64>().to_bits());
                assert_eq!(ours.word32(), theirs.random::<u32>());
                assert_eq!(ours.word(), theirs.random::<u64>());
            }
        }
        // A long stream of one seed, and a seed of full bytes.
        let mut ours = Pcg64::seed_from_u64(42);
        let mut theirs = rand_pcg::Pcg64::seed_from_u64(42);
        for _ in 0..2_000_000 {
            assert_eq!(ours.next_u64(), theirs.next_u64());
        }
        let bytes: [u8; 32] = std::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ 0xA5);
        let (mut ours, mut theirs) = (Pcg64::from_seed(bytes), rand_pcg::Pcg64::from_seed(bytes));
        let (mut a, mut b) = ([0u8; 77], [0u8; 77]);
        ours.fill_bytes(&mut a);
        theirs.fill_bytes(&mut b);
        assert_eq!(a, b);
    }

    /// The high word by halves is the 128-bit product's, at the ends of the range too.
    #[test]
    fn the_high_word_by_halves_is_the_products() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(8);
        let edges = [
            0,
            1,
            0xFFFF_FFFF,
            1 << 32,
            u64::MAX,
            u64::MAX - 1,
            MULTIPLIER_LOW,
        ];
        let pairs = (edges
            .iter()
            .flat_map(|&a| edges.iter().map(move |&b| (a, b))))
        .chain((0..1_000_000).map(|_| (rng.next_u64(), rng.next_u64())));
        for (a, b) in pairs {
            let want = ((u128::from(a) * u128::from(b)) >> 64) as u64;
            assert_eq!(high_word_by_halves(a, b), want, "{a:#x} · {b:#x}");
        }
    }
}
