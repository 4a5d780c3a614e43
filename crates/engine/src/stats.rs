//! The standard normal distribution to double precision, tails included.
//!
//! Φ uses `libm::erfc` (the musl/FreeBSD implementation, under one ulp), which keeps relative
//! accuracy in the lower tail where `1 − erf` would cancel. Φ⁻¹ refines a classic rational
//! approximation by Halley steps on Φ(x) − p to double precision. (statrs' `erfc_inv` was
//! measured at only ~5e-10 relative accuracy here.)
//!
//! Portability: every transcendental function in the engine comes from the `libm` crate, pure
//! Rust compiled identically for every target, so native and wasm runs agree to the bit (the
//! standard library calls the platform's libm, whose last bits may differ).

use libm::erfc;

const SQRT_2: f64 = std::f64::consts::SQRT_2;
const INV_SQRT_2PI: f64 = 0.398_942_280_401_432_7;

/// Standard normal density φ(x).
pub fn normal_pdf(x: f64) -> f64 {
    INV_SQRT_2PI * libm::exp(-0.5 * x * x)
}

/// Standard normal CDF Φ(x).
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / SQRT_2)
}

/// Standard normal quantile Φ⁻¹(p) for p in (0, 1); ±∞ at 0 and 1.
pub fn normal_quantile(p: f64) -> f64 {
    if p.is_nan() {
        return f64::NAN;
    }
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    if p > 0.5 {
        // 1 − p is exact for p ≥ 0.5 (Sterbenz), and the lower tail keeps full precision.
        return -normal_quantile(1.0 - p);
    }
    // Abramowitz & Stegun 26.2.23 (|error| < 4.5e-4), then Halley's method on Φ(x) = p, which
    // triples the number of correct digits per step.
    let t = libm::sqrt(-2.0 * libm::log(p));
    let mut x = -(t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t));
    for _ in 0..4 {
        let density = normal_pdf(x);
        if density <= 0.0 {
            break;
        }
        let e = (normal_cdf(x) - p) / density;
        let step = e / (1.0 + 0.5 * x * e);
        x -= step;
        if step.abs() <= 1e-17 * x.abs() {
            break;
        }
    }
    x
}

/// Expected improvement below `best` of a Gaussian N(mean, sd²), in closed form (minimisation):
/// E[max(0, best − Y)] = sd·(u·Φ(u) + φ(u)), u = (best − mean)/sd.
pub fn expected_improvement(mean: f64, sd: f64, best: f64) -> f64 {
    if sd <= 0.0 {
        return (best - mean).max(0.0);
    }
    let u = (best - mean) / sd;
    sd * (u * normal_cdf(u) + normal_pdf(u))
}

/// log EI(mean, sd; best) for minimisation and its derivatives in the mean and the sd, finite
/// wherever sd > 0 however far the mean lies above `best` (Ament et al. 2023, "Unexpected
/// improvements to expected improvement", §4: EI itself underflows to 0 there, and a search
/// over x then sees a flat 0 with no gradient). With z = (best − mean)/sd, EI = sd·h(z) and
/// h(z) = z·Φ(z) + φ(z); for z < −1, h(z) = φ(z)·(1 − t·R(t)) with t = −z and R Mills' ratio
/// Φ(−t)/φ(t), from Φ and φ up to t = 25 and from its asymptotic series beyond.
pub fn log_expected_improvement(mean: f64, sd: f64, best: f64) -> (f64, f64, f64) {
    let z = (best - mean) / sd;
    let (log_h, ratio) = log_h_and_cdf_ratio(z);
    // d log h / dz = Φ(z)/h(z) = ratio.
    (libm::log(sd) + log_h, -ratio / sd, 1.0 / sd - ratio * z / sd)
}

/// log h(z) and Φ(z)/h(z), with h(z) = z·Φ(z) + φ(z).
fn log_h_and_cdf_ratio(z: f64) -> (f64, f64) {
    if z > -1.0 {
        let (cdf, h) = (normal_cdf(z), z * normal_cdf(z) + normal_pdf(z));
        return (libm::log(h), cdf / h);
    }
    let t = -z;
    // 1 − t·R(t) and R(t).
    let (rest, mills) = if t <= 25.0 {
        let mills = normal_cdf(-t) / normal_pdf(t);
        (1.0 - t * mills, mills)
    } else {
        let u = 1.0 / (t * t);
        // R(t) = (1/t)·(1 − u + 3u² − 15u³ + 105u⁴ − 945u⁵ …), so 1 − t·R = u − 3u² + 15u³ − ….
        let series = u * (1.0 - u * (3.0 - u * (15.0 - u * (105.0 - u * 945.0))));
        (series, (1.0 - series) / t)
    };
    let log_pdf = -0.5 * z * z - 0.918_938_533_204_672_8;
    (log_pdf + libm::log(rest), mills / rest)
}

/// log Φ(z), finite however far into the lower tail z lies (where Φ itself underflows): for
/// z < −1, Φ(z) = φ(z)·R(−z) with R Mills' ratio, from Φ and φ up to −z = 25 and from its
/// asymptotic series beyond (as in [`log_expected_improvement`]).
pub fn log_normal_cdf(z: f64) -> f64 {
    if z > -1.0 {
        return libm::log(normal_cdf(z));
    }
    let t = -z;
    let mills = if t <= 25.0 {
        normal_cdf(-t) / normal_pdf(t)
    } else {
        let u = 1.0 / (t * t);
        (1.0 - u * (1.0 - u * (3.0 - u * (15.0 - u * (105.0 - u * 945.0))))) / t
    };
    -0.5 * z * z - 0.918_938_533_204_672_8 + libm::log(mills)
}

/// A standard normal draw by inversion of a uniform in (0, 1) (exact and portable: the same
/// bits on every platform, which the golden traces rely on).
pub fn standard_normal<R: rand::Rng + ?Sized>(rng: &mut R) -> f64 {
    let u = ((rng.random::<u64>() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    normal_quantile(u)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_normal_cdf_is_the_log_of_the_cdf_and_its_asymptote_far_out() {
        // Where Φ is representable, its log, on both sides of the branches at −1 and −25.
        for z in [3.0, 0.0, -0.999, -1.0, -1.001, -5.0, -24.9, -25.0, -25.1, -30.0, -37.0] {
            let (got, want) = (log_normal_cdf(z), normal_cdf(z).ln());
            assert!((got - want).abs() <= 1e-12 * want.abs().max(1.0), "z = {z}: {got} vs {want}");
        }
        // Far beyond underflow, the textbook asymptote −z²/2 − ln(−z) − ln √(2π) + ln(1 − 1/z² + 3/z⁴).
        for z in [-40.0f64, -100.0, -1e3] {
            let want = -0.5 * z * z - (-z).ln() - 0.5 * (2.0 * std::f64::consts::PI).ln() + (1.0 - 1.0 / (z * z) + 3.0 / z.powi(4)).ln();
            assert!((log_normal_cdf(z) - want).abs() < 1e-9 * want.abs(), "z = {z}");
        }
    }

    #[test]
    fn log_expected_improvement_matches_ei_and_stays_finite_far_away() {
        // Where EI is representable, log EI is its log, on both sides of the branch at z = −1
        // and at the series' edge t = 25.
        for (m, s) in [(0.0, 1.0), (0.3, 1.0), (1.0, 0.999), (1.01, 1.0), (3.0, 0.5), (12.0, 0.5), (24.9, 1.0), (25.1, 1.0), (30.0, 1.0)] {
            let (v, _, _) = log_expected_improvement(m, s, 0.0);
            let ei = expected_improvement(m, s, 0.0);
            assert!(rel(v, ei.ln()) < 1e-9, "m {m} s {s}: {v} vs {}", ei.ln());
        }
        // Beyond where EI underflows (and on both sides of t = 25): the closed form
        // log(z·Φ(z) + φ(z)) evaluated by mpmath at 50 digits.
        for (z, want) in [
            (-5.0, -16.744_301_162_660_99),
            (-25.0, -319.861_463_581_495_95),
            (-26.0, -345.439_546_722_318),
            (-40.0, -808.298_568_356_62),
            (-100.0, -5_010.129_578_800_25),
        ] {
            let (got, _, _) = log_expected_improvement(-z, 1.0, 0.0);
            assert!(rel(got, want) < 1e-12, "z = {z}: {got} vs {want}");
        }
        assert!(log_expected_improvement(101.0, 1.0, 0.0).0 < log_expected_improvement(100.0, 1.0, 0.0).0);
    }

    #[test]
    fn log_expected_improvement_derivatives_match_finite_differences() {
        for (m, s) in [(-0.5, 0.7), (0.4, 1.3), (2.0, 1.0), (8.0, 0.3), (26.0, 1.0), (60.0, 2.0)] {
            let (_, dm, ds) = log_expected_improvement(m, s, 0.1);
            let h = 1e-6;
            let fd_m = (log_expected_improvement(m + h, s, 0.1).0 - log_expected_improvement(m - h, s, 0.1).0) / (2.0 * h);
            let fd_s = (log_expected_improvement(m, s + h, 0.1).0 - log_expected_improvement(m, s - h, 0.1).0) / (2.0 * h);
            assert!((dm - fd_m).abs() < 1e-5 * (1.0 + fd_m.abs()), "m {m} s {s}: {dm} vs {fd_m}");
            assert!((ds - fd_s).abs() < 1e-5 * (1.0 + fd_s.abs()), "m {m} s {s}: {ds} vs {fd_s}");
        }
    }

    fn rel(a: f64, b: f64) -> f64 {
        ((a - b) / b).abs()
    }

    #[test]
    fn known_values_to_1e12() {
        // Reference values from the closed forms / high-precision tables.
        assert!(rel(normal_cdf(1.959963984540054), 0.975) < 1e-13);
        assert!(rel(normal_cdf(-8.0), 6.220960574271785e-16) < 1e-12);
        assert!(rel(normal_cdf(-20.0), 2.753624118606233e-89) < 1e-12);
        assert!(rel(normal_quantile(0.975), 1.959963984540054) < 1e-13);
        assert!(rel(normal_quantile(1e-10), -6.361340902404056) < 1e-12);
        assert!(normal_quantile(0.5).abs() < 1e-15);
        assert!(rel(normal_pdf(1.0), 0.24197072451914337) < 1e-15);
    }

    #[test]
    fn quantile_inverts_cdf_across_the_range_and_tails() {
        for k in 1..300 {
            let p = 10f64.powi(-k);
            assert!(rel(normal_cdf(normal_quantile(p)), p) < 1e-12, "p = {p}");
        }
        for i in 1..1000 {
            let p = i as f64 / 1000.0;
            assert!((normal_cdf(normal_quantile(p)) - p).abs() < 1e-14, "p = {p}");
        }
    }

    #[test]
    fn expected_improvement_matches_numerical_integration() {
        let (m, s, best) = (0.3, 0.7, 0.1);
        // Trapezoid on a fine grid of E[max(0, best - y)].
        let n = 200_000;
        let (lo, hi) = (m - 12.0 * s, best);
        let h = (hi - lo) / n as f64;
        let f = |y: f64| (best - y) * normal_pdf((y - m) / s) / s;
        let integral = h * ((1..n).map(|i| f(lo + i as f64 * h)).sum::<f64>() + 0.5 * (f(lo) + f(hi)));
        assert!(rel(expected_improvement(m, s, best), integral) < 1e-8);
        assert_eq!(expected_improvement(1.0, 0.0, 0.5), 0.0);
    }
}
