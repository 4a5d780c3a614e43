//! What the page's design view shows (paper 003, §3–4.1): one design with the map of
//! d(x, ξ) — the equivalence theorem made visible — and the §4.1 function with GPB fitted on
//! the same kind of design, drawn at the budgets of Table 1.
//!
//! The design lives either on the unit square (a 21 × 21 grid, Table 1's budgets) or on a
//! loaded benchmark's table ([`DesignTable`]): the configurations of one task, in all their
//! encoded dimensions, at the budget levels a GPB race would use — exactly the problem of the
//! race's initial design. The table's map and points are then drawn projected onto two chosen
//! hyperparameters.

use rand::SeedableRng;
use serde::{Deserialize, Serialize};

use super::synthetic::{one_d, table1_problem, Setting, TABLE1_BUDGETS};
use crate::benchmark::Benchmark;
use crate::error::{EngineError, Result};
use crate::fidelity::gpb::design::{Criterion, DesignModel, DesignProblem};
use crate::fidelity::gpb::model::{CovParams, Gpb, GpbSettings};
use crate::fidelity::gpb::view_setting::{DesignViewSpec, POINTS_RANGE};
use crate::fidelity::gpb::{budget_levels, design_pool, table_design_problem};
use crate::optimizer::MethodRng;
use crate::space::{Hyperparameter, ParamKind, SearchSpace};

/// Points per side of the d(x, ξ) map.
pub const MAP_SIDE: usize = 21;
/// A loaded benchmark's task as a design problem for the view: its configurations (a seeded
/// sample of at most 1,000, as the race's design), the race's budget levels, and where each
/// configuration falls on the two chosen hyperparameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DesignTable {
    /// "benchmark, task".
    pub name: String,
    /// Configurations of the task the design is built over, model encoding.
    pub candidates: Vec<Vec<f64>>,
    /// Configurations of the task in all.
    pub rows: usize,
    /// Each candidate on the two axes, in [0, 1].
    pub projected: Vec<(f64, f64)>,
    /// The two axes: name (with its scale) and ticks in the data's units.
    pub axes: [Axis; 2],
    /// Budget levels as fractions of the full budget.
    pub budgets: Vec<f64>,
    /// The levels as users read them (steps of the curves, or Table 1's fractions).
    pub budget_names: Vec<String>,
}

/// One axis of a table's projection: its title and its ticks, each a position in [0, 1] (the
/// model's scale: log for a log-scaled hyperparameter) with its label in the data's units.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Axis {
    /// Title.
    pub title: String,
    /// (position in [0, 1], label), increasing.
    pub ticks: Vec<(f64, String)>,
}

impl Axis {
    /// An axis of the unit square: ticks at 0, 0.25, …, 1.
    pub fn unit(title: &str) -> Self {
        let t = crate::axis::linear(0.0, 1.0, 5);
        Axis { title: title.into(), ticks: t.values.into_iter().zip(t.labels).collect() }
    }
}

/// Where a raw value falls on its axis: the model's scale for numbers, levels spread evenly.
fn axis_position(p: &Hyperparameter, raw: f64) -> f64 {
    match &p.kind {
        ParamKind::Categorical { levels } if levels.len() > 1 => raw / (levels.len() - 1) as f64,
        ParamKind::Categorical { .. } => 0.5,
        _ => SearchSpace { params: vec![p.clone()] }.encode(&[raw])[0],
    }
}

/// Ticks of a hyperparameter in its own units at their places on its model scale: decades
/// (with 2 and 5 between on short ranges) on a log scale, nice numbers on a linear one, whole
/// numbers for integers, each level for up to 8 levels (the ends for more).
fn axis_of(p: &Hyperparameter) -> Axis {
    let at = |values: Vec<f64>, labels: Vec<String>| -> Vec<(f64, String)> {
        values.into_iter().zip(labels).map(|(v, l)| (axis_position(p, v), l)).filter(|(x, _)| (-1e-9..=1.0 + 1e-9).contains(x)).collect()
    };
    let (title, ticks) = match &p.kind {
        ParamKind::Continuous { lower, upper, log: true } => {
            let t = crate::axis::log(*lower, *upper, 5);
            (format!("{} (log scale)", p.name), at(t.values, t.labels))
        }
        ParamKind::Continuous { lower, upper, .. } => {
            let t = crate::axis::linear(*lower, *upper, 5);
            (p.name.clone(), at(t.values, t.labels))
        }
        ParamKind::Integer { lower, upper } => {
            let t = crate::axis::linear(*lower as f64, *upper as f64, 5);
            let (values, labels): (Vec<f64>, Vec<String>) = t.values.into_iter().zip(t.labels).filter(|(v, _)| v.fract() == 0.0).unzip();
            (p.name.clone(), at(values, labels))
        }
        ParamKind::Categorical { levels } => {
            let shown: Vec<usize> = if levels.len() <= 8 { (0..levels.len()).collect() } else { vec![0, levels.len() - 1] };
            (format!("{} (levels)", p.name), shown.into_iter().map(|k| (axis_position(p, k as f64), levels[k].clone())).collect())
        }
    };
    Axis { title, ticks }
}

impl DesignTable {
    /// Task `task` of `bench` drawn over hyperparameters `axes`; the sample of candidates is
    /// drawn with `seed`.
    pub fn from_benchmark(bench: &Benchmark, task: usize, axes: (usize, usize), seed: u64) -> Result<Self> {
        let params = &bench.space.params;
        let (i, j) = axes;
        if i == j || i >= params.len() || j >= params.len() {
            return Err(EngineError::Spec(format!(
                "the design view's axes ({i}, {j}) must be two different hyperparameters of {}, which has {}",
                bench.name,
                params.len()
            )));
        }
        let t = bench.tasks.get(task).ok_or_else(|| EngineError::Spec(format!("{} has no task {task}", bench.name)))?;
        if t.configs.is_empty() {
            return Err(EngineError::Spec(format!("task {} of {} has no configurations", t.name, bench.name)));
        }
        let pool = design_pool(t.configs.len(), &mut MethodRng::seed_from_u64(seed));
        let (budgets, budget_names) = match bench.curve_steps() {
            Some(steps) if steps > 1 => {
                let levels = budget_levels(steps as u32);
                (levels.iter().map(|&l| l as f64 / steps as f64).collect(), levels.iter().map(|l| l.to_string()).collect())
            }
            _ => (TABLE1_BUDGETS.to_vec(), vec!["1/2".into(), "2/3".into(), "1".into()]),
        };
        Ok(DesignTable {
            name: format!("{}, {}", bench.name, t.name),
            candidates: pool.iter().map(|&r| bench.space.encode(&t.configs[r])).collect(),
            rows: t.configs.len(),
            projected: pool
                .iter()
                .map(|&r| (axis_position(&params[i], t.configs[r][i]), axis_position(&params[j], t.configs[r][j])))
                .collect(),
            axes: [axis_of(&params[i]), axis_of(&params[j])],
            budgets,
            budget_names,
        })
    }
}

/// One fitted curve of the 1-D panel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BudgetCurve {
    /// The budget.
    pub budget: f64,
    /// f(x, b) on [`DesignViewData::curve_x`].
    pub truth: Vec<f64>,
    /// GPB's posterior mean there.
    pub fitted: Vec<f64>,
}

/// Everything the design view draws.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DesignViewData {
    /// Budgets of the design problem, model units (fractions of the full budget).
    pub budgets: Vec<f64>,
    /// The budgets as users read them.
    pub budget_names: Vec<String>,
    /// The table's two drawn axes; `None` on the unit square.
    pub axes: Option<[Axis; 2]>,
    /// What the design was built on when it is a table: "benchmark, task", its configurations
    /// in all, those in the design problem, and their encoded inputs.
    pub table: Option<(String, usize, usize, usize)>,
    /// The design: (x1, x2, budget index), on the two drawn axes.
    pub points: Vec<(f64, f64, usize)>,
    /// Where each value of `map` is drawn: the grid of the unit square (row by row from
    /// x2 = 0), or each candidate configuration projected onto the two axes.
    pub map_xy: Vec<(f64, f64)>,
    /// max over budgets of d(x, ξ) at each point of the problem.
    pub map: Vec<f64>,
    /// Where the map is largest: (x1, x2, d).
    pub map_max: (f64, f64, f64),
    /// Design points used: the spec's, or p + 2 when the data has more dimensions than that
    /// allows (below it β is not identifiable), as the race does.
    pub points_used: usize,
    /// Criterion value, max d over the problem's points, and the mean standard error of β̂
    /// at the nominal parameters (√diag M⁻¹ with σ = 1).
    pub value: f64,
    /// See `value`.
    pub max_d: f64,
    /// See `value`.
    pub std_beta: f64,
    /// Iterates of the construction (1 for Random and LHD).
    pub iterates: usize,
    /// The iterate drawn (the last, unless [`design_view_at`] asked for another).
    pub shown_iterate: usize,
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

/// Computes the view on the unit square (`table` = `None`) or on a loaded table; deterministic
/// given the spec (and the table).
pub fn design_view(spec: &DesignViewSpec, table: Option<&DesignTable>) -> Result<DesignViewData> {
    let steps = DesignSteps::new(spec, table)?;
    Ok(steps.view(steps.result))
}

/// [`design_view`] showing the construction's iterate `iterate` (0 = its start, clamped to
/// the last) instead of its result.
pub fn design_view_at(spec: &DesignViewSpec, table: Option<&DesignTable>, iterate: usize) -> Result<DesignViewData> {
    Ok(DesignSteps::new(spec, table)?.view(iterate))
}

/// A construction done once, viewed at any of its iterates: the lesson that runs IC or TA
/// step by step draws each iterate's map without constructing the design again.
pub struct DesignSteps {
    problem: DesignProblem,
    map_xy: Vec<(f64, f64)>,
    budget_names: Vec<String>,
    axes: Option<[Axis; 2]>,
    table: Option<(String, usize, usize, usize)>,
    points_used: usize,
    path: Vec<crate::fidelity::gpb::construct::Iterate>,
    /// The iterate the construction returns: the last for IC, the best accepted for TA.
    pub result: usize,
    one_d_points: Vec<(f64, usize, f64)>,
    curve_x: Vec<f64>,
    curves: Vec<BudgetCurve>,
}

impl DesignSteps {
    /// Builds the design (and the 1-D panel's fit) of `spec` on the square or `table`.
    pub fn new(spec: &DesignViewSpec, table: Option<&DesignTable>) -> Result<Self> {
        Self::starting_from(spec, table, &[])
    }

    /// [`DesignSteps::new`] on the unit square from a design the user placed: points
    /// (x1, x2, budget level) in [0, 1]² — iterate 0 is that design, and IC or TA improve it
    /// from there (Random and LHD keep it). An empty `start` is [`DesignSteps::new`].
    pub fn starting_from(spec: &DesignViewSpec, table: Option<&DesignTable>, start: &[(f64, f64, usize)]) -> Result<Self> {
        if !start.is_empty() && (table.is_some() || start.len() < POINTS_RANGE.0 || start.len() > POINTS_RANGE.1) {
            return Err(EngineError::Spec(format!(
                "a placed design lies on the unit square and has {} to {} points",
                POINTS_RANGE.0, POINTS_RANGE.1
            )));
        }
        if start.iter().any(|&(a, b, l)| !(0.0..=1.0).contains(&a) || !(0.0..=1.0).contains(&b) || l >= TABLE1_BUDGETS.len()) {
            return Err(EngineError::Spec(format!("placed points lie in [0, 1]² with a budget level below {}", TABLE1_BUDGETS.len())));
        }
        let (problem, map_xy, budget_names) = match table {
            Some(t) => (
                table_design_problem(t.candidates.clone(), t.budgets.clone(), spec.criterion, &GpbSettings::default()),
                t.projected.clone(),
                t.budget_names.clone(),
            ),
            None => {
                let problem = square_problem(spec.criterion);
                let xy = problem.grid.iter().map(|x| (x[0], x[1])).collect();
                (problem, xy, vec!["1/2".into(), "2/3".into(), "1".into()])
            }
        };
        let mut rng = MethodRng::seed_from_u64(spec.seed);
        let (points_used, construction) = if start.is_empty() {
            let n = spec.points.max(problem.dim() + 2).min(problem.grid.len());
            (n, problem.construct(spec.method, n, &mut rng))
        } else {
            // The budget column of a unit row is read as level ⌊v·L⌋: the middle of level l's cell.
            let levels = problem.budgets.len() as f64;
            let rows = start.iter().map(|&(a, b, l)| vec![a, b, (l as f64 + 0.5) / levels]).collect();
            (start.len(), problem.construct_from(spec.method, rows, &mut rng))
        };
        let path = construction.path;
        let result = path.iter().rposition(|it| it.design == construction.design).unwrap_or(path.len().saturating_sub(1));
        if path.is_empty() {
            return Err(EngineError::Spec("the construction returned no design".into()));
        }
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
        Ok(DesignSteps {
            table: table.map(|t| (t.name.clone(), t.rows, t.candidates.len(), problem.dim())),
            axes: table.map(|t| t.axes.clone()),
            problem,
            map_xy,
            budget_names,
            points_used,
            path,
            result,
            one_d_points: line_design.x.iter().zip(&line_design.budget).zip(&y).map(|((x, &l), &y)| (x[0], l, y)).collect(),
            curve_x,
            curves,
        })
    }

    /// Iterates of the construction (at least 1).
    pub fn iterates(&self) -> usize {
        self.path.len()
    }

    /// The view of iterate `k` (clamped to the last).
    pub fn view(&self, k: usize) -> DesignViewData {
        let shown = k.min(self.path.len() - 1);
        let it = &self.path[shown];
        let (problem, design) = (&self.problem, &it.design);
        let sensitivity = problem.sensitivity(design);
        let map: Vec<f64> = problem
            .grid
            .iter()
            .map(|x| {
                sensitivity.as_ref().map_or(f64::NAN, |s| problem.budgets.iter().map(|&b| s.at(x, b)).fold(f64::NEG_INFINITY, f64::max))
            })
            .collect();
        let (m, d) = map.iter().copied().enumerate().fold((0, f64::NEG_INFINITY), |best, (k, d)| if d > best.1 { (k, d) } else { best });
        let std_beta = problem
            .information(design)
            .and_then(|m| m.try_inverse())
            .map_or(f64::NAN, |inv| inv.diagonal().iter().map(|v| v.max(0.0).sqrt()).sum::<f64>() / inv.nrows() as f64);
        // Design points are points of the problem's grid (tables) or free points of the square.
        let points = design
            .x
            .iter()
            .zip(&design.budget)
            .map(|(x, &b)| match self.table {
                Some(_) => {
                    let g = problem.grid.iter().position(|p| p == x).unwrap_or(0);
                    (self.map_xy[g].0, self.map_xy[g].1, b)
                }
                None => (x[0], x[1], b),
            })
            .collect();
        DesignViewData {
            budgets: problem.budgets.clone(),
            budget_names: self.budget_names.clone(),
            axes: self.axes.clone(),
            table: self.table.clone(),
            points,
            map_max: (self.map_xy[m].0, self.map_xy[m].1, d),
            map_xy: self.map_xy.clone(),
            map,
            points_used: self.points_used,
            value: it.value,
            max_d: it.max_d,
            std_beta,
            iterates: self.path.len(),
            shown_iterate: shown,
            one_d_points: self.one_d_points.clone(),
            curve_x: self.curve_x.clone(),
            curves: self.curves.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fidelity::gpb::construct::DesignMethod;

    #[test]
    fn axes_tick_in_the_data_units_at_their_model_scale_places() {
        let eta = Hyperparameter { name: "eta".into(), kind: ParamKind::Continuous { lower: 1e-5, upper: 1.0, log: true } };
        let a = axis_of(&eta);
        assert_eq!(a.title, "eta (log scale)");
        // Decades of a five-decade log axis fall every fifth of the way.
        let labels: Vec<&str> = a.ticks.iter().map(|t| t.1.as_str()).collect();
        assert!(labels.len() >= 3 && labels.contains(&"1"), "{labels:?}");
        for (x, l) in &a.ticks {
            let v: f64 = l.parse().unwrap();
            assert!((x - (v.log10() + 5.0) / 5.0).abs() < 1e-9, "{l} at {x}");
        }
        let depth = Hyperparameter { name: "depth".into(), kind: ParamKind::Integer { lower: 1, upper: 15 } };
        let d = axis_of(&depth);
        assert!(d.ticks.iter().all(|(x, l)| (0.0..=1.0).contains(x) && l.parse::<f64>().unwrap().fract() == 0.0), "{:?}", d.ticks);
        let unit = Axis::unit("x");
        assert_eq!(unit.ticks.first().map(|t| t.0), Some(0.0));
        assert_eq!(unit.ticks.last().map(|t| t.0), Some(1.0));
    }

    #[test]
    fn link_values_round_trip_and_bad_ones_are_refused() {
        let spec = DesignViewSpec { method: DesignMethod::Ic, criterion: Criterion::A, points: 12, seed: 7, axes: None };
        assert_eq!(DesignViewSpec::parse(&spec.to_link()), Some(spec));
        let on_data = DesignViewSpec { axes: Some((3, 1)), ..spec };
        assert_eq!(on_data.to_link(), "IC.A.12.7.3.1");
        assert_eq!(DesignViewSpec::parse(&on_data.to_link()), Some(on_data));
        let bad = [
            "IC.A.12",
            "IC.A.12.7.1",
            "XX.A.12.7",
            "IC.Q.12.7",
            "IC.A.3.7",
            "IC.A.31.7",
            "IC.A.12.-1",
            "",
            "IC.A.12.7.2.2",
            "IC.A.12.7.1.x",
            "IC.A.12.7.1.2.3",
        ];
        for bad in bad {
            assert_eq!(DesignViewSpec::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn an_optimal_design_leaves_a_smaller_positive_region_than_random() {
        let positive = |method| {
            let v = design_view(&DesignViewSpec { method, ..DesignViewSpec::default() }, None).unwrap();
            v.map.iter().filter(|d| **d > 0.0).count()
        };
        assert!(positive(DesignMethod::Ic) < positive(DesignMethod::Random));
    }

    #[test]
    fn a_table_design_is_the_race_s_problem_drawn_over_two_hyperparameters() {
        let bench = crate::bundled::crossing_curves_family();
        let table = DesignTable::from_benchmark(&bench, 0, (2, 0), 5).unwrap();
        let steps = bench.curve_steps().unwrap() as u32;
        assert_eq!(table.budget_names, budget_levels(steps).iter().map(|l| l.to_string()).collect::<Vec<_>>());
        assert_eq!(table.candidates.len(), bench.tasks[0].configs.len().min(1000));
        assert!(table.projected.iter().all(|&(x, y)| (0.0..=1.0).contains(&x) && (0.0..=1.0).contains(&y)));
        let spec = DesignViewSpec { method: DesignMethod::Ic, axes: Some((2, 0)), ..DesignViewSpec::default() };
        let view = design_view(&spec, Some(&table)).unwrap();
        assert_eq!(view.map.len(), table.candidates.len());
        assert_eq!(view.points.len(), spec.points);
        // Every design point is drawn where its configuration is.
        assert!(view.points.iter().all(|&(x, y, b)| b < table.budgets.len() && table.projected.contains(&(x, y))));
        assert_eq!(design_view(&spec, Some(&table)).unwrap(), view, "deterministic per seed");
        let random = design_view(&DesignViewSpec { method: DesignMethod::Random, ..spec }, Some(&table)).unwrap();
        assert!(
            view.max_d < random.max_d && view.value > random.value,
            "IC {} / {} vs Random {} / {}",
            view.max_d,
            view.value,
            random.max_d,
            random.value
        );
        for bad in [(0, 0), (0, 3), (7, 1)] {
            assert!(DesignTable::from_benchmark(&bench, 0, bad, 5).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn too_few_points_for_the_data_s_dimension_are_raised_to_p_plus_2() {
        let bench = crate::bundled::quadratic_family();
        let table = DesignTable::from_benchmark(&bench, 0, (0, 1), 0).unwrap();
        assert_eq!(table.budget_names, ["1/2", "2/3", "1"], "no curves: Table 1's budgets");
        let view = design_view(&DesignViewSpec { points: 4, axes: Some((0, 1)), ..DesignViewSpec::default() }, Some(&table)).unwrap();
        assert_eq!(view.points_used, 3 + 2);
        assert_eq!(view.points.len(), 5);
        assert!(view.max_d.is_finite());
    }

    #[test]
    fn the_lesson_steps_through_ic_s_iterates_with_a_rising_criterion() {
        let spec = DesignViewSpec { method: DesignMethod::Ic, ..DesignViewSpec::default() };
        let last = design_view(&spec, None).unwrap();
        let values: Vec<f64> = (0..last.iterates).map(|k| design_view_at(&spec, None, k).unwrap().value).collect();
        assert!(values.windows(2).all(|w| w[1] >= w[0] - 1e-12), "IC never lowers the D criterion: {values:?}");
        let end = design_view_at(&spec, None, 999).unwrap();
        assert_eq!((end.shown_iterate, end.value, end.points.clone()), (last.iterates - 1, last.value, last.points.clone()));
        // TA returns its best accepted design, which need not be its last.
        let ta = DesignViewSpec { method: DesignMethod::Ta, ..spec };
        let steps = DesignSteps::new(&ta, None).unwrap();
        let best = (0..steps.iterates()).map(|k| steps.view(k).max_d).fold(f64::INFINITY, f64::min);
        assert_eq!(design_view(&ta, None).unwrap().max_d, best);
        let start = design_view_at(&spec, None, 0).unwrap();
        assert!(start.max_d > last.max_d);
    }
}
