//! Box-constrained L-BFGS: minimises a smooth f over lo ≤ x ≤ hi, the job scipy's L-BFGS-B
//! does in the references (Optuna's GPSampler fits its kernel and searches its acquisition
//! with it; BoTorch's `optimize_acqf` too). argmin has no bounded quasi-Newton method, so it
//! is written here, in its projected form (Kim, Sra & Dhillon 2010; the two-loop recursion of
//! Nocedal & Wright 2006, Alg. 7.4):
//!
//! - the variables at a bound whose gradient pushes outward are held (the active set); the
//!   others take the L-BFGS direction computed on them alone, or steepest descent when that
//!   is not a descent direction;
//! - the step follows the projected path P(x + α·d), backtracking from α = 1 until the
//!   Armijo condition holds on the actual change f(P(x + α·d)) − f(x) ≤ c₁·gᵀ(P(x + α·d) − x);
//! - a pair (s, y) is kept only with positive curvature (sᵀy > ε·yᵀy), so H stays positive
//!   definite.
//!
//! It stops, as scipy's does, when the projected gradient's largest entry is at most `pgtol`
//! or the relative decrease of f is at most `ftol`; or after `max_iters` iterations. Only
//! arithmetic and comparisons: the same bits natively and in wasm.

/// Stopping rules and memory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Largest |projected gradient| at which to stop.
    pub pgtol: f64,
    /// Relative decrease of f, (f_k − f_{k+1}) / max(|f_k|, |f_{k+1}|, 1), at which to stop.
    pub ftol: f64,
    /// Most iterations.
    pub max_iters: usize,
    /// Pairs (s, y) remembered.
    pub memory: usize,
}

impl Default for Settings {
    /// scipy's defaults (`pgtol` 1e-5, `factr` 1e7, i.e. `ftol` ≈ 2.2e-9, m = 10) with 200
    /// iterations.
    fn default() -> Self {
        Settings { pgtol: 1e-5, ftol: 1e7 * f64::EPSILON, max_iters: 200, memory: 10 }
    }
}

/// Where a minimisation ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Minimum {
    /// The best point found (within the bounds).
    pub x: Vec<f64>,
    /// f there.
    pub value: f64,
    /// Iterations taken.
    pub iterations: usize,
    /// Evaluations of f and its gradient.
    pub evaluations: usize,
}

/// Armijo's sufficient-decrease constant.
const ARMIJO: f64 = 1e-4;
/// Most halvings of a step before the search gives up.
const MAX_BACKTRACKS: usize = 30;

/// Minimises `f` (its value and gradient into the second argument; `None` where it cannot be
/// evaluated, which the line search backs away from) over the box `bounds` from `start`
/// (projected into the box first). `None` if f cannot be evaluated at the start.
pub fn minimise(
    mut f: impl FnMut(&[f64], &mut [f64]) -> Option<f64>,
    start: &[f64],
    bounds: &[(f64, f64)],
    settings: &Settings,
) -> Option<Minimum> {
    let n = start.len();
    let project = |x: &mut [f64]| {
        for (v, &(lo, hi)) in x.iter_mut().zip(bounds) {
            *v = v.clamp(lo, hi);
        }
    };
    let mut x = start.to_vec();
    project(&mut x);
    let mut g = vec![0.0; n];
    let mut value = f(&x, &mut g).filter(|v| v.is_finite())?;
    let mut evaluations = 1;
    let (mut s_hist, mut y_hist, mut rho): (Vec<Vec<f64>>, Vec<Vec<f64>>, Vec<f64>) = (Vec::new(), Vec::new(), Vec::new());
    let (mut trial, mut trial_g, mut d) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let mut iterations = 0;
    while iterations < settings.max_iters {
        // Held: at a bound with the gradient pointing out of the box.
        let held: Vec<bool> =
            x.iter().zip(&g).zip(bounds).map(|((&v, &gi), &(lo, hi))| (v <= lo && gi > 0.0) || (v >= hi && gi < 0.0)).collect();
        let projected_gradient =
            x.iter().zip(&g).zip(bounds).map(|((&v, &gi), &(lo, hi))| ((v - gi).clamp(lo, hi) - v).abs()).fold(0.0, f64::max);
        if projected_gradient <= settings.pgtol {
            break;
        }
        iterations += 1;
        two_loop(&g, &held, &s_hist, &y_hist, &rho, &mut d);
        let mut slope: f64 = d.iter().zip(&g).map(|(a, b)| a * b).sum();
        // Not a descent direction (or NaN): steepest descent, forgetting the pairs.
        if slope.is_nan() || slope >= 0.0 {
            for ((di, &gi), &h) in d.iter_mut().zip(&g).zip(&held) {
                *di = if h { 0.0 } else { -gi };
            }
            slope = d.iter().zip(&g).map(|(a, b)| a * b).sum();
            s_hist.clear();
            y_hist.clear();
            rho.clear();
        }
        if slope.is_nan() || slope >= 0.0 {
            break;
        }
        // The first step (no curvature known yet) has unit length.
        let mut alpha = if s_hist.is_empty() { (1.0 / d.iter().map(|v| v * v).sum::<f64>().sqrt()).min(1.0) } else { 1.0 };
        let mut accepted = None;
        for _ in 0..MAX_BACKTRACKS {
            for ((t, &xi), &di) in trial.iter_mut().zip(&x).zip(&d) {
                *t = xi + alpha * di;
            }
            project(&mut trial);
            let change: f64 = trial.iter().zip(&x).zip(&g).map(|((t, xi), gi)| (t - xi) * gi).sum();
            if trial == x {
                break;
            }
            evaluations += 1;
            if let Some(v) = f(&trial, &mut trial_g).filter(|v| v.is_finite()) {
                if v <= value + ARMIJO * change {
                    accepted = Some(v);
                    break;
                }
            }
            alpha *= 0.5;
        }
        let Some(new_value) = accepted else { break };
        let s: Vec<f64> = trial.iter().zip(&x).map(|(a, b)| a - b).collect();
        let y: Vec<f64> = trial_g.iter().zip(&g).map(|(a, b)| a - b).collect();
        let sy: f64 = s.iter().zip(&y).map(|(a, b)| a * b).sum();
        let yy: f64 = y.iter().map(|v| v * v).sum();
        if sy > f64::EPSILON * yy {
            if s_hist.len() == settings.memory {
                s_hist.remove(0);
                y_hist.remove(0);
                rho.remove(0);
            }
            s_hist.push(s);
            y_hist.push(y);
            rho.push(1.0 / sy);
        }
        let decrease = (value - new_value) / value.abs().max(new_value.abs()).max(1.0);
        std::mem::swap(&mut x, &mut trial);
        std::mem::swap(&mut g, &mut trial_g);
        value = new_value;
        if decrease <= settings.ftol {
            break;
        }
    }
    Some(Minimum { x, value, iterations, evaluations })
}

/// d = −H·g on the free variables (H the L-BFGS inverse Hessian built from the pairs
/// restricted to them), 0 on the held ones.
fn two_loop(g: &[f64], held: &[bool], s_hist: &[Vec<f64>], y_hist: &[Vec<f64>], rho: &[f64], d: &mut [f64]) {
    let free_dot = |a: &[f64], b: &[f64]| -> f64 { a.iter().zip(b).zip(held).filter(|(_, &h)| !h).map(|((x, y), _)| x * y).sum() };
    for ((di, &gi), &h) in d.iter_mut().zip(g).zip(held) {
        *di = if h { 0.0 } else { gi };
    }
    let mut a = vec![0.0; s_hist.len()];
    for k in (0..s_hist.len()).rev() {
        a[k] = rho[k] * free_dot(&s_hist[k], d);
        for ((di, &yi), &h) in d.iter_mut().zip(&y_hist[k]).zip(held) {
            if !h {
                *di -= a[k] * yi;
            }
        }
    }
    if let (Some(s), Some(y)) = (s_hist.last(), y_hist.last()) {
        let (sy, yy) = (free_dot(s, y), free_dot(y, y));
        if sy > 0.0 && yy > 0.0 {
            let gamma = sy / yy;
            d.iter_mut().for_each(|v| *v *= gamma);
        }
    }
    for k in 0..s_hist.len() {
        let b = rho[k] * free_dot(&y_hist[k], d);
        for ((di, &si), &h) in d.iter_mut().zip(&s_hist[k]).zip(held) {
            if !h {
                *di += (a[k] - b) * si;
            }
        }
    }
    d.iter_mut().for_each(|v| *v = -*v);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// f(x) = Σ w_i (x_i − c_i)² + coupling·x₀x₁, whose box minimum is known in closed form
    /// when the coupling is 0: each coordinate at c_i clamped into its bounds.
    fn quadratic(c: &[f64], w: &[f64], coupling: f64) -> impl Fn(&[f64], &mut [f64]) -> Option<f64> {
        let (c, w) = (c.to_vec(), w.to_vec());
        move |x, g| {
            let mut v = 0.0;
            for i in 0..x.len() {
                v += w[i] * (x[i] - c[i]).powi(2);
                g[i] = 2.0 * w[i] * (x[i] - c[i]);
            }
            v += coupling * x[0] * x[1];
            g[0] += coupling * x[1];
            g[1] += coupling * x[0];
            Some(v)
        }
    }

    #[test]
    fn a_separable_quadratic_ends_at_its_clamped_centre() {
        let c = [2.0, -3.0, 0.25, 0.9];
        let w = [1.0, 100.0, 0.01, 3.0];
        let bounds = [(0.0, 1.0), (-1.0, 1.0), (0.0, 1.0), (0.0, 0.5)];
        let m =
            minimise(quadratic(&c, &w, 0.0), &[0.5, 0.0, 0.9, 0.1], &bounds, &Settings { pgtol: 1e-10, ..Settings::default() }).unwrap();
        let want = [1.0, -1.0, 0.25, 0.5];
        for (got, want) in m.x.iter().zip(want) {
            assert!((got - want).abs() < 1e-7, "{:?}", m.x);
        }
    }

    #[test]
    fn rosenbrock_is_solved_inside_and_against_a_bound() {
        let rosen = |x: &[f64], g: &mut [f64]| {
            let (a, b) = (x[0], x[1]);
            g[0] = -2.0 * (1.0 - a) - 400.0 * a * (b - a * a);
            g[1] = 200.0 * (b - a * a);
            Some((1.0 - a).powi(2) + 100.0 * (b - a * a).powi(2))
        };
        let tight = Settings { pgtol: 1e-9, ftol: 0.0, max_iters: 500, ..Settings::default() };
        let m = minimise(rosen, &[-1.2, 1.0], &[(-2.0, 2.0), (-2.0, 2.0)], &tight).unwrap();
        assert!((m.x[0] - 1.0).abs() < 1e-5 && (m.x[1] - 1.0).abs() < 1e-5, "{m:?}");
        // With b ≤ 0.5 the minimum is on that bound: a minimises (1 − a)² + 100(0.5 − a²)².
        let m = minimise(rosen, &[-1.2, 0.0], &[(-2.0, 2.0), (-2.0, 0.5)], &tight).unwrap();
        assert_eq!(m.x[1], 0.5);
        let da = -2.0 * (1.0 - m.x[0]) - 400.0 * m.x[0] * (0.5 - m.x[0] * m.x[0]);
        assert!(da.abs() < 1e-6, "{m:?}");
    }

    #[test]
    fn a_coupled_quadratic_meets_the_kkt_conditions() {
        let c = [0.8, 0.8, 0.1];
        let w = [1.0, 1.0, 5.0];
        let bounds = [(0.0, 0.6), (0.0, 1.0), (0.2, 1.0)];
        let f = quadratic(&c, &w, 1.5);
        let m = minimise(&f, &[0.0, 0.0, 1.0], &bounds, &Settings { pgtol: 1e-10, ..Settings::default() }).unwrap();
        let mut g = [0.0; 3];
        f(&m.x, &mut g);
        for ((x, g), (lo, hi)) in m.x.iter().zip(g).zip(bounds) {
            // Zero gradient inside, pointing outward at a bound.
            let ok = if *x <= lo {
                g >= -1e-9
            } else if *x >= hi {
                g <= 1e-9
            } else {
                g.abs() < 1e-7
            };
            assert!(ok, "{m:?} {g}");
        }
    }

    #[test]
    fn a_point_where_f_fails_is_backed_away_from() {
        // f undefined for x > 0.3: the line search halves its step until it is defined.
        let f = |x: &[f64], g: &mut [f64]| {
            if x[0] > 0.3 {
                return None;
            }
            g[0] = 2.0 * (x[0] - 1.0);
            Some((x[0] - 1.0).powi(2))
        };
        let m = minimise(f, &[0.0], &[(-1.0, 1.0)], &Settings::default()).unwrap();
        assert!(m.x[0] > 0.25 && m.x[0] <= 0.3, "{m:?}");
        assert!(minimise(f, &[0.5], &[(-1.0, 1.0)], &Settings::default()).is_none());
    }
}
