//! The lie a configuration handed out but not yet told is observed at, so that a batch of
//! next trials spreads out: its own file because the page, the CLI and Python each name it.

use crate::error::{EngineError, Result};

/// The value a configuration handed out but not yet told (a RUNNING or WAITING trial, an
/// earlier pick of the batch) is observed at: the constant liar of Ginsbourger, Le Riche &
/// Carraro 2010 ("Kriging is well-suited to parallelize optimization", §3.2), with the lie the
/// lowest, the mean or the highest loss of the complete trials (with several objectives, of
/// each objective). Measured against each other in docs/benchmarks.md ("Batches and pending
/// trials"); the default is [`Liar::DEFAULT`], docs/methods.md says why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Liar {
    /// CL-min: as good as the best trial (the rule before pending trials counted).
    Min,
    /// CL-mean: the mean loss.
    Mean,
    /// CL-max: as bad as the worst complete trial, as Optuna's TPESampler(constant_liar=True).
    Max,
    /// The kriging believer (Ginsbourger et al. 2010, §3.1): a method with a GP observes each
    /// pending configuration at its posterior mean given the told trials, so that only the
    /// variance there collapses; the methods without one see CL-mean.
    Believer,
}

impl Liar {
    /// The lie the next trials tell.
    pub const DEFAULT: Liar = Liar::Believer;

    /// By name: "min", "mean" or "max".
    pub fn from_name(name: &str) -> Result<Liar> {
        match name {
            "min" => Ok(Liar::Min),
            "mean" => Ok(Liar::Mean),
            "max" => Ok(Liar::Max),
            "believer" => Ok(Liar::Believer),
            other => Err(EngineError::Spec(format!("the liar is 'min', 'mean', 'max' or 'believer', not '{other}'"))),
        }
    }

    /// The lie among `losses` (the complete trials', never empty here).
    pub(super) fn of(self, losses: impl Iterator<Item = f64>) -> f64 {
        let (mut low, mut high, mut sum, mut n) = (f64::INFINITY, f64::NEG_INFINITY, 0.0, 0usize);
        for l in losses {
            low = low.min(l);
            high = high.max(l);
            sum += l;
            n += 1;
        }
        match self {
            Liar::Min => low,
            Liar::Mean | Liar::Believer => sum / n.max(1) as f64,
            Liar::Max => high,
        }
    }
}
