//! Lesson 6: several objectives (Salinas et al. 2020, §5.2). On a task of the bundled
//! error/latency family, a multi-objective method evaluates one configuration per step; the
//! lesson shows every configuration's (error, latency), the points found so far, their Pareto
//! front and the region it dominates, growing step by step, and below it the hypervolume
//! error — the paper's measure: the share of the task's best possible dominated area still
//! missing (objectives normalised by the task's range, reference point (1, 1), App. B).
//!
//! The "+MO" variants minimise ½·Z(error) + ½·Z(latency), each objective warped with Z (ψ for
//! GCP+MO, Δ for GP+MO) fitted on the observations so far — equal weights, so their picks
//! lean towards the part of the front where the warped objectives trade one for one; the
//! lesson colours the cloud by that scalarization as the method sees it at each step.
//! ParEGO draws new weights every step; EHVI needs none. The run is the engine's own
//! (`engine::runner::run_job`), so a frame equals the experiment page's trace.

use serde::{Deserialize, Serialize};

use super::{Fields, SeedStep};
use crate::bundled::tradeoff_family;
use crate::error::{EngineError, Result};
use crate::method_entry::MethodObjectives;
use crate::method_entry::{MethodEntry, RunKind};
use crate::pareto::non_dominated;
use crate::registry;
use crate::runner::run_job;
use crate::spec::{ExperimentSpec, Job, ObjectiveChoice, TransferMode};
use crate::transfer::PriorCache;
use crate::warping::{CopulaWarp, OutputWarp};

/// Evaluations per run.
pub const MAX_STEPS: usize = 30;

/// The methods the lesson offers: every full-evaluation method that takes two objectives and
/// needs no other task (registry order).
pub fn methods() -> Vec<&'static MethodEntry> {
    registry::of_kind(RunKind::Full)
        .filter(|m| !m.transfer().learns_from_other_tasks())
        .filter(|m| matches!(m.objectives(), MethodObjectives::Scalarized(_) | MethodObjectives::Pareto { .. }))
        .collect()
}

/// The default method: the copula paper's GCP+MO.
pub const DEFAULT_METHOD: &str = "GCP+MO";
/// The task and seed the lesson opens on: the typical one of the methods' race over the seeds
/// counted (`sentences::pareto`'s test checks it).
pub const DEFAULT_SEED: u64 = 11;

/// One run of lesson 6.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParetoFrames {
    /// Method and task.
    pub method: String,
    /// See `method`.
    pub task: String,
    /// The two objectives' names.
    pub objectives: [String; 2],
    /// Every configuration's (error, latency).
    pub all: Vec<(f64, f64)>,
    /// Indices of the task's true Pareto front.
    pub true_front: Vec<usize>,
    /// The configurations evaluated, in order.
    pub picks: Vec<usize>,
    /// Hypervolume error after each evaluation.
    pub hv_error: Vec<f64>,
    /// Every offered method's hypervolume error after [`MAX_STEPS`] evaluations on the same
    /// task and seed ([`names`] order), this run's included.
    pub final_errors: Vec<(String, f64)>,
    /// The scalarization's warp for "+MO" methods.
    pub warp: Option<OutputWarp>,
}

/// What one step draws.
#[derive(Debug, Clone, PartialEq)]
pub struct ParetoStep {
    /// Points found so far (error, latency).
    pub found: Vec<(f64, f64)>,
    /// Their Pareto front, by error.
    pub front: Vec<(f64, f64)>,
    /// The region the front dominates up to the reference point, as a staircase polygon
    /// (empty before the first point).
    pub dominated: Vec<(f64, f64)>,
    /// The reference point: each objective's largest value on the task.
    pub reference: (f64, f64),
    /// "+MO" methods with at least two observations: ½·Z(error) + ½·Z(latency) of every
    /// configuration, Z fitted on the points found so far.
    pub scalarized: Option<Vec<f64>>,
}

/// Runs `method` on task `seed mod 20` of the trade-off family with `seed`, and every other
/// method the lesson offers on the same task and seed for the last step's comparison.
pub fn frames(method: &str, seed: u64) -> Result<ParetoFrames> {
    let entry = methods()
        .into_iter()
        .find(|m| m.name == method)
        .ok_or_else(|| EngineError::Spec(format!("lesson 6 has no method '{method}' (it offers {})", names().join(", "))))?;
    let bench = tradeoff_family();
    let t = (seed % bench.tasks.len() as u64) as usize;
    let trace = run(&bench, entry.name, t, seed)?;
    let hv_error: Vec<f64> = trace.rows().iter().map(|r| r.hv_error.unwrap_or(f64::NAN)).collect();
    let mut final_errors = Vec::new();
    for other in names() {
        let end = if other == entry.name {
            hv_error.last().copied().unwrap_or(f64::NAN)
        } else {
            run(&bench, other, t, seed)?.rows().last().and_then(|r| r.hv_error).unwrap_or(f64::NAN)
        };
        final_errors.push((other.to_string(), end));
    }
    let task = &bench.tasks[t];
    let all: Vec<(f64, f64)> = task.metrics[0].iter().zip(&task.metrics[1]).map(|(&a, &b)| (a, b)).collect();
    let points: Vec<Vec<f64>> = all.iter().map(|&(a, b)| vec![a, b]).collect();
    Ok(ParetoFrames {
        method: entry.name.into(),
        task: task.name.clone(),
        objectives: [bench.metrics[0].name.clone(), bench.metrics[1].name.clone()],
        true_front: non_dominated(&points),
        picks: trace.rows().iter().map(|r| r.candidate).collect(),
        hv_error,
        final_errors,
        warp: match entry.objectives() {
            MethodObjectives::Scalarized(w) => Some(w),
            _ => None,
        },
        all,
    })
}

/// One run of `method` on task `t` of `bench` (both objectives), [`MAX_STEPS`] evaluations.
fn run(bench: &crate::benchmark::Benchmark, method: &str, t: usize, seed: u64) -> Result<crate::trace::Trace> {
    let objectives: Vec<ObjectiveChoice> =
        bench.metrics.iter().map(|m| ObjectiveChoice { metric: m.name.clone(), direction: None }).collect();
    let spec = ExperimentSpec {
        methods: vec![method.into()],
        objectives,
        iterations: MAX_STEPS as u32,
        transfer: TransferMode::None,
        ..ExperimentSpec::default()
    };
    let resolved = spec.resolve(bench)?;
    let job = Job { method: method.into(), task: t, seed };
    run_job(bench, &resolved, &job, &PriorCache::new(), &|| 0.0, &mut |_| true)
}

/// The names [`methods`] offers.
pub fn names() -> Vec<&'static str> {
    methods().iter().map(|m| m.name).collect()
}

impl ParetoFrames {
    /// The picture after `k` evaluations.
    pub fn at(&self, k: usize) -> ParetoStep {
        let found: Vec<(f64, f64)> = self.picks.iter().take(k).map(|&i| self.all[i]).collect();
        let points: Vec<Vec<f64>> = found.iter().map(|&(a, b)| vec![a, b]).collect();
        let mut front: Vec<(f64, f64)> = non_dominated(&points).into_iter().map(|i| found[i]).collect();
        front.sort_by(|a, b| a.0.total_cmp(&b.0));
        let reference = self.all.iter().fold((f64::NEG_INFINITY, f64::NEG_INFINITY), |r, p| (r.0.max(p.0), r.1.max(p.1)));
        let dominated = staircase(&front, reference);
        let scalarized = self.warp.filter(|_| found.len() >= 2).map(|warp| {
            let column = |j: usize| -> (Vec<f64>, Vec<f64>) {
                let pick = |p: &(f64, f64)| if j == 0 { p.0 } else { p.1 };
                (found.iter().map(pick).collect(), self.all.iter().map(pick).collect())
            };
            let warped: Vec<Vec<f64>> = (0..2)
                .map(|j| {
                    let (seen, every) = column(j);
                    match warp {
                        OutputWarp::Copula => CopulaWarp::fit(&seen).transform(&every),
                        OutputWarp::Standardize => standardize_by(&seen, &every),
                    }
                })
                .collect();
            warped[0].iter().zip(&warped[1]).map(|(a, b)| 0.5 * (a + b)).collect()
        });
        ParetoStep { found, front, dominated, reference, scalarized }
    }
}

/// The polygon dominated by `front` (sorted by the first objective, non-dominated) below
/// `reference`: down from the reference's height at the first point, along the steps, and
/// back at the reference's right edge.
fn staircase(front: &[(f64, f64)], reference: (f64, f64)) -> Vec<(f64, f64)> {
    let Some(first) = front.first() else { return Vec::new() };
    let mut poly = vec![(first.0, reference.1)];
    for (k, &(a, b)) in front.iter().enumerate() {
        if k > 0 {
            poly.push((a, front[k - 1].1));
        }
        poly.push((a, b));
    }
    poly.push((reference.0, front[front.len() - 1].1));
    poly.push(reference);
    poly
}

/// Area of a simple polygon (shoelace).
/// Lesson 6's link fields besides the step: the method (where not the default) and the seed.
pub fn write_link(method: &str, run: &SeedStep, q: &mut Vec<String>) {
    q.push(format!("lm={}", crate::percent::encode_component(method)));
    run.write_link(DEFAULT_SEED, q);
}

/// Reads lesson 6's link fields besides the step, naming each bad one.
pub fn read_link(method: &mut String, run: &mut SeedStep, fields: &Fields, warnings: &mut Vec<String>) {
    run.read_link(DEFAULT_SEED, fields, warnings);
    match fields.get("lm") {
        None => {}
        Some(v) if names().contains(&v) => *method = v.to_string(),
        Some(v) => warnings.push(format!("lesson 6 has no method '{v}' (it offers {}): using {method}", names().join(", "))),
    }
}

#[cfg(test)]
fn area(poly: &[(f64, f64)]) -> f64 {
    let n = poly.len();
    (0..n).map(|i| poly[i].0 * poly[(i + 1) % n].1 - poly[(i + 1) % n].0 * poly[i].1).sum::<f64>().abs() / 2.0
}

/// `values` standardised with the mean and standard deviation of `seen` (Δ as fitted on the
/// observations, applied to every configuration).
fn standardize_by(seen: &[f64], values: &[f64]) -> Vec<f64> {
    let n = seen.len().max(1) as f64;
    let mean = seen.iter().sum::<f64>() / n;
    let sd = (seen.iter().map(|y| (y - mean) * (y - mean)).sum::<f64>() / n).sqrt();
    let sd = if sd > 0.0 { sd } else { 1.0 };
    values.iter().map(|y| (y - mean) / sd).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pareto::hypervolume;

    #[test]
    fn the_front_grows_and_the_hypervolume_error_falls() {
        assert!(names().contains(&DEFAULT_METHOD) && names().contains(&"ParEGO") && names().contains(&"EHVI"));
        let f = frames(DEFAULT_METHOD, 2).unwrap();
        assert_eq!(f.picks.len(), MAX_STEPS);
        assert!(f.hv_error.windows(2).all(|w| w[1] <= w[0] + 1e-12), "the error never grows");
        let s = f.at(MAX_STEPS);
        // Every found point is on or behind the front, and the front is sorted and non-dominated.
        assert!(s.front.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 > w[1].1));
        assert!(s.found.iter().all(|p| s.front.iter().any(|q| q.0 <= p.0 && q.1 <= p.1)));
        // The polygon's area is the hypervolume (an independent formula); the true front's
        // minus the found one's, over the task's range box, is the hypervolume error.
        let points: Vec<Vec<f64>> = s.front.iter().map(|&(a, b)| vec![a, b]).collect();
        let r = [s.reference.0, s.reference.1];
        assert!((area(&s.dominated) - hypervolume(&points, &r)).abs() < 1e-9 * hypervolume(&points, &r));
        let truth = ParetoFrames { picks: f.true_front.clone(), ..f.clone() }.at(f.true_front.len());
        let lo = f.all.iter().fold((f64::INFINITY, f64::INFINITY), |m, p| (m.0.min(p.0), m.1.min(p.1)));
        let range = (s.reference.0 - lo.0) * (s.reference.1 - lo.1);
        let error = (area(&truth.dominated) - area(&s.dominated)) / range;
        assert!((error - f.hv_error[MAX_STEPS - 1]).abs() < 1e-9, "{error} vs {}", f.hv_error[MAX_STEPS - 1]);
        // The +MO colouring is the average of ψ fitted on what was found.
        let z = s.scalarized.unwrap();
        assert_eq!(z.len(), f.all.len());
        assert!(f.at(1).scalarized.is_none());
        assert!(frames("GCP+prior", 0).is_err() && frames("nope", 0).is_err());
    }
}
