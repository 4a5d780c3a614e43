//! What transfer methods learn from the other tasks (leave-one-task-out): the training set of
//! the parametric prior, a cache so that a prior is trained once per (target task, warp)
//! and reused by every seed and method that needs it, and a store that keeps what was learned
//! between runs (and the page's prior view) on the same data and objective.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::benchmark::{Benchmark, Direction};
use super::error::{EngineError, Result};
use super::method_entry::{Evaluations, MethodEntry, TransferContext, TransferNeed};
use super::methods::sgpt::other_task_means;
use super::optimizer::job_rng;
use super::prior::{train_prior, Example, PriorSettings, TrainedPrior};
use super::spec::{ResolvedSpec, TransferMode};
use super::warping::{scalarize, OutputWarp};

/// The warped targets of task `t` as a prior sees them: its losses (or, with several
/// objectives, their "+MO" scalarization) warped with that task's own ψ or Δ, fitted on all
/// its evaluations.
pub fn task_targets(bench: &Benchmark, resolved: &ResolvedSpec, t: usize, warp: OutputWarp) -> Vec<f64> {
    let losses: Vec<f64> = if resolved.is_multi_objective() {
        // "+MO" priors learn the scalarized objective: the average of the objectives, each
        // warped with the same Z as the target's (§5.2).
        scalarize(&task_loss_columns(bench, resolved, t), warp)
    } else {
        objective_losses(bench, resolved, t)
    };
    warp.apply(&losses)
}

/// Training data of the prior for `target`: every evaluation of every other task with its
/// [`task_targets`], weighted so that each task counts equally (Eq. (1), weights inversely
/// proportional to the task's size).
pub fn prior_examples(bench: &Benchmark, resolved: &ResolvedSpec, target: usize, warp: OutputWarp) -> Vec<Example> {
    let others: Vec<usize> = (0..bench.tasks.len()).filter(|&t| t != target).collect();
    let total: usize = others.iter().map(|&t| bench.tasks[t].len()).sum();
    let mut out = Vec::with_capacity(total);
    for &t in &others {
        let task = &bench.tasks[t];
        let weight = total as f64 / (others.len() as f64 * task.len() as f64);
        for (c, z) in task.configs.iter().zip(task_targets(bench, resolved, t, warp)) {
            out.push(Example { x: bench.space.encode(c), z, weight });
        }
    }
    out
}

/// RMSE of the prior's mean on every evaluation of the target task (its own warped values):
/// the key of the paper's Fig. 4 (below 1, the prior predicts better than the constant 0).
pub fn prior_rmse_on_target(bench: &Benchmark, resolved: &ResolvedSpec, target: usize, warp: OutputWarp, prior: &TrainedPrior) -> f64 {
    let data: Vec<(Vec<f64>, f64)> =
        bench.tasks[target].configs.iter().map(|c| bench.space.encode(c)).zip(task_targets(bench, resolved, target, warp)).collect();
    prior.rmse(&data)
}

/// Trains the prior for `target` on every other task (leave-one-task-out) with the paper's
/// settings and a fixed seed: the prior every run uses, and the one the page draws.
pub fn train_target_prior(
    bench: &Benchmark,
    resolved: &ResolvedSpec,
    target: usize,
    warp: OutputWarp,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<TrainedPrior> {
    let data = prior_examples(bench, resolved, target, warp);
    train_prior(&data, &PriorSettings::default(), &mut job_rng(PRIOR_SEED, &prior_stream(bench, target, warp)), progress)
}

/// The name of the random stream a target's prior trains with (under [`PRIOR_SEED`]).
fn prior_stream(bench: &Benchmark, target: usize, warp: OutputWarp) -> String {
    format!("prior/{}/{}", bench.tasks[target].name, warp.as_str())
}

/// SHA-256 of everything [`train_target_prior`] reads: its training data (every example's
/// inputs, target and weight, bit for bit) and its random stream's seed and name. Two targets
/// with the same identity get the same prior, bit for bit (the settings are the defaults).
pub fn prior_identity(bench: &Benchmark, resolved: &ResolvedSpec, target: usize, warp: OutputWarp) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    hash.update(PRIOR_SEED.to_le_bytes());
    let stream = prior_stream(bench, target, warp);
    hash.update((stream.len() as u64).to_le_bytes());
    hash.update(stream.as_bytes());
    for example in prior_examples(bench, resolved, target, warp) {
        hash.update((example.x.len() as u64).to_le_bytes());
        for v in example.x.iter().chain([&example.z, &example.weight]) {
            hash.update(v.to_bits().to_le_bytes());
        }
    }
    hash.finalize().into()
}

/// Priors trained before, by [`prior_identity`]: the next trials of a study in the Python
/// package rebuild everything from the study on each proposal (Optuna's sampler contract), and
/// its prior, trained on the related studies alone, would otherwise be trained again each time
/// (about a second). It keeps the [`TrainedPriors::CAPACITY`] most recently used.
#[derive(Debug, Default)]
pub struct TrainedPriors {
    recent: Mutex<Vec<([u8; 32], Arc<TrainedPrior>)>>,
}

/// The priors this process trained for next trials ([`crate::suggest`]'s related studies).
pub static TRAINED_IN_THIS_PROCESS: TrainedPriors = TrainedPriors::new();

impl TrainedPriors {
    /// How many priors it keeps: a process proposes for a few studies at a time.
    pub const CAPACITY: usize = 8;

    /// None kept.
    pub const fn new() -> Self {
        TrainedPriors { recent: Mutex::new(Vec::new()) }
    }

    /// The prior of `target` and `warp` ([`train_target_prior`]), trained unless one of the
    /// same [`prior_identity`] was kept; true with it when it was.
    pub fn get_or_train(
        &self,
        bench: &Benchmark,
        resolved: &ResolvedSpec,
        target: usize,
        warp: OutputWarp,
    ) -> Result<(Arc<TrainedPrior>, bool)> {
        let identity = prior_identity(bench, resolved, target, warp);
        if let Some(prior) = self.take(&identity) {
            self.keep(identity, prior.clone());
            return Ok((prior, true));
        }
        // Trained without the lock held: another thread proposing meanwhile (Optuna's n_jobs)
        // waits for nothing; two trainings of one identity give the same prior.
        let prior = Arc::new(train_target_prior(bench, resolved, target, warp, &mut |_, _| true)?);
        self.keep(identity, prior.clone());
        Ok((prior, false))
    }

    fn take(&self, identity: &[u8; 32]) -> Option<Arc<TrainedPrior>> {
        let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        let at = recent.iter().position(|(id, _)| id == identity)?;
        Some(recent.remove(at).1)
    }

    /// Keeps `prior` as the most recently used, dropping the least recently used beyond
    /// [`Self::CAPACITY`].
    fn keep(&self, identity: [u8; 32], prior: Arc<TrainedPrior>) {
        let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        recent.retain(|(id, _)| *id != identity);
        recent.push((identity, prior));
        if recent.len() > Self::CAPACITY {
            recent.remove(0);
        }
    }

    /// How many priors it keeps now.
    pub fn len(&self) -> usize {
        self.recent.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// True when it keeps none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What a transfer method learns from the other tasks once per (target task, warp), and which
/// a browser worker hands to the others through the page.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Learned {
    /// The parametric prior (CTS, TS, GCP+prior, GP+prior).
    Prior(Arc<TrainedPrior>),
    /// SGPT's GP mean of every other task at each target candidate.
    OtherTaskMeans(Arc<Vec<Vec<f64>>>),
}

impl Learned {
    /// Which kind it is.
    pub fn kind(&self) -> LearnedKind {
        match self {
            Learned::Prior(_) => LearnedKind::Prior,
            Learned::OtherTaskMeans(_) => LearnedKind::OtherTaskMeans,
        }
    }
}

/// The kinds of [`Learned`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum LearnedKind {
    /// A parametric prior.
    Prior,
    /// SGPT's other-task GP means.
    OtherTaskMeans,
}

/// What can be learned once and shared: (held-out task, warp, kind).
pub type LearnedKey = (usize, OutputWarp, LearnedKind);

/// The data (compared by identity) and the objective(s) with their directions.
type StoreContext = (Arc<Benchmark>, Vec<(usize, Direction)>);

/// What was learned from the other tasks, kept between runs and the prior view.
///
/// A prior and SGPT's means depend only on the benchmark, the objective(s) with their
/// directions, the held-out task and the warp (their seeds are fixed), so an item learned by
/// one run is the item any later run or the prior view would learn again. The store holds one
/// context (a benchmark, compared by identity, and its objectives): an item for another context
/// replaces everything, so it never grows beyond one benchmark's tasks.
#[derive(Clone, Default)]
pub struct LearnedStore {
    context: Option<StoreContext>,
    items: BTreeMap<LearnedKey, Learned>,
}

impl std::fmt::Debug for LearnedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let bench = self.context.as_ref().map(|(b, o)| (b.name.as_str(), o));
        f.debug_struct("LearnedStore").field("context", &bench).field("items", &self.items.keys().collect::<Vec<_>>()).finish()
    }
}

impl LearnedStore {
    fn holds(&self, bench: &Arc<Benchmark>, resolved: &ResolvedSpec) -> bool {
        self.context.as_ref().is_some_and(|(b, o)| Arc::ptr_eq(b, bench) && *o == resolved.objectives)
    }

    /// Every item learned for `bench` under `resolved`'s objective(s).
    pub fn items(&self, bench: &Arc<Benchmark>, resolved: &ResolvedSpec) -> Vec<(LearnedKey, Learned)> {
        if !self.holds(bench, resolved) {
            return Vec::new();
        }
        self.items.iter().map(|(k, v)| (*k, v.clone())).collect()
    }

    /// The item for `key`, if it was learned for `bench` under `resolved`'s objective(s).
    pub fn get(&self, bench: &Arc<Benchmark>, resolved: &ResolvedSpec, key: LearnedKey) -> Option<Learned> {
        self.holds(bench, resolved).then(|| self.items.get(&key).cloned()).flatten()
    }

    /// Keeps `learned` for (`target`, `warp`), dropping everything of another context.
    pub fn insert(&mut self, bench: &Arc<Benchmark>, resolved: &ResolvedSpec, target: usize, warp: OutputWarp, learned: Learned) {
        if !self.holds(bench, resolved) {
            self.items.clear();
            self.context = Some((bench.clone(), resolved.objectives.clone()));
        }
        self.items.insert((target, warp, learned.kind()), learned);
    }
}

type Slot = Arc<OnceLock<std::result::Result<Arc<TrainedPrior>, String>>>;

type MeansSlot = Arc<OnceLock<std::result::Result<Arc<Vec<Vec<f64>>>, String>>>;

/// What transfer methods learn from the other tasks, computed once per (target task, warp)
/// and shared by every seed and method of a run: trained priors, and SGPT's per-task GP means.
#[derive(Debug, Default)]
pub struct PriorCache {
    slots: Mutex<BTreeMap<(usize, OutputWarp), Slot>>,
    means: Mutex<BTreeMap<(usize, OutputWarp), MeansSlot>>,
}

/// Seed of prior training: fixed, so the prior does not depend on the BO seed.
const PRIOR_SEED: u64 = 20_200_713;

impl PriorCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The prior for `target` and `warp`, trained on first use.
    pub fn get(
        &self,
        bench: &Benchmark,
        resolved: &ResolvedSpec,
        target: usize,
        warp: OutputWarp,
        progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Result<Arc<TrainedPrior>> {
        if resolved.spec.transfer != TransferMode::LeaveOneTaskOut {
            return Err(EngineError::Spec("methods with a parametric prior need transfer mode 'leave one task out'".into()));
        }
        if bench.tasks.len() < 2 {
            return Err(EngineError::Spec(format!("{} has a single task: a prior needs other tasks to learn from", bench.name)));
        }
        let slot = self.slots.lock().expect("cache lock").entry((target, warp)).or_default().clone();
        let result =
            slot.get_or_init(|| train_target_prior(bench, resolved, target, warp, progress).map(Arc::new).map_err(|e| e.to_string()));
        result.clone().map_err(|message| EngineError::Method { method: "prior".into(), message })
    }

    /// Stores what was learned elsewhere (another worker) for `target` and `warp`, unless this
    /// cache has it already: both depend only on the benchmark, the target task and the warp
    /// (their seeds are fixed), so one computed anywhere is the one this cache would compute.
    pub fn insert(&self, target: usize, warp: OutputWarp, learned: Learned) {
        match learned {
            Learned::Prior(prior) => {
                let _ = self.slots.lock().expect("cache lock").entry((target, warp)).or_default().clone().set(Ok(prior));
            }
            Learned::OtherTaskMeans(means) => {
                let _ = self.means.lock().expect("cache lock").entry((target, warp)).or_default().clone().set(Ok(means));
            }
        }
    }

    /// Everything learned (or inserted) so far, by (target task, warp).
    pub fn learned(&self) -> Vec<((usize, OutputWarp), Learned)> {
        let priors = self.slots.lock().expect("cache lock");
        let means = self.means.lock().expect("cache lock");
        let prior_items = priors.iter().filter_map(|(&key, slot)| Some((key, Learned::Prior(slot.get()?.as_ref().ok()?.clone()))));
        let mean_items = means.iter().filter_map(|(&key, slot)| Some((key, Learned::OtherTaskMeans(slot.get()?.as_ref().ok()?.clone()))));
        prior_items.chain(mean_items).collect()
    }

    /// SGPT's GP means of every other task at the target's candidates, computed on first use.
    pub fn other_task_means(
        &self,
        bench: &Benchmark,
        resolved: &ResolvedSpec,
        target: usize,
        warp: OutputWarp,
    ) -> Result<Arc<Vec<Vec<f64>>>> {
        require_transfer(resolved)?;
        let slot = self.means.lock().expect("cache lock").entry((target, warp)).or_default().clone();
        let result = slot.get_or_init(|| {
            let others: Vec<Evaluations> = (0..bench.tasks.len())
                .filter(|&t| t != target)
                .map(|t| (bench.encoded_task(t), objective_losses(bench, resolved, t)))
                .collect();
            other_task_means(&others, warp, &bench.encoded_task(target)).map(Arc::new).map_err(|e| e.to_string())
        });
        // Labelled by the method that asked (SGPT or SGPT Copula) in `transfer_context`.
        result.clone().map_err(|message| EngineError::Method { method: String::new(), message })
    }
}

/// What `method` may learn from the other tasks, learned (or taken from `priors`) for held-out
/// task `target`, and its prior's RMSE on the target (Fig. 4) when it has a prior.
pub fn transfer_context(
    bench: &Benchmark,
    resolved: &ResolvedSpec,
    target: usize,
    method: &MethodEntry,
    priors: &PriorCache,
    prior_progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<(TransferContext, Option<f64>)> {
    let mut context = TransferContext::default();
    let mut prior_rmse = None;
    match method.transfer() {
        TransferNeed::None => {}
        TransferNeed::Prior(warp) => {
            let prior = priors.get(bench, resolved, target, warp, prior_progress)?;
            prior_rmse = Some(prior_rmse_on_target(bench, resolved, target, warp, &prior));
            context.prior = Some(prior);
        }
        TransferNeed::OtherBest => context.other_best = other_tasks_best(bench, resolved, target)?,
        TransferNeed::OtherTaskGps(warp) => {
            let means = priors.other_task_means(bench, resolved, target, warp).map_err(|e| e.for_method(method.name))?;
            context.other_task_means = Some(means);
        }
        TransferNeed::OtherData => context.other_data = other_tasks_data(bench, resolved, target)?,
    }
    Ok((context, prior_rmse))
}

/// Losses (smaller is better) of every objective of `resolved` on task `t`: `[objective][config]`.
pub fn task_loss_columns(bench: &Benchmark, resolved: &ResolvedSpec, t: usize) -> Vec<Vec<f64>> {
    resolved.objectives.iter().map(|&(m, d)| d.losses(&bench.tasks[t].metrics[m])).collect()
}

/// Every evaluation (encoded configurations, losses) of every task but `target`, in task order.
pub fn other_tasks_data(bench: &Benchmark, resolved: &ResolvedSpec, target: usize) -> Result<Vec<Evaluations>> {
    require_transfer(resolved)?;
    Ok((0..bench.tasks.len()).filter(|&t| t != target).map(|t| (bench.encoded_task(t), objective_losses(bench, resolved, t))).collect())
}

/// The objective's losses (smaller is better) on every configuration of task `t`.
pub fn objective_losses(bench: &Benchmark, resolved: &ResolvedSpec, t: usize) -> Vec<f64> {
    resolved.direction.losses(&bench.tasks[t].metrics[resolved.objective])
}

/// Learning from the other tasks needs the leave-one-task-out protocol (checked by
/// [`crate::spec::ExperimentSpec::resolve`] too; this guards direct callers).
fn require_transfer(resolved: &ResolvedSpec) -> Result<()> {
    if resolved.spec.transfer != TransferMode::LeaveOneTaskOut {
        return Err(EngineError::Spec("methods that learn from the other tasks need transfer mode 'leave one task out'".into()));
    }
    Ok(())
}

/// The best configuration (encoded) of every task but `target`, in task order.
pub fn other_tasks_best(bench: &Benchmark, resolved: &ResolvedSpec, target: usize) -> Result<Vec<Vec<f64>>> {
    require_transfer(resolved)?;
    Ok((0..bench.tasks.len())
        .filter(|&t| t != target)
        .filter_map(|t| {
            let losses = objective_losses(bench, resolved, t);
            let best = (0..losses.len()).min_by(|&a, &b| losses[a].total_cmp(&losses[b]))?;
            Some(bench.space.encode(&bench.tasks[t].configs[best]))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundled::quadratic_family;
    use crate::spec::ExperimentSpec;

    fn gcp_prior_on_quadratic() -> (Benchmark, ResolvedSpec) {
        let bench = quadratic_family();
        let spec =
            ExperimentSpec { methods: vec!["GCP+prior".into()], transfer: TransferMode::LeaveOneTaskOut, ..ExperimentSpec::default() };
        let resolved = spec.resolve(&bench).unwrap();
        (bench, resolved)
    }

    #[test]
    fn the_page_trains_the_same_prior_as_the_runs() {
        let (bench, resolved) = gcp_prior_on_quadratic();
        let cached = PriorCache::new().get(&bench, &resolved, 2, OutputWarp::Copula, &mut |_, _| true).unwrap();
        let direct = train_target_prior(&bench, &resolved, 2, OutputWarp::Copula, &mut |_, _| true).unwrap();
        assert_eq!(*cached, direct);
        let other_task = train_target_prior(&bench, &resolved, 3, OutputWarp::Copula, &mut |_, _| true).unwrap();
        assert_ne!(other_task, direct, "each held-out task has its own prior");
    }

    #[test]
    fn a_kept_prior_is_the_one_training_gives_and_is_found_by_its_data() {
        let (bench, resolved) = gcp_prior_on_quadratic();
        let kept = TrainedPriors::new();
        let (first, found) = kept.get_or_train(&bench, &resolved, 2, OutputWarp::Copula).unwrap();
        assert!(!found && kept.len() == 1);
        let (again, found) = kept.get_or_train(&bench.clone(), &resolved, 2, OutputWarp::Copula).unwrap();
        assert!(found && Arc::ptr_eq(&first, &again), "the same data in another benchmark value finds it");
        let trained = train_target_prior(&bench, &resolved, 2, OutputWarp::Copula, &mut |_, _| true).unwrap();
        assert_eq!(serde_json::to_string(&*again).unwrap(), serde_json::to_string(&trained).unwrap(), "bit for bit");
        // Anything the training reads changes the identity: another held-out task, warp, or
        // one value of another task (ψ reads the ranks alone; Δ every value).
        let identity = prior_identity(&bench, &resolved, 2, OutputWarp::Copula);
        assert_ne!(prior_identity(&bench, &resolved, 3, OutputWarp::Copula), identity);
        assert_ne!(prior_identity(&bench, &resolved, 2, OutputWarp::Standardize), identity);
        let mut changed = bench.clone();
        changed.tasks[0].metrics[resolved.objective][0] += 1e-9;
        assert_eq!(prior_identity(&changed, &resolved, 2, OutputWarp::Copula), identity, "the same ranks");
        let standardized = prior_identity(&bench, &resolved, 2, OutputWarp::Standardize);
        assert_ne!(prior_identity(&changed, &resolved, 2, OutputWarp::Standardize), standardized);
        // The least recently used goes first beyond the capacity.
        for i in 0..TrainedPriors::CAPACITY as u8 - 1 {
            kept.keep([i; 32], first.clone());
        }
        assert!(kept.get_or_train(&bench, &resolved, 2, OutputWarp::Copula).unwrap().1, "used again: the most recent");
        kept.keep([255; 32], first.clone());
        assert_eq!(kept.len(), TrainedPriors::CAPACITY);
        assert!(kept.take(&[0; 32]).is_none() && kept.take(&identity).is_some());
    }

    #[test]
    fn the_store_gives_back_items_only_for_the_same_benchmark_and_objective() {
        let (bench, resolved) = gcp_prior_on_quadratic();
        let bench = Arc::new(bench);
        let prior = PriorCache::new().get(&bench, &resolved, 1, OutputWarp::Copula, &mut |_, _| true).unwrap();
        let mut store = LearnedStore::default();
        assert!(store.items(&bench, &resolved).is_empty());
        store.insert(&bench, &resolved, 1, OutputWarp::Copula, Learned::Prior(prior.clone()));
        let key = (1, OutputWarp::Copula, LearnedKind::Prior);
        assert_eq!(store.get(&bench, &resolved, key), Some(Learned::Prior(prior.clone())));
        assert_eq!(store.get(&bench, &resolved, (1, OutputWarp::Standardize, LearnedKind::Prior)), None);
        assert_eq!(store.items(&bench, &resolved).len(), 1);
        // The same data loaded again is another benchmark: nothing carries over.
        let reloaded = Arc::new((*bench).clone());
        assert_eq!(store.get(&reloaded, &resolved, key), None);
        // Another direction is another objective.
        let mut maximise = resolved.clone();
        maximise.objectives[0].1 = match maximise.objectives[0].1 {
            Direction::Minimize => Direction::Maximize,
            Direction::Maximize => Direction::Minimize,
        };
        assert_eq!(store.get(&bench, &maximise, key), None);
        // An item of another context replaces the store's context and items.
        store.insert(&reloaded, &resolved, 2, OutputWarp::Copula, Learned::Prior(prior.clone()));
        assert_eq!(store.get(&bench, &resolved, key), None);
        assert_eq!(store.items(&reloaded, &resolved).len(), 1);
    }

    #[test]
    fn what_was_learned_elsewhere_is_used_instead_of_learning_it_again() {
        let (bench, resolved) = gcp_prior_on_quadratic();
        let elsewhere = PriorCache::new();
        let prior = elsewhere.get(&bench, &resolved, 2, OutputWarp::Copula, &mut |_, _| true).unwrap();
        let means = elsewhere.other_task_means(&bench, &resolved, 2, OutputWarp::Standardize).unwrap();
        let learned = elsewhere.learned();
        assert_eq!(learned.len(), 2);
        let here = PriorCache::new();
        assert!(here.learned().is_empty());
        for (key, item) in learned {
            // Through the page: serialised and back, as between workers.
            let item: Learned = serde_json::from_str(&serde_json::to_string(&item).unwrap()).unwrap();
            here.insert(key.0, key.1, item);
        }
        let mut steps = 0;
        let got = here.get(&bench, &resolved, 2, OutputWarp::Copula, &mut |_, _| {
            steps += 1;
            true
        });
        assert_eq!(steps, 0, "no training when the prior was inserted");
        assert_eq!(*got.unwrap(), *prior);
        assert_eq!(*here.other_task_means(&bench, &resolved, 2, OutputWarp::Standardize).unwrap(), *means);
        // The same key again keeps the first.
        let first = here.get(&bench, &resolved, 2, OutputWarp::Copula, &mut |_, _| true).unwrap();
        here.insert(2, OutputWarp::Copula, Learned::Prior(Arc::new((*prior).clone())));
        assert!(Arc::ptr_eq(&here.get(&bench, &resolved, 2, OutputWarp::Copula, &mut |_, _| true).unwrap(), &first));
        let kinds: Vec<_> = here.learned().iter().map(|(key, item)| (*key, item.kind())).collect();
        assert_eq!(kinds, vec![((2, OutputWarp::Copula), LearnedKind::Prior), ((2, OutputWarp::Standardize), LearnedKind::OtherTaskMeans)]);
    }
}
