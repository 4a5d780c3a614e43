//! The blocked routines against naive loops, bit for bit, on every tile path.

use super::affine::affine_rows_portable;
use super::*;

#[test]
fn affine_rows_gives_the_bits_of_one_dot_per_element_on_every_path() {
    // Rows of 1 to 9 (tails of every length, no whole chunk at all), batches and units
    // that fill no tile, one tile, and tiles plus a remainder.
    let value = |k: usize| ((k * 7919) % 1009) as f64 / 97.0 - 5.0 + 1e-9 * k as f64;
    for (n, m, len) in [(1, 1, 1), (3, 5, 4), (2, 4, 8), (7, 9, 9), (5, 128, 68), (4, 3, 2)] {
        let a: Vec<f64> = (0..n * len).map(value).collect();
        let w: Vec<f64> = (0..m * len).map(|k| value(k + 31)).collect();
        let bias: Vec<f64> = (0..m).map(|k| value(k + 7)).collect();
        let expected: Vec<u64> = (0..n * m)
            .map(|e| (bias[e % m] + crate::gp::dot(&w[(e % m) * len..(e % m + 1) * len], &a[(e / m) * len..(e / m + 1) * len])).to_bits())
            .collect();
        let mut out = Vec::new();
        affine_rows(&a, (n, len), &w, &bias, &mut out);
        assert_eq!(out.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), expected, "chosen path, {n} × {m} × {len}");
        let mut portable = vec![0.0; n * m];
        affine_rows_portable(&a, (n, len), &w, &bias, &mut portable);
        assert_eq!(portable.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), expected, "portable path, {n} × {m} × {len}");
    }
}

/// A kernel-like matrix with a small ridge (far from diagonal, so rounding shows).
pub(crate) fn kernel_matrix(n: usize) -> Vec<f64> {
    let x: Vec<f64> = (0..n).map(|i| ((i * 7919) % 101) as f64 / 37.0).collect();
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            a[i * n + j] = (-(x[i] - x[j]).powi(2)).exp();
        }
        a[i * n + i] += 1e-3;
    }
    a
}

fn same_bits<R: Real>(a: &[R], b: &[R]) -> bool {
    // (f32 → f64 is exact, so equal f64 bits are equal f32 bits.)
    a.len() == b.len() && a.iter().zip(b).all(|(p, q)| p.to_f64().to_bits() == q.to_f64().to_bits())
}

fn cast<R: Real>(v: &[f64]) -> Vec<R> {
    v.iter().map(|&x| R::from_f64(x)).collect()
}

// The naive sequential loops the blocked ones must equal bit for bit (the references).
fn naive_cholesky<R: Real>(a: &[R], n: usize) -> Option<Vec<R>> {
    let mut l = vec![R::ZERO; n * n];
    for j in 0..n {
        for i in j..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k];
            }
            if i == j {
                if s <= R::ZERO || !s.is_finite() {
                    return None;
                }
                l[i * n + i] = s.sqrt();
            } else {
                l[i * n + j] = s / l[j * n + j];
            }
        }
    }
    Some(l)
}

fn naive_inverse_lower<R: Real>(l: &[R], n: usize) -> Vec<R> {
    let mut m = vec![R::ZERO; n * n];
    for j in 0..n {
        m[j * n + j] = R::ONE / l[j * n + j];
        for i in j + 1..n {
            let mut s = R::ZERO;
            for k in j..i {
                s += l[i * n + k] * m[k * n + j];
            }
            m[i * n + j] = -s / l[i * n + i];
        }
    }
    m
}

// Sizes around the tile (4), panel (32) and block (256) boundaries.
const SIZES: [usize; 12] = [1, 2, 3, 5, 8, 31, 32, 33, 67, 255, 257, 300];

/// Runs `check` once on every tile path this CPU has, each forced in turn (the widest is
/// what the other tests exercise; without forcing, the AVX2 and SSE2 tiles would go
/// untested on an AVX-512 machine).
pub(crate) fn on_every_path(check: impl Fn(Path)) {
    // One such test at a time: another one's reset must not end this one's forcing early.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for path in Path::available() {
        *forced::PATH.lock().unwrap_or_else(|e| e.into_inner()) = Some(path);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(path)));
        *forced::PATH.lock().unwrap_or_else(|e| e.into_inner()) = None;
        if let Err(panic) = outcome {
            std::panic::resume_unwind(panic);
        }
    }
}

#[test]
fn every_routine_equals_its_naive_sequential_loop_bit_for_bit_on_every_path() {
    on_every_path(every_routine_equals_its_naive_sequential_loop::<f64>);
}

#[test]
fn in_f32_every_routine_equals_its_naive_sequential_loop_bit_for_bit_on_every_path() {
    on_every_path(every_routine_equals_its_naive_sequential_loop::<f32>);
}

fn every_routine_equals_its_naive_sequential_loop<R: Real>(path: Path) {
    let zero = R::ZERO;
    for n in SIZES {
        let a: Vec<R> = cast(&kernel_matrix(n));
        let want_l = naive_cholesky(&a, n).unwrap();
        let mut l = Vec::new();
        assert!(cholesky(&a, n, &mut l));
        assert!(same_bits(&l, &want_l), "cholesky, n = {n}, {path:?}");

        let want_m = naive_inverse_lower(&l, n);
        let mut m = Vec::new();
        inverse_lower(&l, n, &mut m);
        assert!(same_bits(&m, &want_m), "L⁻¹, n = {n}, {path:?}");

        let mut want_inv = vec![zero; n * n];
        for i in 0..n {
            for j in 0..=i {
                let mut s = zero;
                for k in i..n {
                    s += m[k * n + i] * m[k * n + j];
                }
                (want_inv[i * n + j], want_inv[j * n + i]) = (s, s);
            }
        }
        let mut inv = Vec::new();
        inverse_from_lower_inverse(&m, n, &mut inv);
        assert!(same_bits(&inv, &want_inv), "K⁻¹, n = {n}, {path:?}");

        for d in [1, 3, 4, 9, 130] {
            let x: Vec<R> = cast(&(0..n * d).map(|v| ((v * 31 % 97) as f64 / 13.0).sin()).collect::<Vec<_>>());
            let mut want = vec![zero; n * n];
            for i in 0..n {
                for j in 0..n {
                    if i != j {
                        let mut s = zero;
                        for k in 0..d {
                            s += (x[i * d + k] - x[j * d + k]) * (x[i * d + k] - x[j * d + k]);
                        }
                        want[i * n + j] = s;
                    }
                }
            }
            assert!(same_bits(&squared_distances(&x, n, d), &want), "distances, n = {n}, d = {d}, {path:?}");
            let mut want = vec![zero; n * d];
            for i in 0..n {
                for c in 0..d {
                    let mut s = zero;
                    for j in 0..n {
                        s += a[i * n + j] * x[j * d + c];
                    }
                    want[i * d + c] = s;
                }
            }
            assert!(same_bits(&product(&a, &x, n, d), &want), "W·X, n = {n}, d = {d}, {path:?}");
            // d right-hand sides of L·X = B, and the distances from 7 other rows to x's.
            let mut want = x.clone();
            for i in 0..n {
                for c in 0..d {
                    let mut s = x[i * d + c];
                    for k in 0..i {
                        s -= l[i * n + k] * want[k * d + c];
                    }
                    want[i * d + c] = s / l[i * n + i];
                }
            }
            let mut solved = x.clone();
            solve_lower_many(&l, n, &mut solved, d);
            assert!(same_bits(&solved, &want), "L⁻¹B, n = {n}, q = {d}, {path:?}");
            // A prefix of the rows, then the rest (EI_MF's bounds, then its finished
            // queries): the bits of one solve.
            let split = n / 4 + 1;
            let mut in_two = x.clone();
            solve_lower_rows(&l, n, &mut in_two, d, 0..split.min(n));
            solve_lower_rows(&l, n, &mut in_two, d, split.min(n)..n);
            assert!(same_bits(&in_two, &want), "L⁻¹B in two parts at row {split}, n = {n}, q = {d}, {path:?}");
            let y: Vec<R> = cast(&(0..7 * d).map(|v| ((v * 17 % 89) as f64 / 11.0).cos()).collect::<Vec<_>>());
            let mut want = vec![zero; 7 * n];
            for c in 0..7 {
                for j in 0..n {
                    let mut s = zero;
                    for k in 0..d {
                        s += (y[c * d + k] - x[j * d + k]) * (y[c * d + k] - x[j * d + k]);
                    }
                    want[c * n + j] = s;
                }
            }
            assert!(same_bits(&cross_squared_distances(&y, 7, &x, n, d), &want), "cross distances, n = {n}, d = {d}, {path:?}");
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn a_job_split_across_threads_gives_the_bits_of_one_thread() {
    // A subtracting product that keeps a triangle, as the factorisations run, big enough
    // (400 × 400 × 420) to split into 64 pieces: a 1-thread pool does not split it, in 2-
    // and 4-thread pools the pieces are stolen across threads. All must equal the naive loop.
    let (n, depth) = (400, 420);
    let a: Vec<f64> = (0..n * depth).map(|v| ((v * 31 % 97) as f64 / 13.0).sin()).collect();
    let b: Vec<f64> = (0..n * depth).map(|v| ((v * 17 % 89) as f64 / 11.0).cos()).collect();
    let start: Vec<f64> = (0..n * n).map(|v| (v % 13) as f64 - 6.5).collect();
    let keep = |i: usize, j: usize| j <= i + 3;
    let mut want = start.clone();
    for i in 0..n {
        for j in 0..n {
            if keep(i, j) {
                let mut s = want[i * n + j];
                for k in 0..depth {
                    s -= a[i * depth + k] * b[j * depth + k];
                }
                want[i * n + j] = s;
            }
        }
    }
    for threads in [1, 2, 4] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let mut c = start.clone();
        pool.install(|| {
            let job = Accumulate {
                rows: 0..n,
                cols: 0..n,
                a: Operand::Rows(&a, depth),
                b: Operand::Rows(&b, depth),
                subtract: true,
                span: |_: Range<usize>, _: Range<usize>| 0..depth,
                keep,
            };
            accumulate::<_, Product, _, _>(&mut c, n, job);
        });
        assert!(same_bits(&c, &want), "{threads} threads");
    }
}

#[test]
fn reused_buffers_give_the_results_of_fresh_ones() {
    // A fit reuses its n × n buffers across epochs; whatever they held before (here NaN,
    // or a result of another size) must not leak into the new result.
    let n = 70;
    let a = kernel_matrix(n);
    let x: Vec<f64> = (0..n * 9).map(|v| ((v * 31 % 97) as f64 / 13.0).sin()).collect();
    let (mut l, mut m) = (Vec::new(), Vec::new());
    assert!(cholesky(&a, n, &mut l));
    inverse_lower(&l, n, &mut m);
    let (mut fresh_inv, mut fresh_d2) = (Vec::new(), Vec::new());
    inverse_from_lower_inverse(&m, n, &mut fresh_inv);
    squared_distances_into(&x, n, 9, &mut fresh_d2);
    for dirty in [vec![f64::NAN; n * n], vec![3.5; (n - 1) * (n - 1)]] {
        let (mut inv, mut d2) = (dirty.clone(), dirty.clone());
        inverse_from_lower_inverse(&m, n, &mut inv);
        squared_distances_into(&x, n, 9, &mut d2);
        assert!(same_bits(&inv, &fresh_inv) && same_bits(&d2, &fresh_d2), "from a buffer of {}", dirty.len());
        let mut m_again = dirty.clone();
        inverse_lower(&l, n, &mut m_again);
        assert!(same_bits(&m_again, &m), "L⁻¹ from a buffer of {}", dirty.len());
    }
}

#[test]
fn the_inverse_inverts_and_indefinite_matrices_are_refused() {
    let n = 70;
    let a = kernel_matrix(n);
    let (mut l, mut m, mut inv) = (Vec::new(), Vec::new(), Vec::new());
    assert!(cholesky(&a, n, &mut l));
    inverse_lower(&l, n, &mut m);
    inverse_from_lower_inverse(&m, n, &mut inv);
    let mut worst = 0.0f64;
    for i in 0..n {
        for j in 0..n {
            let v: f64 = (0..n).map(|k| a[i * n + k] * inv[k * n + j]).sum();
            worst = worst.max((v - if i == j { 1.0 } else { 0.0 }).abs());
        }
    }
    assert!(worst < 1e-8, "‖A·A⁻¹ − I‖∞ = {worst}");
    let mut bad = kernel_matrix(40);
    bad[39 * 40 + 39] = -1.0;
    assert!(!cholesky(&bad, 40, &mut l));
    let nan = [1.0, f64::NAN, f64::NAN, 1.0];
    assert!(!cholesky(&nan, 2, &mut l));
}
