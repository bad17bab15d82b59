//! Poisson arrivals: a window of `arrivals` with `process: poisson`.
//!
//! Even spacing (the default) puts request `i` of a window at `from + ⌊i · 10⁹ / R⌋` µs,
//! with `R` the rate in thousandths of a request per second ([`super::guards`]). A
//! Poisson process puts it at
//!
//! ```text
//! t_i = from + ⌊S_i · 10⁹ / (R · 2⁶⁴)⌋ µs,   S_i = E_0 + E_1 + … + E_i,
//! ```
//!
//! where each `E` is a draw of the unit exponential distribution, written in units of
//! 2⁻⁶⁴ (a whole part `k` and a fraction `f` of 64 bits: `E = k · 2⁶⁴ + f`): the gaps
//! between requests are exponential with mean `10⁹ / R` µs, and the count in any span
//! is a Poisson variable with mean the rate times the span. The first request comes
//! after a gap too, as a Poisson process started at `from` has it. Requests are made
//! while `t_i < to`, and at most [`Arrivals::most`] of them (the mean count plus ten of
//! its standard deviations plus 50), so that a run's work has a bound; a Poisson count
//! passes it with a chance below 10⁻²⁰.
//!
//! **The draws.** Each window with `process: poisson` has a generator of its own: before
//! its first tick, before the closed crowd's `spread` draws, a run draws one 64-bit word
//! from its own generator for each such window, in the windows' order, and seeds the
//! window's PCG-64 with it (rand's `seed_from_u64`, as a run's own generator is seeded
//! from its seed). A window's requests then depend on the run's seed alone: every
//! strategy of a scenario meets the same requests in a run of the same seed, and a
//! scenario with only even spacing draws nothing, so its runs are what they were.
//!
//! **A unit exponential from whole words** (von Neumann, 1951; Knuth, *The Art of
//! Computer Programming*, vol. 2, 3rd ed., §3.4.1, exercise 7), with no floating point,
//! so that two implementations give the same draws to the bit. Start with `k = 0`. Draw
//! a word `u_1`, then words `u_2, u_3, …` while each is less than the one before; the
//! first that is not ends the run and is not used again. If the number `n` of words in
//! the falling run `u_1 > u_2 > … > u_n` is odd, the draw is `E = k · 2⁶⁴ + u_1`;
//! otherwise add 1 to `k` and start again with fresh words. (Given `u_1 = x · 2⁶⁴`, the
//! run is at least `n` long with probability `x^(n−1)/(n−1)!`, so it is odd with
//! probability `e^(−x)`: the kept fraction has the density of `e^(−x)` on `[0, 1)`, and
//! `k` is the number of rejected tries, `P(k) = e^(−k) (1 − e^(−1))`. A draw takes
//! about 4.3 words.)

use rand::SeedableRng;

use super::rng::{Pcg64, high_word};
use super::scenario::{Arrivals, Process};
use super::units::Micros;

/// 10⁹, the µs in a second times the thousandths in a request.
const GIGA: u64 = 1_000_000_000;

/// A unit exponential, `(k, f)` for `k + f · 2⁻⁶⁴`, from `word`, by von Neumann's
/// method (see the module docs).
pub fn exponential(mut word: impl FnMut() -> u64) -> (u64, u64) {
    let mut whole = 0;
    loop {
        let first = word();
        let (mut last, mut length) = (first, 1u32);
        loop {
            let next = word();
            if next >= last {
                break;
            }
            last = next;
            length += 1;
        }
        if length % 2 == 1 {
            return (whole, first);
        }
        whole += 1;
    }
}

/// The requests of one Poisson window in one run, in order of time.
#[derive(Clone, Debug)]
pub struct Stream {
    rng: Pcg64,
    from: Micros,
    to: Micros,
    rate: u64,
    /// `S · 10⁹ = offset · (R · 2⁶⁴) + (rest_high · 2⁶⁴ + rest_low)`, with
    /// `rest_high < R`: the offset is `⌊S · 10⁹ / (R · 2⁶⁴)⌋`, the last request's
    /// time from `from`, and the rest what is carried to the next.
    offset: u64,
    rest_high: u64,
    rest_low: u64,
    /// Requests still to make ([`Arrivals::most`] at the start).
    left: u64,
    /// The next request's time, if it is before `to`.
    next: Option<Micros>,
}

impl Stream {
    /// The requests of `window` for a generator seeded with `word`.
    pub fn new(window: &Arrivals, word: u64) -> Stream {
        let mut stream = Stream {
            rng: Pcg64::seed_from_u64(word),
            from: window.from,
            to: window.to,
            rate: window.rate_milli.max(1),
            offset: 0,
            rest_high: 0,
            rest_low: 0,
            left: window.most(),
            next: None,
        };
        stream.next = stream.step();
        stream
    }

    /// The streams of the Poisson windows of `arrivals`, each seeded with a word of
    /// `rng` (the run's generator, before it draws anything else); `None` for a window
    /// of even spacing.
    pub fn of_run(arrivals: &[Arrivals], rng: &mut Pcg64) -> Vec<Option<Stream>> {
        (arrivals.iter())
            .map(|a| match a.process {
                Process::Even => None,
                Process::Poisson => Some(Stream::new(a, rng.word())),
            })
            .collect()
    }

    /// Adds one exponential gap: the time of the request after it, if it is made.
    fn step(&mut self) -> Option<Micros> {
        if self.left == 0 {
            return None;
        }
        let rng = &mut self.rng;
        let (whole, fraction) = exponential(|| rng.word());
        // E · 10⁹ = (whole · 10⁹) · 2⁶⁴ + fraction · 10⁹, the second in two words. The
        // high word stays far below 2⁶⁴: the rest's is below R ≤ 10¹⁰, and `whole` is the
        // number of rejected tries (more than 40 with a chance of 10⁻¹⁷).
        let (low, carry) = self.rest_low.overflowing_add(fraction.wrapping_mul(GIGA));
        let high = (self.rest_high + high_word(fraction, GIGA) + u64::from(carry))
            .saturating_add(whole.saturating_mul(GIGA));
        self.offset = self.offset.saturating_add(high / self.rate);
        self.rest_high = high % self.rate;
        self.rest_low = low;
        let at = self.from.saturating_add(self.offset);
        if at >= self.to {
            self.left = 0;
            return None;
        }
        self.left -= 1;
        Some(at)
    }

    /// The next request, if it starts before `end`.
    #[inline]
    pub fn next_before(&mut self, end: Micros) -> Option<Micros> {
        let at = self.next.filter(|&t| t < end)?;
        self.next = self.step();
        Some(at)
    }
}

impl Iterator for Stream {
    type Item = Micros;

    fn next(&mut self) -> Option<Micros> {
        self.next_before(Micros::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::scenario::MAX_TIME;
    use rand::RngExt;

    /// A word source that gives `words` in turn.
    fn words(words: &[u64]) -> impl FnMut() -> u64 + '_ {
        let mut at = 0;
        move || {
            at += 1;
            words[at - 1]
        }
    }

    const HALF: u64 = 1 << 63;

    /// Von Neumann's draw, by hand: the falling run's length decides.
    #[test]
    fn exponential_by_hand() {
        // 7, then 9 ≥ 7: a run of one, odd: 0 + 7 · 2⁻⁶⁴.
        assert_eq!(exponential(words(&[7, 9])), (0, 7));
        // 7 = 7 ends the run too (a word not less than the one before).
        assert_eq!(exponential(words(&[7, 7])), (0, 7));
        // 5 > 3, then 4 ≥ 3: a run of two, even: k = 1; then 8 > 2 > 1, 6 ≥ 1: three,
        // odd: 1 + 8 · 2⁻⁶⁴.
        assert_eq!(exponential(words(&[5, 3, 4, 8, 2, 1, 6])), (1, 8));
        // Two even runs, then 0 followed by anything: a run of one.
        assert_eq!(exponential(words(&[9, 1, 9, 4, 3, 5, 0, 0])), (2, 0));
        // The largest word, falling to 2⁶³ and 1, then 5 ≥ 1: three, odd.
        assert_eq!(exponential(words(&[u64::MAX, HALF, 1, 5])), (0, u64::MAX));
    }

    /// The offsets from gaps given by hand: `⌊S · 10⁹ / (R · 2⁶⁴)⌋`.
    #[test]
    fn times_by_hand() {
        // 1 request a second (R = 1,000): S = 0.5 s, then 0.5 + 1.25 = 1.75 s.
        let mut s = at_rate(1_000);
        assert_eq!(s.add(0, HALF), 500_000);
        assert_eq!(s.add(1, HALF / 2), 1_750_000);
        // 3 a second: S = 1, 2, 3 gaps of a third of a second, floored each time from
        // the exact sum (333,333.3…, 666,666.6…, 1,000,000).
        let mut s = at_rate(3_000);
        assert_eq!(s.add(1, 0), 333_333);
        assert_eq!(s.add(1, 0), 666_666);
        assert_eq!(s.add(1, 0), 1_000_000);
        // A fraction's last bit: 2⁻⁶⁴ of a mean gap of 10⁹ µs (R = 1, a request every
        // 1,000 s) carries into the rest and adds up: 2⁶⁴ − 1 of them and one more make
        // exactly one gap.
        let mut s = at_rate(1);
        assert_eq!(s.add(0, u64::MAX), 999_999_999);
        assert_eq!(s.add(0, 1), 1_000_000_000);
        // The highest rate (10⁷ a second): 0.1 µs per unit gap.
        let mut s = at_rate(10_000_000_000);
        assert_eq!(s.add(9, HALF), 0);
        assert_eq!(s.add(0, HALF), 1);
    }

    /// A stream's arithmetic without its generator: adds `k + f · 2⁻⁶⁴` to `S`.
    struct Sum(Stream);

    fn at_rate(rate_milli: u64) -> Sum {
        let window = Arrivals {
            rate_milli,
            from: 0,
            to: MAX_TIME,
            process: Process::Poisson,
        };
        let mut stream = Stream::new(&window, 0);
        (stream.offset, stream.rest_high, stream.rest_low) = (0, 0, 0);
        Sum(stream)
    }

    impl Sum {
        fn add(&mut self, whole: u64, fraction: u64) -> u64 {
            let s = &mut self.0;
            let (low, carry) = s.rest_low.overflowing_add(fraction.wrapping_mul(GIGA));
            let high = s.rest_high + high_word(fraction, GIGA) + u64::from(carry) + whole * GIGA;
            s.offset += high / s.rate;
            s.rest_high = high % s.rate;
            s.rest_low = low;
            s.offset
        }
    }

    /// The carried offsets are the exact formula's, `⌊S · 10⁹ / (R · 2⁶⁴)⌋` in 128 bits,
    /// over many rates and draws.
    #[test]
    fn offsets_are_the_exact_formula() {
        let mut rng = Pcg64::seed_from_u64(5);
        for _ in 0..200 {
            let rate = match rng.random_range(0..3) {
                0 => rng.random_range(1..1_000),
                1 => rng.random_range(1..10_000_000_000),
                _ => [1, 1_000, 3_000, 7_000, 80_000, 10_000_000_000][rng.random_range(0..6)],
            };
            let window = Arrivals {
                rate_milli: rate,
                from: rng.random_range(0..1_000_000),
                to: MAX_TIME,
                process: Process::Poisson,
            };
            // A stream of a known seed, its gaps summed again in 128 bits.
            let word = rng.word();
            let mut stream = Stream::new(&window, word);
            let mut draws = Pcg64::seed_from_u64(word);
            let mut sum: u128 = 0;
            for _ in 0..500 {
                let Some(at) = stream.next() else { break };
                let (k, f) = exponential(|| draws.word());
                sum += (u128::from(k) << 64) + u128::from(f);
                let exact = sum * u128::from(GIGA) / (u128::from(rate) << 64);
                assert_eq!(u128::from(at - window.from), exact, "rate {rate}");
            }
        }
    }

    /// Over many seeds, a window's count is Poisson (its mean and its variance both the
    /// rate times the span, within four standard errors) and its gaps exponential (a
    /// share `1 − e⁻¹` of them shorter than the mean gap). Fixed seeds: the same
    /// numbers every time.
    #[test]
    fn counts_and_gaps_are_a_poisson_process() {
        let window = Arrivals {
            rate_milli: 80_000,
            from: 0,
            to: 10 * crate::engine::units::SECOND,
            process: Process::Poisson,
        };
        let (seeds, mean) = (2_000u64, 800.0);
        let (mut counts, mut gaps, mut short) = (Vec::new(), 0u64, 0u64);
        for seed in 0..seeds {
            let times: Vec<Micros> = Stream::new(&window, seed).collect();
            assert!(times.windows(2).all(|w| w[0] <= w[1]));
            counts.push(times.len() as f64);
            for w in times.windows(2) {
                gaps += 1;
                short += u64::from(w[1] - w[0] < 12_500);
            }
        }
        let n = seeds as f64;
        let average = counts.iter().sum::<f64>() / n;
        let variance = counts.iter().map(|c| (c - average).powi(2)).sum::<f64>() / (n - 1.0);
        assert!(
            (average - mean).abs() < 4.0 * (mean / n).sqrt(),
            "{average}"
        );
        assert!(
            (variance - mean).abs() < 4.0 * mean * (2.0 / (n - 1.0)).sqrt(),
            "{variance}"
        );
        let share = short as f64 / gaps as f64;
        let expected = 1.0 - (-1.0f64).exp();
        let error = (expected * (1.0 - expected) / gaps as f64).sqrt();
        assert!((share - expected).abs() < 4.0 * error + 1e-3, "{share}");
    }

    /// A window ends at `to`, and makes at most [`Arrivals::most`] requests.
    #[test]
    fn a_window_ends_at_its_end_and_its_bound() {
        let window = Arrivals {
            rate_milli: 1_000_000,
            from: 2_000_000,
            to: 3_000_000,
            process: Process::Poisson,
        };
        for seed in 0..50 {
            let times: Vec<Micros> = Stream::new(&window, seed).collect();
            assert!(times.iter().all(|&t| (2_000_000..3_000_000).contains(&t)));
            assert!(times.len() as u64 <= window.most());
        }
        assert_eq!(window.total(), 1_000);
        assert_eq!(window.most(), 1_000 + 10 * 32 + 50);
        // A bound of 0 makes nothing.
        let mut stream = Stream::new(&window, 1);
        stream.left = 0;
        stream.next = stream.step();
        assert_eq!(stream.count(), 0);
    }
}
