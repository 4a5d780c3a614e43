//! Each view of an [`Exploration`] as a CSV file: what `hpo explore --out D` writes into D and
//! what the page's download buttons give, from the same code (page = CLI byte for byte).
//! Numbers are Rust's shortest round-trip form; an empty cell where there is no number.

use super::views::{intermediate, parallel, pareto, Exploration};
use crate::space::ParamKind;
use crate::study::TrialState;

/// Optuna's name of a state.
pub fn state_name(state: TrialState) -> &'static str {
    match state {
        TrialState::Running => "RUNNING",
        TrialState::Complete => "COMPLETE",
        TrialState::Pruned => "PRUNED",
        TrialState::Fail => "FAIL",
        TrialState::Waiting => "WAITING",
    }
}

fn number(v: Option<f64>) -> String {
    v.filter(|v| !v.is_nan()).map_or(String::new(), |v| format!("{v}"))
}

fn table(header: Vec<String>, rows: impl IntoIterator<Item = Vec<String>>) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record(&header);
    for r in rows {
        let _ = w.write_record(&r);
    }
    w.into_inner().ok().and_then(|b| String::from_utf8(b).ok()).unwrap_or_default()
}

impl Exploration {
    /// Every view's file: (file name, CSV text), in the order the page lists the views.
    pub fn files(&self) -> Vec<(&'static str, String)> {
        let mut out = vec![
            ("trials.csv", self.trials_csv()),
            ("history.csv", self.history_csv()),
            ("intermediate.csv", self.intermediate_csv()),
            ("importance.csv", self.importance_csv()),
            ("slice.csv", self.slice_csv()),
            ("contour.csv", self.contour_csv()),
            ("parallel.csv", self.parallel_csv()),
            ("edf.csv", self.edf_csv()),
        ];
        if self.study.objectives.len() > 1 {
            out.push(("pareto.csv", self.pareto_csv()));
        }
        out
    }

    fn objective_names(&self) -> Vec<String> {
        self.study.objectives.iter().map(|(n, _)| n.clone()).collect()
    }

    fn param_names(&self) -> Vec<String> {
        self.study.space.params.iter().map(|p| p.name.clone()).collect()
    }

    /// A raw value as the trials table shows it: a choice by its name.
    fn shown(&self, p: usize, raw: Option<f64>) -> String {
        match (&self.study.space.params[p].kind, raw) {
            (ParamKind::Categorical { .. }, Some(v)) => self.study.space.params[p].display_value(v),
            (_, v) => number(v),
        }
    }

    /// `trials.csv`: every trial — number, state, each objective's value, each parameter.
    pub fn trials_csv(&self) -> String {
        let header = ["number", "state"].map(String::from).into_iter().chain(self.objective_names()).chain(self.param_names()).collect();
        let k = self.study.objectives.len();
        table(
            header,
            self.study.trials.iter().map(|t| {
                let values = (0..k).map(|m| number(t.values.as_ref().and_then(|v| v.get(m).copied())));
                [t.number.to_string(), state_name(t.state).to_string()]
                    .into_iter()
                    .chain(values)
                    .chain(t.params.iter().enumerate().map(|(p, &v)| self.shown(p, v)))
                    .collect()
            }),
        )
    }

    /// `history.csv`: number, state, value, best so far.
    pub fn history_csv(&self) -> String {
        table(
            ["number", "state", "value", "best_so_far"].map(String::from).to_vec(),
            self.history.iter().map(|h| vec![h.number.to_string(), state_name(h.state).to_string(), number(h.value), number(h.best)]),
        )
    }

    /// `intermediate.csv`: number, state, step, value.
    pub fn intermediate_csv(&self) -> String {
        table(
            ["number", "state", "step", "value"].map(String::from).to_vec(),
            intermediate(&self.study)
                .into_iter()
                .map(|(n, s, step, v)| vec![n.to_string(), state_name(s).to_string(), step.to_string(), format!("{v}")]),
        )
    }

    /// `importance.csv`: parameter, importance, its sd over the trees, the share of trees
    /// ranking it above the next parameter.
    pub fn importance_csv(&self) -> String {
        table(
            ["parameter", "importance", "sd", "ahead_of_next"].map(String::from).to_vec(),
            self.importance.rows.iter().map(|r| {
                vec![
                    r.parameter.clone(),
                    format!("{}", r.importance.mean),
                    format!("{}", r.importance.sd),
                    number(r.importance.ahead_of_next),
                ]
            }),
        )
    }

    /// `slice.csv`: parameter, its raw value, the surrogate's mean and mean ∓ 2 sd.
    pub fn slice_csv(&self) -> String {
        table(
            ["parameter", "x", "mean", "lower", "upper"].map(String::from).to_vec(),
            self.slices.iter().flat_map(|(name, points)| {
                points.iter().map(move |p| {
                    vec![
                        name.clone(),
                        format!("{}", p.x),
                        format!("{}", p.mean),
                        format!("{}", p.mean - 2.0 * p.sd),
                        format!("{}", p.mean + 2.0 * p.sd),
                    ]
                })
            }),
        )
    }

    /// `contour.csv`: the two parameters' raw values, the mean and sd there.
    pub fn contour_csv(&self) -> String {
        let Some((a, b, grid)) = &self.contour else { return table(["x", "y", "mean", "sd"].map(String::from).to_vec(), []) };
        table(
            vec![a.clone(), b.clone(), "mean".into(), "sd".into()],
            grid.iter().map(|p| vec![format!("{}", p.x), format!("{}", p.y), format!("{}", p.mean), format!("{}", p.sd)]),
        )
    }

    /// `parallel.csv`: each complete trial's number, value and axis positions in [0, 1].
    pub fn parallel_csv(&self) -> String {
        let header = ["number".to_string(), self.study.objectives[0].0.clone()].into_iter().chain(self.param_names()).collect();
        table(
            header,
            parallel(&self.study)
                .into_iter()
                .map(|(n, v, positions)| [n.to_string(), format!("{v}")].into_iter().chain(positions.into_iter().map(number)).collect()),
        )
    }

    /// `edf.csv`: value, share of complete trials at most that value.
    pub fn edf_csv(&self) -> String {
        table(["value", "share"].map(String::from).to_vec(), self.edf.iter().map(|(v, s)| vec![format!("{v}"), format!("{s}")]))
    }

    /// `pareto.csv`: each complete trial's number, values, and whether it is on the front.
    pub fn pareto_csv(&self) -> String {
        let header = ["number".to_string()].into_iter().chain(self.objective_names()).chain(["on_front".to_string()]).collect();
        table(
            header,
            pareto(&self.study).into_iter().map(|(n, v, front)| {
                [n.to_string()].into_iter().chain(v.iter().map(|x| format!("{x}"))).chain([front.to_string()]).collect()
            }),
        )
    }
}
