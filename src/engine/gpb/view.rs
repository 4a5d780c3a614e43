//! What the page's design view shows (paper 003, §3–4.1): one design on two inputs with the
//! map of d(x, ξ) — the equivalence theorem made visible — and the §4.1 function with GPB
//! fitted on the same kind of design, drawn at the budgets of Table 1.

use rand::SeedableRng;
use serde::{Deserialize, Serialize};

use super::construct::DesignMethod;
use super::design::{Criterion, DesignModel, DesignProblem};
use super::model::{CovParams, Gpb, GpbSettings};
use super::synthetic::{one_d, table1_problem, Setting, TABLE1_BUDGETS};
use crate::engine::error::Result;
use crate::engine::optimizer::MethodRng;

/// Points per side of the d(x, ξ) map.
pub const MAP_SIDE: usize = 21;
/// Fewest and most design points the view offers.
pub const POINTS_RANGE: (usize, usize) = (4, 30);

/// The view's setting, carried in links as `design=TA.D.10.0` (method, criterion, points, seed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DesignViewSpec {
    /// Construction.
    pub method: DesignMethod,
    /// Criterion.
    pub criterion: Criterion,
    /// Design points.
    pub points: usize,
    /// Seed of the construction.
    pub seed: u64,
}

impl Default for DesignViewSpec {
    fn default() -> Self {
        DesignViewSpec { method: DesignMethod::Ta, criterion: Criterion::D, points: 10, seed: 0 }
    }
}

impl DesignViewSpec {
    /// The link value.
    pub fn to_link(&self) -> String {
        format!("{}.{}.{}.{}", self.method.name(), self.criterion.name(), self.points, self.seed)
    }

    /// Parses a link value; `None` when any part is invalid.
    pub fn parse(s: &str) -> Option<Self> {
        let mut parts = s.split('.');
        let method = DesignMethod::parse(parts.next()?)?;
        let criterion = Criterion::parse(parts.next()?)?;
        let points = parts.next()?.parse::<usize>().ok().filter(|n| (POINTS_RANGE.0..=POINTS_RANGE.1).contains(n))?;
        let seed = parts.next()?.parse::<u64>().ok()?;
        parts.next().is_none().then_some(DesignViewSpec { method, criterion, points, seed })
    }
}

/// One fitted curve of the 1-D panel.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetCurve {
    /// The budget.
    pub budget: f64,
    /// f(x, b) on [`DesignViewData::curve_x`].
    pub truth: Vec<f64>,
    /// GPB's posterior mean there.
    pub fitted: Vec<f64>,
}

/// Everything the design view draws.
#[derive(Debug, Clone, PartialEq)]
pub struct DesignViewData {
    /// Budgets of the design problems (Table 1's).
    pub budgets: Vec<f64>,
    /// The 2-D design: (x1, x2, budget index).
    pub points: Vec<(f64, f64, usize)>,
    /// max over budgets of d(x, ξ) on the MAP_SIDE² grid, row by row from x2 = 0.
    pub map: Vec<f64>,
    /// Where the map is largest: (x1, x2, d).
    pub map_max: (f64, f64, f64),
    /// Criterion value, max d over the problem's points, and the mean standard error of β̂
    /// at the nominal parameters (√diag M⁻¹ with σ = 1).
    pub value: f64,
    /// See `value`.
    pub max_d: f64,
    /// See `value`.
    pub std_beta: f64,
    /// Iterates of the construction (1 for Random and LHD).
    pub iterates: usize,
    /// The 1-D design: (x, budget index, y).
    pub one_d_points: Vec<(f64, usize, f64)>,
    /// x of the 1-D curves.
    pub curve_x: Vec<f64>,
    /// One curve per budget of Table 1.
    pub curves: Vec<BudgetCurve>,
}

/// The 2-D problem: [0, 1]² on the map's grid, Table 1's budgets.
pub fn square_problem(criterion: Criterion) -> DesignProblem {
    let settings = GpbSettings::default();
    let side = MAP_SIDE - 1;
    DesignProblem {
        model: DesignModel::Gpb { kernel: settings.kernel, params: CovParams::nominal(2, &settings) },
        criterion,
        budgets: TABLE1_BUDGETS.to_vec(),
        grid: (0..MAP_SIDE * MAP_SIDE).map(|i| vec![(i % MAP_SIDE) as f64 / side as f64, (i / MAP_SIDE) as f64 / side as f64]).collect(),
        tabular: false,
    }
}

/// Computes the view (deterministic given the spec).
pub fn design_view(spec: &DesignViewSpec) -> Result<DesignViewData> {
    let problem = square_problem(spec.criterion);
    let mut rng = MethodRng::seed_from_u64(spec.seed);
    let construction = problem.construct(spec.method, spec.points, &mut rng);
    let design = construction.design;
    let sensitivity = problem.sensitivity(&design);
    let map: Vec<f64> = problem
        .grid
        .iter()
        .map(|x| sensitivity.as_ref().map_or(f64::NAN, |s| problem.budgets.iter().map(|&b| s.at(x, b)).fold(f64::NEG_INFINITY, f64::max)))
        .collect();
    let (k, d) = map.iter().copied().enumerate().fold((0, f64::NEG_INFINITY), |best, (k, d)| if d > best.1 { (k, d) } else { best });
    let std_beta = problem
        .information(&design)
        .and_then(|m| m.try_inverse())
        .map_or(f64::NAN, |inv| inv.diagonal().iter().map(|v| v.max(0.0).sqrt()).sum::<f64>() / inv.nrows() as f64);
    let line = table1_problem(Setting { criterion: spec.criterion, ..Setting::default() });
    let mut line_rng = MethodRng::seed_from_u64(spec.seed);
    let line_design = line.construct(spec.method, spec.points, &mut line_rng).design;
    let b = line.budgets_of(&line_design);
    let y: Vec<f64> = line_design.x.iter().zip(&b).map(|(x, &b)| one_d(x[0], b)).collect();
    let model = Gpb::fit(&GpbSettings::default(), line_design.x.clone(), b, &y, &mut line_rng)?;
    let curve_x: Vec<f64> = (0..=100).map(|i| i as f64 / 100.0).collect();
    let curves = [1.0, 2.0 / 3.0, 0.5]
        .iter()
        .map(|&budget| BudgetCurve {
            budget,
            truth: curve_x.iter().map(|&x| one_d(x, budget)).collect(),
            fitted: curve_x.iter().map(|&x| model.predict(&[x], budget).0).collect(),
        })
        .collect();
    Ok(DesignViewData {
        budgets: problem.budgets.clone(),
        points: design.x.iter().zip(&design.budget).map(|(x, &b)| (x[0], x[1], b)).collect(),
        map_max: (problem.grid[k][0], problem.grid[k][1], d),
        map,
        value: construction.path.last().map_or(f64::NAN, |it| it.value),
        max_d: construction.path.last().map_or(f64::NAN, |it| it.max_d),
        std_beta,
        iterates: construction.path.len(),
        one_d_points: line_design.x.iter().zip(&line_design.budget).zip(&y).map(|((x, &l), &y)| (x[0], l, y)).collect(),
        curve_x,
        curves,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_values_round_trip_and_bad_ones_are_refused() {
        let spec = DesignViewSpec { method: DesignMethod::Ic, criterion: Criterion::A, points: 12, seed: 7 };
        assert_eq!(DesignViewSpec::parse(&spec.to_link()), Some(spec));
        for bad in ["IC.A.12", "IC.A.12.7.1", "XX.A.12.7", "IC.Q.12.7", "IC.A.3.7", "IC.A.31.7", "IC.A.12.-1", ""] {
            assert_eq!(DesignViewSpec::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn an_optimal_design_leaves_a_smaller_positive_region_than_random() {
        let positive = |method| {
            let v = design_view(&DesignViewSpec { method, ..DesignViewSpec::default() }).unwrap();
            v.map.iter().filter(|d| **d > 0.0).count()
        };
        assert!(positive(DesignMethod::Ic) < positive(DesignMethod::Random));
    }
}
