//! Our Cholesky, solves and inverse against nalgebra's on the matrices a GP factors (an RBF
//! kernel matrix plus noise), timed by a clock the caller gives (native or the browser's), so
//! the same measurement runs in the CLI (`hpo bench-linalg`) and in wasm
//! (`tests/wasm_linalg_bench.rs`). The decision it informs is in docs/benchmarks.md.

use nalgebra::{DMatrix, DVector};
use rand::{Rng, SeedableRng};

use crate::fidelity::dyhpo::deep_kernel::{
    nll_and_grad_observed, nll_and_grad_observed_f32, CurvePoint, DeepKernel, DeepKernelSettings, LikelihoodBuffers, Phase, Precision,
};

use crate::gp::blocked;
use crate::gp::linalg::{cholesky_into, inverse_from_cholesky_into, solve_lower, solve_upper_t};

/// Milliseconds per operation of one library at one size (median of the repetitions).
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    /// Matrix size.
    pub n: usize,
    /// Which implementation.
    pub library: &'static str,
    /// Cholesky factorisation.
    pub cholesky_ms: f64,
    /// Solving K·x = y with the factor (two triangular solves).
    pub solve_ms: f64,
    /// K⁻¹ from the factor.
    pub inverse_ms: f64,
}

/// A GP's kernel matrix: RBF over `n` random points in 7 dimensions (LCBench's), unit
/// signal, lengthscale 0.5, noise 1e-3 on the diagonal; row-major.
pub fn kernel_matrix(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let x: Vec<[f64; 7]> = (0..n).map(|_| std::array::from_fn(|_| rng.random_range(0.0..1.0))).collect();
    let mut k = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            let d2: f64 = x[i].iter().zip(&x[j]).map(|(a, b)| (a - b) * (a - b)).sum();
            k[i * n + j] = libm::exp(-0.5 * d2 / 0.25) + if i == j { 1e-3 } else { 0.0 };
        }
    }
    k
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Times `f` `reps` times with `now` (seconds); the median in milliseconds.
pub fn time(reps: usize, now: &dyn Fn() -> f64, mut f: impl FnMut()) -> f64 {
    median(
        (0..reps)
            .map(|_| {
                let t0 = now();
                f();
                (now() - t0) * 1000.0
            })
            .collect(),
    )
}

/// Our routines (the dot-product ones and the cache-blocked ones) and nalgebra's at size `n`,
/// with the largest difference between our factors and nalgebra's (they must agree to
/// rounding).
pub fn measure(n: usize, reps: usize, now: &dyn Fn() -> f64) -> (Vec<Timing>, f64) {
    let k = kernel_matrix(n, n as u64);
    let y: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
    // Ours.
    let mut l = Vec::new();
    let cholesky_ms = time(reps, now, || {
        assert!(cholesky_into(&k, n, &mut l));
    });
    let solve_ms = time(reps, now, || {
        let mut b = y.clone();
        solve_lower(&l, n, &mut b);
        solve_upper_t(&l, n, &mut b);
        std::hint::black_box(&b);
    });
    let (mut mt, mut inv) = (Vec::new(), Vec::new());
    let inverse_ms = time(reps, now, || inverse_from_cholesky_into(&l, n, &mut mt, &mut inv));
    let ours = Timing { n, library: "ours", cholesky_ms, solve_ms, inverse_ms };
    // Ours, cache-blocked (what the faithful DyHPO uses; the solves are the same).
    let mut lb = Vec::new();
    let cholesky_ms = time(reps, now, || {
        assert!(blocked::cholesky(&k, n, &mut lb));
    });
    let (mut m_inv, mut inv) = (Vec::new(), Vec::new());
    let inverse_ms = time(reps, now, || {
        blocked::inverse_lower(&lb, n, &mut m_inv);
        blocked::inverse_from_lower_inverse(&m_inv, n, &mut inv);
    });
    let ours_blocked = Timing { n, library: "ours-blocked", cholesky_ms, solve_ms, inverse_ms };
    // nalgebra (column-major; the matrix is symmetric, so the same data).
    let m = DMatrix::from_row_slice(n, n, &k);
    let mut factor = None;
    let cholesky_ms = time(reps, now, || factor = Some(m.clone().cholesky().expect("positive definite")));
    let factor = factor.expect("timed at least once");
    let yv = DVector::from_column_slice(&y);
    let solve_ms = time(reps, now, || {
        std::hint::black_box(factor.solve(&yv));
    });
    let inverse_ms = time(reps, now, || {
        std::hint::black_box(factor.inverse());
    });
    let na = Timing { n, library: "nalgebra-0.34", cholesky_ms, solve_ms, inverse_ms };
    let lna = factor.l();
    let diff = (0..n).flat_map(|i| (0..=i).map(move |j| (i, j))).map(|(i, j)| (l[i * n + j] - lna[(i, j)]).abs()).fold(0.0, f64::max);
    let diff_blocked = l.iter().zip(&lb).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    (vec![ours, ours_blocked, na], diff.max(diff_blocked))
}

/// Where one epoch of the faithful DyHPO's fit goes: one likelihood-and-gradient evaluation of
/// the deep kernel (default settings) on `n` observations shaped like LCBench's (7
/// hyperparameters, curves of 50 epochs), with the n × n algebra in `precision`, in
/// milliseconds per [`Phase`] (medians of `reps`), in the order they run.
pub fn dyhpo_epoch_phases(n: usize, reps: usize, precision: Precision, now: &dyn Fn() -> f64) -> Vec<(Phase, f64)> {
    let mut rng = crate::optimizer::job_rng(n as u64, "dyhpo-epoch");
    let settings = DeepKernelSettings::default();
    let model = DeepKernel::new(7, 50, &settings, &mut rng);
    let points: Vec<CurvePoint> = (0..n)
        .map(|_| {
            let b = rng.random_range(1..=50usize);
            let curve = (0..50).map(|k| if k + 1 < b { rng.random_range(-1.0..1.0) } else { 0.0 }).collect();
            CurvePoint { x: (0..7).map(|_| rng.random_range(0.0..1.0)).collect(), budget: b as f64 / 51.0, curve }
        })
        .collect();
    let y: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
    let mut samples: Vec<Vec<(Phase, f64)>> = Vec::new();
    // Kept across evaluations, as a fit keeps them across its epochs.
    let (mut buffers, mut buffers_f32) = (LikelihoodBuffers::default(), LikelihoodBuffers::<f32>::default());
    for _ in 0..reps {
        let mut last = now();
        let mut phases = Vec::new();
        let mut observe = |phase| {
            let t = now();
            phases.push((phase, (t - last) * 1000.0));
            last = t;
        };
        let evaluated = match precision {
            Precision::F64 => nll_and_grad_observed(&model, &points, &y, &mut buffers, &mut observe),
            Precision::F32 => nll_and_grad_observed_f32(&model, &points, &y, &mut buffers_f32, &mut observe),
        };
        assert!(evaluated.is_some(), "the kernel matrix factors");
        samples.push(phases);
    }
    (0..samples[0].len()).map(|k| (samples[0][k].0, median(samples.iter().map(|s| s[k].1).collect()))).collect()
}

/// One line "Phase=ms … total=ms" (what `hpo bench-linalg` and the wasm bench print, and
/// scripts/bench-linalg.sh reads).
pub fn phase_line(phases: &[(Phase, f64)]) -> String {
    let total: f64 = phases.iter().map(|p| p.1).sum();
    let parts: Vec<String> = phases.iter().map(|(p, ms)| format!("{p:?}={ms:.2}")).collect();
    format!("{} total={total:.2}", parts.join(" "))
}

/// A hash (FNV-1a over the bits) of every cache-blocked routine's output at n = 300 — past
/// a 256-wide block and many 32-wide panels. Natively (AVX-512, AVX2 or SSE2 tiles, whichever
/// the CPU has) and in wasm (simd128) it must be the same number:
/// [`BLOCKED_FINGERPRINT`], asserted by a unit test and by `tests/wasm_engine.rs`.
pub fn blocked_fingerprint() -> u64 {
    let x: Vec<f64> = (0..300 * 130).map(|v| libm::sin((v * 31 % 97) as f64 / 13.0)).collect();
    let (mut hash, d2) = fingerprint_of::<f64>(&kernel_matrix(300, 7), &x);
    // A dense layer of 67 units (a remainder past the four-unit tiles) on rows of 130 (a tail).
    let mut affine = Vec::new();
    blocked::affine_rows(&x, (300, 130), &x[..67 * 130], &d2[..67], &mut affine);
    fnv(&mut hash, &affine);
    hash
}

/// [`blocked_fingerprint`] of the same routines in f32 (the inputs rounded to f32; no dense
/// layer, which the network runs in f64): [`BLOCKED_FINGERPRINT_F32`] on every platform.
pub fn blocked_fingerprint_f32() -> u64 {
    let cast = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<f32>>();
    let x: Vec<f64> = (0..300 * 130).map(|v| libm::sin((v * 31 % 97) as f64 / 13.0)).collect();
    fingerprint_of::<f32>(&cast(&kernel_matrix(300, 7)), &cast(&x)).0
}

/// The hash of the factor, L⁻¹, K⁻¹, the distances, W·X, L⁻¹X and the cross-distances of the
/// 300 × 300 `k` and the 300 × 130 `x`; and the distances.
fn fingerprint_of<R: blocked::Real>(k: &[R], x: &[R]) -> (u64, Vec<R>) {
    let n = 300;
    let (mut l, mut m, mut inv) = (Vec::new(), Vec::new(), Vec::new());
    assert!(blocked::cholesky(k, n, &mut l));
    blocked::inverse_lower(&l, n, &mut m);
    blocked::inverse_from_lower_inverse(&m, n, &mut inv);
    let d2 = blocked::squared_distances(x, n, 130);
    let wx = blocked::product(&inv, x, n, 130);
    let mut solved = x.to_vec();
    blocked::solve_lower_many(&l, n, &mut solved, 130);
    let cross = blocked::cross_squared_distances(&x[..40 * 130], 40, x, n, 130);
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for part in [&l, &m, &inv, &d2, &wx, &solved, &cross] {
        fnv(&mut hash, part);
    }
    (hash, d2)
}

/// FNV-1a over the f64 bits of each value (f32 widens exactly).
fn fnv<R: blocked::Real>(hash: &mut u64, values: &[R]) {
    for v in values {
        for byte in v.to_f64().to_bits().to_le_bytes() {
            *hash = (*hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3);
        }
    }
}

/// What [`blocked_fingerprint`] returns on every platform.
pub const BLOCKED_FINGERPRINT: u64 = 0xe0ee_1d3b_127c_febe;

/// What [`blocked_fingerprint_f32`] returns on every platform.
pub const BLOCKED_FINGERPRINT_F32: u64 = 0xc2a0_8369_f322_77f8;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_blocked_routines_give_the_recorded_bits_on_every_path() {
        blocked::tests::on_every_path(|path| {
            let got = blocked_fingerprint();
            assert_eq!(got, BLOCKED_FINGERPRINT, "{got:#x} on {path:?}");
            let got = blocked_fingerprint_f32();
            assert_eq!(got, BLOCKED_FINGERPRINT_F32, "f32: {got:#x} on {path:?}");
        });
    }

    #[test]
    fn ours_and_nalgebra_agree_on_a_kernel_matrix() {
        let origin = std::time::Instant::now();
        let (timings, diff) = measure(60, 1, &|| origin.elapsed().as_secs_f64());
        assert_eq!(timings.len(), 3);
        assert!(diff < 1e-10, "factors differ by {diff}");
    }
}
