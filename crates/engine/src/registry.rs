//! The one table of methods. Every list the page shows, the CLI's help, the link validator
//! and the runner read it; nothing outside this file and the method files names a method.
//!
//! An entry says what a method is (name as in its paper, a one-line summary, the paper and
//! section it implements), which kind of run it belongs to — full evaluations, with the
//! objectives it handles and what it learns from the other tasks, or a multi-fidelity race —,
//! how costly its jobs are, and how to build it. Each method file declares its entries as
//! constants next to the code they build; this table lists them. Adding a method is one file
//! (the optimizer and its `MethodEntry`) plus one line here (see `docs/architecture.md`).
//!
//! Names are unique within a kind of run. "RS" exists in both kinds (random search over
//! full evaluations, and random configurations trained to the full budget in a race): the run
//! mode picks which one a name means.

use super::error::{EngineError, Result};
use super::fidelity::{dyhpo, gpb, hyperband, samplers};
use super::method_entry::{MethodEntry, MethodObjectives, RunKind, TransferNeed};
use super::methods::{ablr, auto_gp, ehvi, gcp, gp, parego, prior_gp, random_search, scalarized, sgpt, thompson, ws_gp};

impl MethodEntry {
    /// True when it is this kind of run's reference (random search), against which the
    /// copula paper normalises (Table 2) and every summary compares.
    pub fn is_baseline(&self) -> bool {
        *self == *baseline(self.run_kind())
    }
}

/// Every method, in the order the page lists them: full evaluations (single objective, then
/// the +MO variants and dedicated multi-objective methods), then the race's methods.
pub static METHODS: &[MethodEntry] = &[
    random_search::RS,
    gp::GP,
    gcp::GCP,
    thompson::CTS,
    thompson::TS,
    prior_gp::GCP_PRIOR,
    prior_gp::GP_PRIOR,
    ws_gp::WS_GP,
    auto_gp::AUTO_GP,
    ablr::ABLR,
    ablr::ABLR_COPULA,
    sgpt::SGPT,
    sgpt::SGPT_COPULA,
    scalarized::GP_MO,
    scalarized::GCP_MO,
    scalarized::CTS_MO,
    scalarized::TS_MO,
    scalarized::GCP_PRIOR_MO,
    scalarized::GP_PRIOR_MO,
    parego::PAREGO,
    ehvi::EHVI,
    hyperband::RS_FULL_BUDGET,
    hyperband::HYPERBAND,
    hyperband::ASHA,
    samplers::BOHB,
    samplers::DEHB,
    dyhpo::DYHPO,
    dyhpo::DYHPO_WITHOUT_CNN,
    dyhpo::DYHPO_FAST,
    gpb::GPB_IC,
    gpb::GPB_TA,
    gpb::GPB_RANDOM,
    gpb::GP_MAX_BUDGET,
];

/// The methods a new race starts with: the paper's method and the baselines that cost next
/// to nothing (DEHB and the ablations are one click away).
const DEFAULT_RACE: &[&str] =
    &[hyperband::RS_FULL_BUDGET.name, hyperband::HYPERBAND.name, hyperband::ASHA.name, samplers::BOHB.name, dyhpo::DYHPO.name];

/// The methods of the default race that a cheaper one stands in for when they would not
/// finish in the time a first race should take ([`stand_in`]): the faithful DyHPO refits its
/// GP on every observation at every step, so its race grows with the budget's cube.
const STAND_INS: &[(&str, &str)] = &[(dyhpo::DYHPO.name, dyhpo::DYHPO_FAST.name)];

/// The methods a study's next trials start with: the first of these that proposes for the
/// study's objectives (GP for one, its "+MO" variant for several; `suggest::default_method`).
const NEXT_TRIALS_FIRST: &[&str] = &[gp::GP.name, scalarized::GP_MO.name];

/// Every method of a kind of run, in table order.
pub fn of_kind(kind: RunKind) -> impl Iterator<Item = &'static MethodEntry> {
    METHODS.iter().filter(move |m| m.run_kind() == kind)
}

/// The method called `name` in a kind of run.
pub fn find(kind: RunKind, name: &str) -> Option<&'static MethodEntry> {
    of_kind(kind).find(|m| m.name == name)
}

/// The method called `name` in a kind of run, or an error that lists the available ones.
pub fn lookup(kind: RunKind, name: &str) -> Result<&'static MethodEntry> {
    find(kind, name).ok_or_else(|| {
        let known = of_kind(kind).map(|m| m.name).collect::<Vec<_>>().join(", ");
        EngineError::Spec(match (kind, find(other_kind(kind), name)) {
            (RunKind::Full, Some(_)) => format!("'{name}' runs in a multi-fidelity race only; full evaluations run {known}"),
            (RunKind::Race, Some(_)) => format!("'{name}' is not a multi-fidelity method; a race runs {known}"),
            _ => format!("unknown method '{name}'; available: {known}"),
        })
    })
}

fn other_kind(kind: RunKind) -> RunKind {
    match kind {
        RunKind::Full => RunKind::Race,
        RunKind::Race => RunKind::Full,
    }
}

/// Random search of a kind of run: the reference every paper normalises against.
pub fn baseline(kind: RunKind) -> &'static MethodEntry {
    let name = match kind {
        RunKind::Full => random_search::RS.name,
        RunKind::Race => hyperband::RS_FULL_BUDGET.name,
    };
    find(kind, name).expect("the baseline is in the table")
}

/// The methods a new setup of this kind starts with.
pub fn defaults(kind: RunKind) -> Vec<&'static MethodEntry> {
    match kind {
        RunKind::Full => vec![baseline(RunKind::Full)],
        RunKind::Race => DEFAULT_RACE.iter().filter_map(|name| find(RunKind::Race, name)).collect(),
    }
}

/// The method that stands in for `method` in a default race too long to finish soon, if any.
pub fn stand_in(method: &MethodEntry) -> Option<&'static MethodEntry> {
    let (_, cheaper) = STAND_INS.iter().find(|(name, _)| *name == method.name && method.run_kind() == RunKind::Race)?;
    find(RunKind::Race, cheaper)
}

/// The full-evaluation methods a study's next trials prefer, in order of preference (the
/// suggestions take the first that proposes for the study's objectives).
pub fn next_trials_first() -> impl Iterator<Item = &'static MethodEntry> {
    NEXT_TRIALS_FIRST.iter().filter_map(|name| find(RunKind::Full, name))
}

/// The methods a new full-evaluation setup of several objectives starts with: random search
/// and every "+MO" variant that learns from the task alone (the transfer ones, which train a
/// prior on the other tasks, are one click away).
pub fn multi_objective_defaults() -> Vec<&'static MethodEntry> {
    std::iter::once(baseline(RunKind::Full))
        .chain(
            of_kind(RunKind::Full)
                .filter(|m| matches!(m.objectives(), MethodObjectives::Scalarized(_)) && m.transfer() == TransferNeed::None),
        )
        .collect()
}

/// The registry as the Markdown table `docs/methods.md` holds (kept current by a test).
pub fn markdown_table() -> String {
    let mut out = String::from("| run | method | cost | implements | summary |\n|---|---|---|---|---|\n");
    for m in METHODS {
        let kind = match m.run_kind() {
            RunKind::Full => "full evaluations",
            RunKind::Race => "race",
        };
        let cost = format!("{:?}", m.cost).to_lowercase();
        out += &format!("| {kind} | {} | {cost} | {} | {} |\n", m.name, m.paper, m.summary.replace('|', "\\|"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method_entry::TransferContext;

    #[test]
    fn names_are_unique_within_a_kind_and_every_entry_is_documented() {
        for (i, a) in METHODS.iter().enumerate() {
            assert!(!a.summary.is_empty() && !a.paper.is_empty(), "{}", a.name);
            for b in &METHODS[i + 1..] {
                assert!(a != b, "{} is listed twice", a.name);
            }
        }
        assert_eq!(defaults(RunKind::Race).len(), DEFAULT_RACE.len());
    }

    #[test]
    fn lookups_say_which_kind_a_name_belongs_to() {
        assert!(lookup(RunKind::Full, "GCP+prior").is_ok());
        let e = lookup(RunKind::Race, "GCP+prior").unwrap_err().to_string();
        assert!(e.contains("not a multi-fidelity method"), "{e}");
        let e = lookup(RunKind::Full, "ASHA").unwrap_err().to_string();
        assert!(e.contains("race only"), "{e}");
        let e = lookup(RunKind::Full, "GPC").unwrap_err().to_string();
        assert!(e.contains("unknown method 'GPC'") && e.contains("GCP+prior"), "{e}");
        assert!(baseline(RunKind::Full).is_baseline() && baseline(RunKind::Race).is_baseline());
        assert_ne!(baseline(RunKind::Full), baseline(RunKind::Race));
        assert!(!find(RunKind::Full, "GP").unwrap().is_baseline());
    }

    #[test]
    fn every_entry_builds_in_its_own_kind_only() {
        for m in METHODS {
            match m.run_kind() {
                RunKind::Race => {
                    assert!(m.build_race().is_ok(), "{}", m.name);
                    assert!(m.build_full(TransferContext::default()).is_err(), "{}", m.name);
                }
                RunKind::Full => assert!(m.build_race().is_err(), "{}", m.name),
            }
        }
    }
}
