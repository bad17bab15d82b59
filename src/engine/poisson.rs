//! Poisson arrivals: a window of `arrivals` with `process: poisson`.
//!
//! Even spacing (the default) puts request `i` of a window at `from + ⌊i · 10⁹ / R⌋` µs,
//! with `R` the rate in thousandths of a request per second ([`super::guards`]). A
//! Poisson process puts it at
//!
//! ```text
//! t_i = from + ⌊T_i⌋ µs,   T_i = T_(i−1) + m · E_i,   T_(−1) = 0,   m = 10⁹ / R,
//! ```
//!
//! where `E_i` is a draw of the unit exponential distribution (below) and `m` the mean
//! gap in µs: the gaps between requests are exponential, and the count in any span is a
//! Poisson variable with mean the rate times the span. The first request comes after a
//! gap too, as a Poisson process started at `from` has it. Requests are made while
//! `t_i < to`, and at most [`Arrivals::most`] of them (the mean count plus ten of its
//! standard deviations plus 50), so that a run's work has a bound; a Poisson count
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
//! **A unit exponential** is drawn by Marsaglia and Tsang's ziggurat ("The Ziggurat
//! Method for Generating Random Variables", *Journal of Statistical Software* 5(8),
//! 2000, with their `REXP`'s 256 layers, `r = 7.697117470131487` and
//! `v = 3.949659822581572e-3`), from the window's generator's 64-bit words `w`:
//!
//! 1. Take `i = w mod 256` (the layer) and `j = ⌊w / 2¹¹⌋` (53 bits). If `j < k_i`,
//!    the draw is `j · w_i`.
//! 2. Otherwise, if `i = 0` (the base, with the tail), the draw is `r − ln u` for the
//!    next word's uniform draw `u = (⌊w / 2¹¹⌋ + 1) · 2⁻⁵³` in `(0, 1]`.
//! 3. Otherwise `x = j · w_i`; with the next word's `u = ⌊w / 2¹¹⌋ · 2⁻⁵³` in `[0, 1)`,
//!    the draw is `x` if `f_i + u · (f_(i−1) − f_i) < e^(−x)`; if not, start again at 1
//!    with the next word.
//!
//! The tables are Marsaglia and Tsang's, with 2⁵³ for their 2³²: `d = t = r`,
//! `q = v / e^(−r)`, `k_0 = ⌊(r / q) · 2⁵³⌋`, `k_1 = 0`, `w_0 = q / 2⁵³`, `w_255 = r / 2⁵³`,
//! `f_0 = 1`, `f_255 = e^(−r)`; then for `i` from 254 down to 1:
//! `d = −ln(v / d + e^(−d))`, `k_(i+1) = ⌊(d / t) · 2⁵³⌋`, `t = d`, `f_i = e^(−d)`,
//! `w_i = d / 2⁵³`. About 99% of draws take one word and step 1 alone.
//!
//! **Exactly the same on every machine.** Every number above is an IEEE 754 double,
//! each operation rounded to nearest on its own (no fused multiply-add), and `ln` and
//! `e^x` are fdlibm's (`__ieee754_log` and `__ieee754_exp` of Sun's fdlibm 5.3, as the
//! `libm` crate and Java's `StrictMath` compute them), built from those operations
//! alone, rather than the platform's own, which may differ in the last bit from one
//! system to another: the browser's module and the binary give the same requests to
//! the microsecond.
//!
//! **Why the ziggurat.** A draw costs about one word and a multiplication (3 ns here; a
//! request with its time, 7 ns), where inversion (`−ln u` for every draw) cost 5 ns (a
//! request 9.5 ns) and von Neumann's exact method from comparisons of whole words
//! (about 4.3 words a draw, and as many unpredictable branches) 14 ns (18.6 ns), which
//! earlier versions used.

use rand::SeedableRng;

use super::rng::Pcg64;
use super::scenario::{Arrivals, Process};
use super::units::Micros;

/// `2⁻⁵³`, the step of the uniform draws.
const STEP: f64 = 1.0 / (1u64 << 53) as f64;

/// `2⁵³`, the scale of the ziggurat's tables.
const SCALE: f64 = (1u64 << 53) as f64;

/// The ziggurat's base: the right end of its lowest rectangle.
const R: f64 = 7.697117470131487;

/// The area of each layer of the ziggurat.
const V: f64 = 3.949659822581572e-3;

/// The unit exponential `−ln u` of a word's uniform draw `u = (⌊w / 2¹¹⌋ + 1) · 2⁻⁵³`
/// in `(0, 1]`, with fdlibm's logarithm: the ziggurat's tail.
#[inline]
pub fn inversion(word: u64) -> f64 {
    // At most 2⁵³, exact in a double; times a power of two, exact too.
    let u = ((word >> 11) + 1) as f64 * STEP;
    -libm::log(u)
}

/// The ziggurat's tables (see the module docs): per layer, the threshold `k` of the
/// fast path, the width `w` of a step of `j`, and `f = e^(−x)` at its right end.
#[derive(Debug)]
struct Ziggurat {
    k: [u64; 256],
    w: [f64; 256],
    f: [f64; 256],
}

impl Ziggurat {
    /// The tables, computed once (256 logarithms and exponentials).
    fn get() -> &'static Ziggurat {
        static TABLES: std::sync::OnceLock<Ziggurat> = std::sync::OnceLock::new();
        TABLES.get_or_init(Ziggurat::new)
    }

    fn new() -> Ziggurat {
        let (mut k, mut w, mut f) = ([0u64; 256], [0f64; 256], [0f64; 256]);
        let (mut d, mut t) = (R, R);
        let q = V / libm::exp(-d);
        k[0] = ((d / q) * SCALE) as u64;
        w[0] = q / SCALE;
        w[255] = d / SCALE;
        f[0] = 1.0;
        f[255] = libm::exp(-d);
        for i in (1..=254).rev() {
            d = -libm::log(V / d + libm::exp(-d));
            k[i + 1] = ((d / t) * SCALE) as u64;
            t = d;
            f[i] = libm::exp(-d);
            w[i] = d / SCALE;
        }
        Ziggurat { k, w, f }
    }
}

/// A unit exponential from `rng`'s words, by the ziggurat (see the module docs).
pub fn exponential(rng: &mut Pcg64) -> f64 {
    Ziggurat::get().draw(|| rng.word())
}

impl Ziggurat {
    /// [`exponential`], with these tables, from the words `word` gives in turn.
    #[inline]
    fn draw(&self, mut word: impl FnMut() -> u64) -> f64 {
        let z = self;
        loop {
            let w = word();
            let (i, j) = ((w & 0xFF) as usize, w >> 11);
            if j < z.k[i] {
                return j as f64 * z.w[i];
            }
            if i == 0 {
                return R + inversion(word());
            }
            let x = j as f64 * z.w[i];
            let u = (word() >> 11) as f64 * STEP;
            if z.f[i] + u * (z.f[i - 1] - z.f[i]) < libm::exp(-x) {
                return x;
            }
        }
    }
}

/// The requests of one Poisson window in one run, in order of time.
#[derive(Clone, Debug)]
pub struct Stream {
    rng: Pcg64,
    tables: &'static Ziggurat,
    from: Micros,
    to: Micros,
    /// The mean gap, `10⁹ / R` µs.
    mean: f64,
    /// `T`, the time of the last request from `from`, in µs.
    elapsed: f64,
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
            tables: Ziggurat::get(),
            from: window.from,
            to: window.to,
            // Both whole numbers below 2⁵³, exact in a double: one rounding.
            mean: 1e9 / window.rate_milli.max(1) as f64,
            elapsed: 0.0,
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
    #[inline]
    fn step(&mut self) -> Option<Micros> {
        if self.left == 0 {
            return None;
        }
        let rng = &mut self.rng;
        let e = self.tables.draw(|| rng.word());
        let at = self.after(e);
        if at >= self.to {
            self.left = 0;
            return None;
        }
        self.left -= 1;
        Some(at)
    }

    /// Adds the gap of the unit exponential `e` to `T`: the time of the request after
    /// it.
    #[inline]
    fn after(&mut self, e: f64) -> Micros {
        self.elapsed += self.mean * e;
        // A non-negative double to a whole number: its floor (at most `u64::MAX`).
        self.from.saturating_add(self.elapsed as u64)
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

    /// The word whose uniform draw is `k · 2⁻⁵³`, for `k` from 1 to 2⁵³.
    fn word_of(k: u64) -> u64 {
        (k - 1) << 11
    }

    const LN2: f64 = std::f64::consts::LN_2;

    /// The tail's draws by hand: `u = 1/2` gives ln 2, `u = 1` gives 0, the smallest `u`
    /// (2⁻⁵³) 53 · ln 2; the low 11 bits of a word are not used.
    #[test]
    fn inversion_by_hand() {
        assert_eq!(inversion(word_of(1 << 52)), LN2);
        assert_eq!(inversion(word_of(1 << 52) | 0x7FF), LN2);
        assert_eq!(inversion(u64::MAX), 0.0);
        assert_eq!(inversion(word_of(1 << 51)), 2.0 * LN2);
        assert!((inversion(0) - 53.0 * LN2).abs() < 1e-14);
        // fdlibm's logarithm is within an ulp of the platform's.
        for k in [3u64, 1_000, 1 << 40, (1 << 53) - 1] {
            let u = k as f64 / (1u64 << 53) as f64;
            assert!((inversion(word_of(k)) + u.ln()).abs() <= 1e-15 * u.ln().abs());
        }
    }

    /// The tables are Marsaglia and Tsang's: the base strip's width `q = v / e^(−r)`
    /// (8.697…), the lowest rectangle's `r`, widths falling to the top, each layer's
    /// area `v`, and the fast path's thresholds the ratio of each width to the one below.
    #[test]
    fn the_ziggurat_s_tables() {
        let z = Ziggurat::get();
        let x = |i: usize| z.w[i] * SCALE;
        assert!((x(0) - 8.697_117_470_13).abs() < 1e-11, "{}", x(0));
        assert_eq!(x(255), R);
        assert!((1..255).all(|i| x(i) < x(i + 1)));
        assert!(x(1) > 0.0 && x(1) < 0.1, "{}", x(1));
        for i in 1..256 {
            // A rectangle of width x_i between f_i and f_(i−1): area v.
            let area = x(i) * (z.f[i - 1] - z.f[i]);
            assert!((area - V).abs() < 1e-9, "layer {i}: {area}");
            assert!((z.f[i] - (-x(i)).exp()).abs() < 1e-15);
        }
        assert_eq!(z.k[1], 0);
        for i in 2..256 {
            let ratio = x(i - 1) / x(i);
            assert!((z.k[i] as f64 / SCALE - ratio).abs() < 1e-15, "layer {i}");
        }
        assert_eq!(z.k[0], ((R / x(0)) * SCALE) as u64);
    }

    /// Draws by hand: a word on the fast path is `j · w_i`; layer 0 past its threshold
    /// is the tail, `r` plus the next word's inversion.
    #[test]
    fn exponential_by_hand() {
        let z = Ziggurat::get();
        // Layer 255 (the lowest rectangle, of width r), j = 2⁵²: r / 2 if the threshold
        // lets it through (x_254 / r of 2⁵³ is more than a half).
        let mut words = Words(vec![(1u64 << 52) << 11 | 0xFF]);
        assert!(z.k[255] > 1 << 52);
        assert_eq!(z.draw(|| words.next()), R / 2.0);
        // Layer 0 at j = 2⁵³ − 1, past k_0: the tail, with u = 1/2 next.
        let mut words = Words(vec![!0xFF, word_of(1 << 52)]);
        assert_eq!(z.draw(|| words.next()), R + LN2);
    }

    /// Words given by hand in place of a generator's.
    struct Words(Vec<u64>);

    impl Words {
        /// The first word left.
        fn next(&mut self) -> u64 {
            self.0.remove(0)
        }
    }

    /// The times from gaps given by hand: `t_i = from + ⌊T_i⌋`, `T` summed in doubles.
    #[test]
    fn times_by_hand() {
        // One request a second (R = 1,000, m = 10⁶ µs), each gap ln 2 s: 693,147.18… µs,
        // then 1,386,294.36… µs, floored from the sum each time.
        let mut s = stream(1_000, 2_000_000);
        assert_eq!(s.add(LN2), Some(2_693_147));
        assert_eq!(s.add(LN2), Some(3_386_294));
        // A gap of 0: the same microsecond.
        assert_eq!(s.add(0.0), Some(3_386_294));
        // Three a second (m = 333,333.33… µs): a gap of 2 ln 2 thirds of a second,
        // 462,098.12… µs.
        let mut s = stream(3_000, 0);
        assert_eq!(s.add(2.0 * LN2), Some(462_098));
        // The highest rate (10⁷ a second, m = 0.1 µs): ln 2 tenths of a µs, three times,
        // then 53 ln 2 tenths.
        let mut s = stream(10_000_000_000, 0);
        assert_eq!(s.add(LN2), Some(0));
        assert_eq!(s.add(LN2), Some(0));
        assert_eq!(s.add(LN2), Some(0));
        assert_eq!(s.add(53.0 * LN2), Some(3));
    }

    /// A stream of `rate_milli` from `from`, to be given its gaps by hand.
    fn stream(rate_milli: u64, from: Micros) -> Stream {
        let window = Arrivals {
            rate_milli,
            from,
            to: MAX_TIME,
            process: Process::Poisson,
        };
        let mut stream = Stream::new(&window, 0);
        stream.elapsed = 0.0;
        stream
    }

    impl Stream {
        /// [`Stream::step`] with the unit exponential `e` in place of a draw.
        fn add(&mut self, e: f64) -> Option<Micros> {
            let at = self.after(e);
            (at < self.to).then_some(at)
        }
    }

    /// A stream's requests are the formula's, from its seed's draws in turn.
    #[test]
    fn a_stream_is_its_seed_s_draws_in_turn() {
        let mut rng = Pcg64::seed_from_u64(5);
        for _ in 0..200 {
            let rate = rng.random_range(1..10_000_000_000);
            let window = Arrivals {
                rate_milli: rate,
                from: rng.random_range(0..1_000_000),
                to: MAX_TIME,
                process: Process::Poisson,
            };
            let word = rng.word();
            let mut draws = Pcg64::seed_from_u64(word);
            let mut by_hand = stream(rate, window.from);
            for at in Stream::new(&window, word).take(500) {
                assert_eq!(
                    Some(at),
                    by_hand.add(exponential(&mut draws)),
                    "rate {rate}"
                );
            }
        }
    }

    /// The ziggurat's draws are a unit exponential: over two million of them, the
    /// share below each of 0.1, 0.5, 1, 2, 4 and 8 is `1 − e^(−x)` within four standard
    /// errors, and the mean and variance are 1.
    #[test]
    fn the_draws_are_a_unit_exponential() {
        let mut rng = Pcg64::seed_from_u64(9);
        let n = 2_000_000;
        let draws: Vec<f64> = (0..n).map(|_| exponential(&mut rng)).collect();
        for x in [0.1f64, 0.5, 1.0, 2.0, 4.0, 8.0] {
            let share = draws.iter().filter(|&&d| d < x).count() as f64 / n as f64;
            let p = 1.0 - (-x).exp();
            let error = (p * (1.0 - p) / n as f64).sqrt();
            assert!(
                (share - p).abs() < 4.0 * error + 1e-6,
                "{x}: {share} against {p}"
            );
        }
        let mean = draws.iter().sum::<f64>() / n as f64;
        let variance = draws.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / n as f64;
        assert!((mean - 1.0).abs() < 4.0 / (n as f64).sqrt(), "{mean}");
        assert!(
            (variance - 1.0).abs() < 4.0 * (8.0 / n as f64).sqrt(),
            "{variance}"
        );
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
