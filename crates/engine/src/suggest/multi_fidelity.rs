//! A multi-fidelity method as an ask/tell session, for training that runs elsewhere (the
//! Python package's `MultiFidelity`, its Optuna loop and its Syne Tune scheduler): the
//! session holds the [`Race`] a simulated run holds, and its curves grow as values are told
//! instead of being read from a table.
//!
//! It lives beside [`super::suggest_for_study`] because it takes the same search space (a
//! study's Optuna distributions) and draws its candidates the same way
//! ([`crate::study::encoding::draw`]): a multi-fidelity
//! method chooses among a finite set of configurations, so the session draws a given number of
//! distinct ones (suggest's [`super::POOL`], 2,048, unless told otherwise) from the distributions,
//! deterministically from the seed, and the method races them.
//!
//! The rules, written once here (`docs/methods.md` points to them):
//! - A request reaches `budget` from the budget the configuration reached; the user tells one
//!   value per budget step, in order (what [`Race::curves`] holds). A request that jumps
//!   several steps (Hyperband's and ASHA's promotions) is told step by step; the request
//!   completes when its last step is told.
//! - Several requests may be outstanding (parallel workers). A configuration in training is
//!   never handed out again: the race marks it ([`Race::training`]) and the methods leave it
//!   out of what they can pick. When a method still names one (a queue planned earlier, as
//!   GPB's initial design plans a configuration at several budgets), the session keeps that
//!   request, hands it out once the configuration is told, and meanwhile asks the method for
//!   another. Hyperband, BOHB and DEHB do not wait for a rung still in training: they open
//!   the next bracket (see [`crate::fidelity::hyperband::Hyperband`]). `ask` says to wait
//!   only when the method has nothing to train but configurations in training — every
//!   configuration drawn is started or waits for a rung's decision — and a method's error
//!   surfaces only when nothing is in training.
//! - A value from training goes through [`MultiFidelitySession::report`], the rule every face
//!   of the Python package uses: a NaN is that configuration's failure (as [`fail`] reports
//!   it; the run goes on without it), an infinite value is clipped to the range of the finite
//!   values told so far ([`clip_infinite`], the rule of a study's infinite objective values)
//!   and, before any finite value, fails its configuration as a NaN does (clipped to 0 it
//!   would stand as the best loss whatever the scale of the values to come).
//!   [`MultiFidelitySession::tell`] itself refuses a value that is not a finite number; the
//!   request then stays open.
//!
//! [`fail`]: MultiFidelitySession::fail
//! - A training that fails (the user's loop raised, a trial errored) is reported with
//!   [`MultiFidelitySession::fail`]: the configuration leaves training for good ([`Race::failed`];
//!   no method picks it again) and the steps it told stay observations. A synchronous rung
//!   (Hyperband, BOHB, DEHB) is decided without it: it has no value at the rung's budget, so
//!   it drops out of the rung and the best of the others go on. ASHA keeps it in the rungs
//!   it reached, as it keeps a configuration already promoted, and never promotes it. The
//!   steps of its request it did not tell return to the total budget: the budget counts
//!   steps told.
//! - Budget units are counted when a request is handed out, as a simulated race counts them;
//!   the last request is cut to what remains, and then `ask` says the session is done. Without
//!   a total budget the session goes on until the method has nothing left to train (an error).
//!
//! With one worker (ask, tell every step, ask again) the method sees exactly the race
//! [`crate::race::run_race`] shows it on a table with those values: same requests, same bits.
//! One exception: a worker waits on each decision, so the session bounds the methods'
//! decisions ([`MultiFidelityOptimizer::bound_decisions`]); the faithful DyHPO then spreads a
//! fit that exceeds the bound over several decisions (see
//! [`crate::fidelity::dyhpo::DyHpo::bounding_decisions`]), which is the race's DyHPO up to
//! about 500 observations and a variant beyond.

use serde_json::Value;

use crate::error::{EngineError, Result};
use crate::method_entry::{MethodEntry, RunKind};
use crate::optimizer::{job_rng, MethodRng};
use crate::race::{MultiFidelityOptimizer, Race, Request};
use crate::registry;
use crate::study::encoding::{draw, search_space};
use crate::study::rules::clip_infinite;
use crate::study::Distribution;

/// The multi-fidelity methods, by their registry names.
pub fn methods() -> Vec<&'static str> {
    registry::of_kind(RunKind::Race).map(|e| e.name).collect()
}

/// A configuration handed out: train `config` from budget `from` up to `budget`, telling the
/// value of each step `from + 1 ..= budget`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Assignment {
    /// The configuration's id (its index among the session's candidates).
    pub config: usize,
    /// The budget it has reached (0: never trained).
    pub from: u32,
    /// The budget to reach.
    pub budget: u32,
}

/// What `ask` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// Train this.
    Train(Assignment),
    /// Nothing can start until an outstanding request is told.
    Wait,
    /// The total budget is spent and no configuration is in training (one that fails would
    /// return the steps it did not train: until then `ask` says [`Asked::Wait`]), or the method
    /// can train nothing more (every configuration started or fully trained).
    Done,
}

/// What a value from training did to its configuration ([`MultiFidelitySession::report`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reported {
    /// The request goes on: train the next step.
    Training,
    /// The value completed the request: the configuration pauses.
    Completed,
    /// The value was NaN: the configuration's training failed and it is released for good.
    Failed,
}

/// One multi-fidelity method racing configurations whose values are told from outside.
pub struct MultiFidelitySession {
    entry: &'static MethodEntry,
    optimizer: Box<dyn MultiFidelityOptimizer>,
    race: Race,
    /// The configurations' encodings, what the method's models see.
    candidates: Vec<Vec<f64>>,
    /// The configurations' internal values (empty for a session over a table's encodings).
    configs: Vec<Vec<f64>>,
    distributions: Vec<(String, Distribution)>,
    sign: f64,
    rng: MethodRng,
    /// The budget each configuration in training is to reach.
    requested: Vec<Option<u32>>,
    /// Requests the method made for configurations still in training, oldest first.
    held: Vec<Request>,
}

impl MultiFidelitySession {
    /// A session of the race method `method` over `configurations` distinct configurations
    /// drawn from `distributions` (no conditions; fewer when the space has fewer), curves of
    /// `max_budget` steps, at most `total_budget` units, values turned into losses by `sign`
    /// (+1 minimise), deterministic given `seed` and the tells.
    pub fn new(
        distributions: Vec<(String, Distribution)>,
        method: &str,
        max_budget: u32,
        total_budget: Option<u64>,
        sign: f64,
        seed: u64,
        configurations: usize,
    ) -> Result<Self> {
        let entry = registry::lookup(RunKind::Race, method)?;
        if distributions.is_empty() {
            return Err(EngineError::Spec("the search space has no parameter".into()));
        }
        if configurations == 0 {
            return Err(EngineError::Spec("race at least one configuration".into()));
        }
        let mut rng = job_rng(seed, "multi-fidelity");
        let mut configs: Vec<Vec<f64>> = Vec::with_capacity(configurations);
        let mut attempts = 0;
        while configs.len() < configurations && attempts < 20 * configurations {
            attempts += 1;
            let c = draw(&distributions, &mut rng);
            if !configs.contains(&c) {
                configs.push(c);
            }
        }
        let space = search_space(&distributions);
        let candidates = configs.iter().map(|c| space.encode(c)).collect();
        let mut session = Self::over(entry, candidates, max_budget, total_budget, sign, rng)?;
        session.configs = configs;
        session.distributions = distributions;
        Ok(session)
    }

    /// A session over given candidate encodings, with the method's generator `rng`: what a
    /// simulated race of the same method on a table of those candidates starts from.
    pub fn over(
        entry: &'static MethodEntry,
        candidates: Vec<Vec<f64>>,
        max_budget: u32,
        total_budget: Option<u64>,
        sign: f64,
        rng: MethodRng,
    ) -> Result<Self> {
        if max_budget == 0 {
            return Err(EngineError::Spec("max_budget must be at least 1 (the number of budget steps of a full training)".into()));
        }
        if total_budget == Some(0) {
            return Err(EngineError::Spec("a total budget of 0 units leaves nothing to train".into()));
        }
        let n = candidates.len();
        // A worker waits on each decision.
        let mut optimizer = entry.build_race()?;
        optimizer.bound_decisions();
        Ok(MultiFidelitySession {
            entry,
            optimizer,
            race: Race::new(n, max_budget, total_budget.unwrap_or(u64::MAX)),
            candidates,
            configs: Vec::new(),
            distributions: Vec::new(),
            sign,
            rng,
            requested: vec![None; n],
            held: Vec::new(),
        })
    }

    /// The next configuration to train and how far (see the module's rules).
    pub fn ask(&mut self) -> Result<Asked> {
        if self.race.remaining == 0 {
            // A configuration in training may yet fail and give back its untrained steps (a
            // run ended as soon as the last step was handed out lost them: 1 of 18 on Ray).
            return Ok(if self.race.training.iter().any(|&t| t) { Asked::Wait } else { Asked::Done });
        }
        let request = match self.held.iter().position(|r| !self.race.training[r.config]) {
            // A request kept for a configuration that is told now (a failed one's are dropped
            // by `fail`; one its configuration already passed is dropped here).
            Some(k) => {
                let r = self.held.remove(k);
                if r.budget <= self.race.budget_of(r.config) {
                    return self.ask();
                }
                r
            }
            None => match self.next_free() {
                Ok(Some(r)) => r,
                Ok(None) => return Ok(Asked::Wait),
                // Every configuration drawn is started or fully trained: nothing more to do.
                Err(EngineError::Exhausted { .. }) => return Ok(Asked::Done),
                Err(e) => return Err(e),
            },
        };
        let from = self.race.curves.get(request.config).map(|c| c.len() as u32).ok_or_else(|| self.bad("a configuration out of range"))?;
        if request.budget <= from || request.budget > self.race.max_budget {
            let what =
                format!("budget {} for configuration {} (at budget {from}, max {})", request.budget, request.config, self.race.max_budget);
            return Err(self.bad(&what));
        }
        if self.race.failed[request.config] {
            return Err(self.bad(&format!("configuration {}, whose training failed", request.config)));
        }
        // Saturating: without a total budget `remaining` is u64::MAX.
        let to = (request.budget as u64).min((from as u64).saturating_add(self.race.remaining)) as u32;
        if self.race.remaining != u64::MAX {
            self.race.remaining -= (to - from) as u64;
        }
        self.race.training[request.config] = true;
        self.requested[request.config] = Some(to);
        Ok(Asked::Train(Assignment { config: request.config, from, budget: to }))
    }

    /// The method's next request for a configuration not in training, keeping those it makes
    /// for one in training (see the module's rules); `None` when the method has nothing else
    /// while some configuration trains: the caller waits.
    fn next_free(&mut self) -> Result<Option<Request>> {
        // Bounded: a method that named every configuration in training has nothing else now.
        for _ in 0..=self.candidates.len() {
            let r = match self.optimizer.next(&self.race, &self.candidates, &mut self.rng) {
                Ok(r) => r,
                Err(_) if self.race.training.contains(&true) => return Ok(None),
                Err(e) => return Err(e),
            };
            match self.race.training.get(r.config) {
                Some(true) => self.held.push(r),
                _ => return Ok(Some(r)),
            }
        }
        Ok(None)
    }

    /// The budget configuration `config`'s outstanding request is to reach; an error when
    /// there is no such configuration or it is not in training (`doing` names the call).
    fn requested_budget(&self, config: usize, doing: &str) -> Result<u32> {
        let n = self.race.curves.len();
        let to = *self
            .requested
            .get(config)
            .ok_or_else(|| EngineError::Spec(format!("there is no configuration {config}: ids run from 0 to {}", n - 1)))?;
        to.ok_or_else(|| {
            let why = if self.race.failed[config] { "its training failed" } else { "it is not in training" };
            EngineError::Spec(format!(
                "cannot {doing} configuration {config}: {why} (ask() hands a configuration out, tell and fail report on it)"
            ))
        })
    }

    /// Records `value` of configuration `config` at budget step `step`; true when that step
    /// completes the configuration's request.
    pub fn tell(&mut self, config: usize, step: u32, value: f64) -> Result<bool> {
        let to = self.check_step(config, step, "tell a value of")?;
        if !value.is_finite() {
            return Err(EngineError::Spec(format!(
                "configuration {config}, step {step}: the value {value} is not a finite number (report a diverged training as a large finite loss)"
            )));
        }
        self.race.curves[config].push(self.sign * value);
        if step < to {
            return Ok(false);
        }
        self.race.training[config] = false;
        self.requested[config] = None;
        self.race.history.push(Request { config, budget: to });
        Ok(true)
    }

    /// A value from training at `step` of `config`, by the module's rule: a NaN fails the
    /// configuration ([`MultiFidelitySession::fail`]), an infinite value is clipped to the
    /// finite values told so far (in the user's direction) or, with none told yet, fails the
    /// configuration too; any other is told. The request and
    /// the step are checked as [`MultiFidelitySession::tell`] checks them, NaN or not.
    pub fn report(&mut self, config: usize, step: u32, value: f64) -> Result<Reported> {
        let nothing_to_clip_to = || value.is_infinite() && !self.race.curves.iter().flatten().any(|v| v.is_finite());
        if value.is_nan() || nothing_to_clip_to() {
            self.check_step(config, step, "report a value of")?;
            self.fail(config)?;
            return Ok(Reported::Failed);
        }
        let sign = self.sign;
        let value = clip_infinite(value, self.race.curves.iter().flatten().map(|loss| sign * loss));
        Ok(if self.tell(config, step, value)? { Reported::Completed } else { Reported::Training })
    }

    /// Checks that `step` is the next step of `config`'s request; its budget to reach.
    fn check_step(&self, config: usize, step: u32, what: &str) -> Result<u32> {
        let to = self.requested_budget(config, what)?;
        let next = self.race.budget_of(config) + 1;
        if step != next {
            return Err(EngineError::Spec(format!(
                "configuration {config} is at budget {}: tell step {next} next (one value per budget step, in order, up to {to}), not step {step}",
                next - 1
            )));
        }
        Ok(to)
    }

    /// Reports that configuration `config`'s training failed before its request was told to
    /// the end (see the module's rules): it is never handed out again, does not hold up a
    /// rung, and the steps it did not tell return to the total budget.
    pub fn fail(&mut self, config: usize) -> Result<()> {
        let to = self.requested_budget(config, "fail")?;
        let reached = self.race.budget_of(config);
        if self.race.remaining != u64::MAX {
            self.race.remaining += (to - reached) as u64;
        }
        self.race.training[config] = false;
        self.race.failed[config] = true;
        self.requested[config] = None;
        // Requests the method planned for it while it trained will never be served.
        self.held.retain(|r| r.config != config);
        Ok(())
    }

    /// The configurations whose training failed, in increasing order.
    pub fn failed(&self) -> Vec<usize> {
        (0..self.race.failed.len()).filter(|&i| self.race.failed[i]).collect()
    }

    /// Configuration `config` as the user's parameter values (JSON: a float, an integer, a
    /// choice), in the order of the distributions.
    pub fn params(&self, config: usize) -> Result<Vec<Value>> {
        let c = self.configs.get(config).ok_or_else(|| EngineError::Spec(format!("there is no configuration {config}")))?;
        Ok(self.distributions.iter().zip(c).map(|((_, d), &v)| d.external(v)).collect())
    }

    /// The budget configuration `config` has told up to (0: never trained).
    pub fn reached(&self, config: usize) -> Result<u32> {
        self.race.curves.get(config).map(|c| c.len() as u32).ok_or_else(|| EngineError::Spec(format!("there is no configuration {config}")))
    }

    /// The requests outstanding: (configuration, budget it reached, budget to reach).
    pub fn in_training(&self) -> Vec<Assignment> {
        (0..self.requested.len())
            .filter_map(|i| self.requested[i].map(|budget| Assignment { config: i, from: self.race.budget_of(i), budget }))
            .collect()
    }

    /// The best value told so far (in the user's direction): (configuration, step, value).
    pub fn best(&self) -> Option<(usize, u32, f64)> {
        let mut best: Option<(usize, u32, f64)> = None;
        for (i, curve) in self.race.curves.iter().enumerate() {
            for (s, &loss) in curve.iter().enumerate() {
                if best.is_none_or(|(_, _, b)| loss < self.sign * b) {
                    best = Some((i, s as u32 + 1, self.sign * loss));
                }
            }
        }
        best
    }

    /// Budget units not yet handed out (`u64::MAX` without a total budget: never counted down).
    pub fn remaining(&self) -> u64 {
        self.race.remaining
    }

    /// How many configurations the method chooses among.
    pub fn configurations(&self) -> usize {
        self.candidates.len()
    }

    fn bad(&self, what: &str) -> EngineError {
        EngineError::Method { method: self.entry.name.into(), message: format!("asked for {what}") }
    }
}

#[cfg(test)]
mod tests;
