//! Lesson 5's link fields: the construction's setting (`design=IC.D.10.0`, on the unit square
//! only) and the start placed by hand (`lp=x:y:level,…`). Its frames are the design view at
//! each iterate of the construction ([`crate::gpb_experiments::design_view::DesignSteps`]),
//! and the criterion of random designs of the same size, which the last step compares with.

use rand::SeedableRng;
use serde::{Deserialize, Serialize};

use super::{Fields, Placed};
use crate::error::Result;
use crate::fidelity::gpb::construct::DesignMethod;
use crate::fidelity::gpb::view_setting::{DesignViewSpec, POINTS_RANGE};
use crate::gpb_experiments::design_view::{square_problem, DesignSteps, DesignViewData};
use crate::gpb_experiments::synthetic::TABLE1_BUDGETS;
use crate::optimizer::MethodRng;

/// Random designs the last step compares the construction with.
pub const RANDOM_DESIGNS: usize = 20;

/// Everything lesson 5 draws for a setting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DesignFrames {
    /// The view at each iterate, iterate 0 first.
    pub views: Vec<DesignViewData>,
    /// The iterate the construction returns (the last for IC, the best accepted for TA).
    pub result: usize,
    /// The criterion of [`RANDOM_DESIGNS`] random designs of the same size (seeds 0, 1, …).
    pub random: Vec<f64>,
}

/// The construction of `spec` from `placed` (or the method's start), viewed at every
/// iterate, and the random designs of the same size.
pub fn frames(spec: &DesignViewSpec, placed: &[Placed]) -> Result<DesignFrames> {
    let steps = DesignSteps::starting_from(spec, None, placed)?;
    let views: Vec<DesignViewData> = (0..steps.iterates()).map(|k| steps.view(k)).collect();
    let problem = square_problem(spec.criterion);
    let n = views[0].points_used;
    let random = (0..RANDOM_DESIGNS as u64)
        .map(|seed| problem.construct(DesignMethod::Random, n, &mut MethodRng::seed_from_u64(seed)).path[0].value)
        .collect();
    Ok(DesignFrames { views, result: steps.result, random })
}

/// Writes the link fields besides the step.
pub fn write_link(design: &DesignViewSpec, placed: &[Placed], q: &mut Vec<String>) {
    q.push(format!("design={}", design.to_link()));
    if !placed.is_empty() {
        q.push(format!("lp={}", placed.iter().map(|(a, b, l)| format!("{a}:{b}:{l}")).collect::<Vec<_>>().join(",")));
    }
}

/// Reads the link fields besides the step, naming each bad one.
pub fn read_link(design: &mut DesignViewSpec, placed: &mut Vec<Placed>, fields: &Fields, warnings: &mut Vec<String>) {
    if let Some(v) = fields.get("design") {
        match DesignViewSpec::parse(v) {
            Some(spec) if spec.axes.is_none() => *design = spec,
            _ => warnings.push(format!("the design setting '{v}' is not valid here (e.g. IC.D.10.0): using {}", design.to_link())),
        }
    }
    if let Some(v) = fields.get("lp").filter(|v| !v.is_empty()) {
        match parse_placed(v) {
            Some(p) => {
                // A placed design fixes the number of points.
                design.points = p.len();
                *placed = p;
            }
            None => warnings.push(format!(
                "the placed points '{v}' are not {}–{} points x:y:level with x, y in [0, 1] and level 0, 1 or 2: using the method's start",
                POINTS_RANGE.0, POINTS_RANGE.1
            )),
        }
    }
}

/// Lesson 5's placed points: `x:y:level` separated by commas, all valid or `None`.
pub fn parse_placed(v: &str) -> Option<Vec<Placed>> {
    let points: Vec<Placed> = v
        .split(',')
        .map(|p| {
            let mut it = p.split(':');
            let (a, b, l) = (it.next()?.parse::<f64>().ok()?, it.next()?.parse::<f64>().ok()?, it.next()?.parse::<usize>().ok()?);
            let ok = it.next().is_none() && (0.0..=1.0).contains(&a) && (0.0..=1.0).contains(&b) && l < TABLE1_BUDGETS.len();
            ok.then_some((a, b, l))
        })
        .collect::<Option<_>>()?;
    (POINTS_RANGE.0..=POINTS_RANGE.1).contains(&points.len()).then_some(points)
}
