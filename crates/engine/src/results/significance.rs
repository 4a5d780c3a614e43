//! Statistics of critical-difference diagrams (Demšar 2006, as drawn by Ismail Fawaz et al.'s
//! `cd-diagram` and used by DyHPO, Fig. 4): the Friedman test over methods × tasks, then
//! pairwise Wilcoxon signed-rank tests with Holm's step-down correction.
//!
//! Conventions follow SciPy so results can be compared: Friedman's χ² with the tie
//! correction; Wilcoxon with Pratt's treatment of zero differences, the exact null
//! distribution when n ≤ 50 without zeros or ties, otherwise the normal approximation with
//! tie correction and no continuity correction; two-sided p-values.
//!
//! The race's verdict uses its own [`signed_rank_test`] over seeds, exact with ties and zeros
//! (few seeds, often tied where runs reach the best at the same budget): docs/methods.md, "A
//! race's verdict".
//!
//! References: J. Demšar. *Statistical comparisons of classifiers over multiple data sets*.
//! JMLR 7, 2006. S. Holm. *A simple sequentially rejective multiple test procedure*. Scand. J.
//! Statist. 6, 1979. F. Wilcoxon. *Individual comparisons by ranking methods*. 1945.

use crate::stats::normal_cdf;

/// Ranks 1..n of `values` (ascending), ties sharing their mean rank; and Σ(t³ − t) over ties.
pub fn ranks(values: &[f64]) -> (Vec<f64>, f64) {
    let n = values.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut out = vec![0.0; n];
    let mut ties = 0.0;
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        let t = (j - i + 1) as f64;
        ties += t * t * t - t;
        for &k in &order[i..=j] {
            out[k] = (i + j) as f64 / 2.0 + 1.0;
        }
        i = j + 1;
    }
    (out, ties)
}

/// Regularised upper incomplete gamma Q(a, x) (Numerical Recipes §6.2: series below a + 1,
/// continued fraction above).
pub fn gamma_q(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let log_prefactor = -x + a * libm::log(x) - libm::lgamma(a);
    if x < a + 1.0 {
        let (mut sum, mut term, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..1000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-16 {
                break;
            }
        }
        1.0 - sum * libm::exp(log_prefactor)
    } else {
        // Modified Lentz on the continued fraction.
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..1000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-16 {
                break;
            }
        }
        libm::exp(log_prefactor) * h
    }
}

/// Survival function of χ² with `df` degrees of freedom.
pub fn chi2_sf(x: f64, df: f64) -> f64 {
    gamma_q(df / 2.0, x / 2.0)
}

/// Friedman's test: `scores[task][method]`; returns (χ², p-value).
pub fn friedman(scores: &[Vec<f64>]) -> (f64, f64) {
    let n = scores.len() as f64;
    let k = scores.first().map_or(0, Vec::len);
    let kf = k as f64;
    let mut rank_sums = vec![0.0; k];
    let mut ties = 0.0;
    for row in scores {
        let (r, t) = ranks(row);
        ties += t;
        for (s, v) in rank_sums.iter_mut().zip(r) {
            *s += v;
        }
    }
    let ssbn: f64 = rank_sums.iter().map(|r| r * r).sum();
    let chi2 = 12.0 / (n * kf * (kf + 1.0)) * ssbn - 3.0 * n * (kf + 1.0);
    let correction = 1.0 - ties / (n * kf * (kf * kf - 1.0));
    let chi2 = if correction > 0.0 { chi2 / correction } else { 0.0 };
    (chi2, chi2_sf(chi2, kf - 1.0))
}

/// Wilcoxon's signed-rank test on paired samples (two-sided); returns (T = min(R⁺, R⁻), p).
/// All differences zero gives p = 1.
pub fn wilcoxon(a: &[f64], b: &[f64]) -> (f64, f64) {
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let n = d.len();
    let (r, ties) = ranks(&d.iter().map(|v| v.abs()).collect::<Vec<_>>());
    let zeros = d.iter().filter(|v| **v == 0.0).count();
    let r_plus: f64 = d.iter().zip(&r).filter(|(v, _)| **v > 0.0).map(|(_, r)| r).sum();
    let r_minus: f64 = d.iter().zip(&r).filter(|(v, _)| **v < 0.0).map(|(_, r)| r).sum();
    let t = r_plus.min(r_minus);
    if zeros == n {
        return (t, 1.0);
    }
    if n <= 50 && zeros == 0 && ties == 0.0 {
        return (t, (2.0 * exact_signed_rank_cdf(n, t as usize)).min(1.0));
    }
    let nf = n as f64;
    let z0 = zeros as f64;
    let mut mean = nf * (nf + 1.0) / 4.0;
    let mut var = nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0;
    // Pratt: zeros are ranked, then dropped.
    mean -= z0 * (z0 + 1.0) / 4.0;
    var -= z0 * (z0 + 1.0) * (2.0 * z0 + 1.0) / 24.0;
    // Tie correction over the non-zero differences only (as SciPy).
    let nonzero_ties = ranks(&d.iter().filter(|v| **v != 0.0).map(|v| v.abs()).collect::<Vec<_>>()).1;
    var -= nonzero_ties / 48.0;
    if var <= 0.0 {
        return (t, 1.0);
    }
    let z = (t - mean) / var.sqrt();
    (t, (2.0 * normal_cdf(-z.abs())).min(1.0))
}

/// Wilcoxon's signed-rank test of paired differences `d` (two-sided), as the race's verdict
/// uses it: zero differences are dropped (Wilcoxon's own rule), the rest ranked by |d| with
/// tied values sharing their mean rank. Up to [`EXACT_UP_TO`] non-zero differences the p-value
/// is exact: the distribution of R⁺ over all 2ⁿ sign assignments of the observed ranks (the
/// conditional null, exact with ties too); above, the normal approximation with the tie
/// correction of the variance and no continuity correction.
pub fn signed_rank_test(d: &[f64]) -> SignedRank {
    let nonzero: Vec<f64> = d.iter().copied().filter(|v| *v != 0.0).collect();
    let n = nonzero.len();
    let (r, ties) = ranks(&nonzero.iter().map(|v| v.abs()).collect::<Vec<_>>());
    let r_plus: f64 = nonzero.iter().zip(&r).filter(|(v, _)| **v > 0.0).map(|(_, r)| r).sum();
    let r_minus = (n * (n + 1)) as f64 / 2.0 - r_plus;
    let mut test = SignedRank { n, r_plus, r_minus, p: 1.0, exact: n <= EXACT_UP_TO };
    if n == 0 {
        return test;
    }
    if test.exact {
        // Mean ranks are multiples of ½: doubled, every rank and sum is an integer.
        let doubled: Vec<usize> = r.iter().map(|x| (2.0 * x).round() as usize).collect();
        let max: usize = doubled.iter().sum();
        let mut counts = vec![0.0f64; max + 1];
        counts[0] = 1.0;
        for &k in &doubled {
            for s in (k..=max).rev() {
                counts[s] += counts[s - k];
            }
        }
        let observed = (2.0 * r_plus).round() as usize;
        let total = libm::pow(2.0, n as f64);
        let lower: f64 = counts[..=observed].iter().sum::<f64>() / total;
        let upper: f64 = counts[observed..].iter().sum::<f64>() / total;
        test.p = (2.0 * lower.min(upper)).min(1.0);
        return test;
    }
    let nf = n as f64;
    let mean = nf * (nf + 1.0) / 4.0;
    let var = nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0 - ties / 48.0;
    if var > 0.0 {
        test.p = (2.0 * normal_cdf(-(r_plus - mean).abs() / var.sqrt())).min(1.0);
    }
    test
}

/// Non-zero differences up to which [`signed_rank_test`] computes the exact p-value (its
/// counts stay exact integers in an f64 up to 2⁵³).
pub const EXACT_UP_TO: usize = 50;

/// What [`signed_rank_test`] found.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SignedRank {
    /// Non-zero differences (the pairs that were not tied).
    pub n: usize,
    /// Sum of the ranks of the positive differences.
    pub r_plus: f64,
    /// Sum of the ranks of the negative differences.
    pub r_minus: f64,
    /// Two-sided p-value (1 when every difference is zero).
    #[serde(deserialize_with = "crate::results::metrics::nan_as_null::number")]
    pub p: f64,
    /// Whether `p` is exact (else the normal approximation).
    pub exact: bool,
}

/// P(W ≤ t) for the signed-rank statistic of n untied, non-zero differences.
fn exact_signed_rank_cdf(n: usize, t: usize) -> f64 {
    let max = n * (n + 1) / 2;
    // counts[s]: subsets of {1..n} with rank sum s.
    let mut counts = vec![0.0f64; max + 1];
    counts[0] = 1.0;
    for k in 1..=n {
        for s in (k..=max).rev() {
            counts[s] += counts[s - k];
        }
    }
    let total = libm::pow(2.0, n as f64);
    counts[..=t.min(max)].iter().sum::<f64>() / total
}

/// Holm's step-down procedure: which of the hypotheses with p-values `p` are rejected at `alpha`.
pub fn holm(p: &[f64], alpha: f64) -> Vec<bool> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut reject = vec![false; m];
    for (i, &k) in order.iter().enumerate() {
        if p[k] <= alpha / (m - i) as f64 {
            reject[k] = true;
        } else {
            break;
        }
    }
    reject
}

/// Everything a critical-difference diagram shows.
#[derive(Debug, Clone, PartialEq)]
pub struct CriticalDifference {
    /// Average rank of each method (1 = best).
    pub ranks: Vec<f64>,
    /// Friedman's χ² and p-value.
    pub friedman: (f64, f64),
    /// `different[i][j]`: the pair differs significantly (Wilcoxon + Holm at α).
    pub different: Vec<Vec<bool>>,
    /// Pairwise Wilcoxon p-values (uncorrected).
    pub p_values: Vec<Vec<f64>>,
}

/// The CD analysis of `losses[task][method]` (lower is better) at level `alpha`. When Friedman
/// does not reject, no pair is marked different.
pub fn critical_difference(losses: &[Vec<f64>], alpha: f64) -> CriticalDifference {
    let k = losses.first().map_or(0, Vec::len);
    let mut rank_sum = vec![0.0; k];
    for row in losses {
        for (s, r) in rank_sum.iter_mut().zip(ranks(row).0) {
            *s += r;
        }
    }
    let ranks_mean = rank_sum.iter().map(|s| s / losses.len().max(1) as f64).collect();
    let friedman = friedman(losses);
    let mut pairs = Vec::new();
    let mut p_values = vec![vec![1.0; k]; k];
    for i in 0..k {
        for j in i + 1..k {
            let a: Vec<f64> = losses.iter().map(|r| r[i]).collect();
            let b: Vec<f64> = losses.iter().map(|r| r[j]).collect();
            let p = wilcoxon(&a, &b).1;
            (p_values[i][j], p_values[j][i]) = (p, p);
            pairs.push((i, j, p));
        }
    }
    let reject = holm(&pairs.iter().map(|x| x.2).collect::<Vec<_>>(), alpha);
    let mut different = vec![vec![false; k]; k];
    if friedman.1 < alpha {
        for (&(i, j, _), r) in pairs.iter().zip(reject) {
            (different[i][j], different[j][i]) = (r, r);
        }
    }
    CriticalDifference { ranks: ranks_mean, friedman, different, p_values }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilcoxon_exact_matches_scipys_documented_example() {
        // SciPy's `wilcoxon` docs (Fisher's data, differences in plant height): T = 24,
        // two-sided exact p = 0.041259765625.
        let d = [6.0, 8.0, 14.0, 16.0, 23.0, 24.0, 28.0, 29.0, 41.0, -48.0, 49.0, 56.0, 60.0, -67.0, 75.0];
        let (t, p) = wilcoxon(&d, &[0.0; 15]);
        assert_eq!(t, 24.0);
        assert!((p - 0.041259765625).abs() < 1e-12, "{p}");
    }

    #[test]
    fn wilcoxon_with_zeros_and_ties_matches_scipys_normal_approximation() {
        // scipy.stats.wilcoxon(a, b, zero_method='pratt') (SciPy 1.17.1): T = 23.5,
        // p = 0.09720803211229022.
        let a = [1.0, 2.0, 0.0, 3.0, 3.0, 5.0, 0.0, 7.0, 2.0, 9.0, 4.0, 0.0, 6.0, 2.0];
        let b = [0.0, 1.0, 0.0, 1.0, 2.0, 6.0, 0.0, 1.0, 1.0, 2.0, 1.0, 1.0, 6.0, 4.0];
        let (t, p) = wilcoxon(&a, &b);
        assert_eq!(t, 23.5);
        assert!((p - 0.09720803211229022).abs() < 1e-12, "{p}");
    }

    #[test]
    fn signed_rank_test_matches_the_published_exact_value_without_ties() {
        // SciPy's `wilcoxon` docs (Fisher's data): R⁻ = 24, two-sided exact p = 0.041259765625.
        let d = [6.0, 8.0, 14.0, 16.0, 23.0, 24.0, 28.0, 29.0, 41.0, -48.0, 49.0, 56.0, 60.0, -67.0, 75.0];
        let t = signed_rank_test(&d);
        assert_eq!((t.n, t.r_minus, t.r_plus, t.exact), (15, 24.0, 96.0, true));
        assert!((t.p - 0.041259765625).abs() < 1e-12, "{}", t.p);
        // Published critical values (Wilcoxon's table): for n = 10, T ≤ 8 is significant at
        // 5 % two-sided and T = 9 is not; P(T ≤ 8) = 25/1024 one-sided.
        let d8 = [-1.0, -3.0, -4.0, 2.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]; // R⁻ = 8
        let d9 = [-2.0, -3.0, -4.0, 1.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]; // R⁻ = 9
        assert!((signed_rank_test(&d8).p - 50.0 / 1024.0).abs() < 1e-15, "{}", signed_rank_test(&d8).p);
        assert!(signed_rank_test(&d9).p > 0.05);
    }

    #[test]
    fn signed_rank_test_is_exact_with_ties_and_zeros_by_hand() {
        // d = (0, 1, 1, 2, −3): the zero is dropped; |d| = 1, 1, 2, 3 rank 1.5, 1.5, 3, 4, so
        // R⁺ = 6 and R⁻ = 4. Over the 16 sign assignments R⁺ takes 0, 1.5 (twice), 3 (twice),
        // 4, 4.5 (twice), 5.5 (twice), 6, 7 (twice), 8.5 (twice), 10: P(R⁺ ≥ 6) = 6/16, so
        // p = 2 · 6/16 = 0.75.
        let t = signed_rank_test(&[0.0, 1.0, 1.0, 2.0, -3.0]);
        assert_eq!((t.n, t.r_plus, t.r_minus, t.exact), (4, 6.0, 4.0, true));
        assert_eq!(t.p, 0.75);
        // Every seed better by the same amount: ten tied ranks of 5.5, R⁺ = 55 happens in
        // 1 of 1024 assignments, p = 2/1024.
        let t = signed_rank_test(&[-0.5; 10]);
        assert_eq!((t.r_plus, t.r_minus), (0.0, 55.0));
        assert_eq!(t.p, 2.0 / 1024.0);
        // Nothing but zeros: no evidence either way.
        let t = signed_rank_test(&[0.0; 4]);
        assert_eq!((t.n, t.p), (0, 1.0));
    }

    #[test]
    fn signed_rank_test_agrees_with_counting_every_sign_assignment() {
        // An independent count: enumerate all 2¹² sign assignments of tied mean ranks.
        let d = [0.3, -0.3, 0.3, 1.0, 2.0, -2.0, 2.0, 5.0, 0.0, 7.0, -7.0, 7.5, 9.0];
        let t = signed_rank_test(&d);
        let nonzero: Vec<f64> = d.iter().copied().filter(|v| *v != 0.0).collect();
        let (r, _) = ranks(&nonzero.iter().map(|v| v.abs()).collect::<Vec<_>>());
        let n = nonzero.len();
        let (mut low, mut high) = (0usize, 0usize);
        for mask in 0..1usize << n {
            let s: f64 = (0..n).filter(|i| mask >> i & 1 == 1).map(|i| r[i]).sum();
            low += usize::from(s <= t.r_plus + 1e-9);
            high += usize::from(s >= t.r_plus - 1e-9);
        }
        let p = (2.0 * low.min(high) as f64 / (1u64 << n) as f64).min(1.0);
        assert!(t.exact && (t.p - p).abs() < 1e-15, "{} vs {p}", t.p);
    }

    #[test]
    fn signed_rank_test_above_fifty_pairs_is_the_normal_approximation() {
        // 60 differences 1..60, all positive but the smallest ten: R⁻ = 55, R⁺ = 1775; mean
        // 915, variance 60·61·121/24 = 18452.5, z = 860/√18452.5 = 6.3310; p = 2Φ(−z).
        let d: Vec<f64> = (1..=60).map(|i| if i <= 10 { -(i as f64) } else { i as f64 }).collect();
        let t = signed_rank_test(&d);
        assert!(!t.exact && t.r_minus == 55.0);
        let z = 860.0 / 18452.5f64.sqrt();
        assert!((t.p - 2.0 * normal_cdf(-z)).abs() < 1e-15);
        // erfc(z/√2) = 2.436111642215679e-10 (Python's math.erfc), the same p.
        assert!((t.p / 2.436111642215679e-10 - 1.0).abs() < 1e-9, "{}", t.p);
    }

    #[test]
    fn friedman_matches_scipys_documented_example() {
        // SciPy's `friedmanchisquare` docs: χ² = 10.571428571428571, p = 0.005063414171757498.
        let before = [72.0, 96.0, 88.0, 92.0, 74.0, 76.0, 82.0];
        let after = [120.0, 120.0, 132.0, 120.0, 101.0, 96.0, 112.0];
        let five = [76.0, 95.0, 104.0, 96.0, 84.0, 72.0, 76.0];
        let scores: Vec<Vec<f64>> = (0..7).map(|i| vec![before[i], after[i], five[i]]).collect();
        let (chi2, p) = friedman(&scores);
        assert!((chi2 - 10.571428571428571).abs() < 1e-12, "{chi2}");
        assert!((p - 0.005063414171757498).abs() < 1e-12, "{p}");
    }

    #[test]
    fn chi2_survival_known_values() {
        // χ²₁ at 3.841458820694124 is the 5% point; χ²₁₀ at 18.307038053275146 too.
        assert!((chi2_sf(3.841458820694124, 1.0) - 0.05).abs() < 1e-12);
        assert!((chi2_sf(18.307038053275146, 10.0) - 0.05).abs() < 1e-12);
        assert!((chi2_sf(2.0, 2.0) - (-1.0f64).exp()).abs() < 1e-14);
    }

    #[test]
    fn holm_steps_down_and_stops_at_the_first_acceptance() {
        // m = 4: thresholds 0.0125, 0.0167, 0.025, 0.05.
        assert_eq!(holm(&[0.01, 0.04, 0.03, 0.005], 0.05), vec![true, false, false, true]);
        assert_eq!(holm(&[0.01, 0.015, 0.02, 0.04], 0.05), vec![true, true, true, true]);
    }

    #[test]
    fn cd_separates_a_dominant_method_only() {
        // 12 tasks, method 0 always best, 1 and 2 interleaved.
        let losses: Vec<Vec<f64>> = (0..12).map(|t| vec![0.0, 1.0 + (t % 2) as f64, 2.0 - (t % 2) as f64]).collect();
        let cd = critical_difference(&losses, 0.05);
        assert_eq!(cd.ranks, vec![1.0, 2.5, 2.5]);
        assert!(cd.different[0][1] && cd.different[0][2] && !cd.different[1][2], "{:?}", cd.different);
    }
}
