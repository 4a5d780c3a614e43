//! What the page keeps of an experiment between visits (in the browser's IndexedDB, written by
//! `app::store`): a record naming the experiment by its link, and each finished job's trace
//! under a key that says which job it is. Pure data and rules, so that resuming — which jobs
//! are finished, which remain — is tested natively.

use serde::{Deserialize, Serialize};

use super::benchmark::Benchmark;
use super::content_hash;
use super::permalink::to_query;
use super::spec::{ExperimentSpec, Job, ResolvedSpec};
use super::trace::Trace;

/// One experiment as kept: its link and how much of it is finished.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExperimentRecord {
    /// [`experiment_id`] of the spec.
    pub id: String,
    /// The link's query string (without `?`): opening it restores the experiment.
    pub query: String,
    /// One line for the list: data, methods, seeds and length.
    pub title: String,
    /// Jobs in the experiment.
    pub total_jobs: usize,
    /// Jobs whose trace is kept.
    pub done_jobs: usize,
    /// Bytes of the kept traces (their JSON).
    pub bytes: u64,
    /// When the last trace was kept (ms since 1970).
    pub saved_ms: f64,
}

/// The key of an experiment: the SHA-256 of its canonical link without how it is shown, so
/// that the same setup — opened again from its link, after a reload, or with its charts on a
/// log scale — finds what was kept of it.
pub fn experiment_id(spec: &ExperimentSpec) -> String {
    content_hash(to_query(&spec.without_view()).as_bytes())[..32].to_string()
}

/// The key of one job's trace within experiment `id` (keys of one experiment share the prefix
/// [`trace_key_range`]). The separator cannot occur in a link's query string.
pub fn trace_key(id: &str, method: &str, task: &str, seed: u64) -> String {
    format!("{id}\u{1}{method}\u{1}{task}\u{1}{seed}")
}

/// Lower and upper bound (exclusive) of the keys of experiment `id`'s traces.
pub fn trace_key_range(id: &str) -> (String, String) {
    (format!("{id}\u{1}"), format!("{id}\u{2}"))
}

/// A record for `resolved`'s experiment with nothing finished yet.
pub fn new_record(resolved: &ResolvedSpec, bench: &Benchmark, saved_ms: f64) -> ExperimentRecord {
    let spec = &resolved.spec;
    let methods: Vec<&str> = resolved.methods.iter().map(|m| m.name).collect();
    let title = format!(
        "{} · {} · {} × {} × {}",
        bench.name,
        methods.join(", "),
        super::axis::count(resolved.tasks.len(), "task"),
        super::axis::count(spec.seeds as usize, "seed"),
        resolved.mode.describe()
    );
    ExperimentRecord {
        id: experiment_id(spec),
        query: to_query(spec),
        title,
        total_jobs: resolved.jobs().len(),
        done_jobs: 0,
        bytes: 0,
        saved_ms,
    }
}

impl ResolvedSpec {
    /// Splits the experiment's jobs by what was kept: the kept traces that belong to one of its
    /// jobs (each job once, in job order) and the jobs still to run. A trace of another
    /// experiment, method, task or seed is ignored.
    pub fn split_finished(&self, bench: &Benchmark, kept: Vec<Trace>) -> (Vec<Trace>, Vec<Job>) {
        let mut kept: std::collections::BTreeMap<(String, String, u64), Trace> =
            kept.into_iter().map(|t| ((t.method.clone(), t.task.clone(), t.seed), t)).collect();
        let mut finished = Vec::new();
        let mut remaining = Vec::new();
        for job in self.jobs() {
            let key = (job.method.clone(), bench.tasks[job.task].name.clone(), job.seed);
            match kept.remove(&key) {
                Some(trace) if trace.blackbox == bench.name => finished.push(trace),
                _ => remaining.push(job),
            }
        }
        (finished, remaining)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn how_results_are_shown_is_not_part_of_an_experiments_key() {
        let spec = ExperimentSpec::default();
        let shown = ExperimentSpec {
            log_y: true,
            design_view: Some(crate::fidelity::gpb::view_setting::DesignViewSpec::default()),
            ..spec.clone()
        };
        assert_eq!(experiment_id(&spec), experiment_id(&shown));
        assert_ne!(experiment_id(&spec), experiment_id(&ExperimentSpec { seeds: 7, ..spec.clone() }));
    }
    use crate::bundled::load_bundled;
    use crate::runner::run_job;
    use crate::transfer::PriorCache;

    fn setup() -> (Benchmark, ResolvedSpec) {
        let bench = load_bundled("quadratic").unwrap();
        let spec = ExperimentSpec {
            methods: vec!["RS".into(), "GP".into()],
            tasks: vec![bench.tasks[0].name.clone(), bench.tasks[1].name.clone()],
            seeds: 2,
            iterations: 4,
            ..ExperimentSpec::default()
        };
        let resolved = spec.resolve(&bench).unwrap();
        (bench, resolved)
    }

    #[test]
    fn the_id_follows_the_link_and_the_keys_stay_in_its_range() {
        let (bench, resolved) = setup();
        let id = experiment_id(&resolved.spec);
        assert_eq!(id.len(), 32);
        let mut other = resolved.spec.clone();
        other.seeds = 3;
        assert_ne!(experiment_id(&other), id, "another setup is another experiment");
        let (lo, hi) = trace_key_range(&id);
        let key = trace_key(&id, "GCP+prior", &bench.tasks[0].name, 7);
        assert!(lo < key && key < hi);
        // Another experiment's keys fall outside, even one whose id extends this one's.
        let longer = format!("{id}0");
        assert!(trace_key(&longer, "RS", "t", 0) > hi || trace_key(&longer, "RS", "t", 0) < lo);
        let record = new_record(&resolved, &bench, 0.0);
        assert_eq!(record.total_jobs, 8);
        assert!(record.title.contains("RS, GP") && record.title.contains("2 tasks × 2 seeds × 4 iterations"), "{}", record.title);
    }

    #[test]
    fn finished_jobs_are_kept_and_only_the_rest_remain() {
        let (bench, resolved) = setup();
        let jobs = resolved.jobs();
        let priors = PriorCache::new();
        let run = |job: &Job| run_job(&bench, &resolved, job, &priors, &|| 0.0, &mut |_| true).unwrap();
        let mut kept: Vec<Trace> = [1, 4, 6].iter().map(|&k| run(&jobs[k])).collect();
        // A stray trace (another seed) and a duplicate are ignored.
        let mut stray = kept[0].clone();
        stray.seed = 99;
        kept.push(stray);
        kept.push(kept[1].clone());
        let (finished, remaining) = resolved.split_finished(&bench, kept);
        assert_eq!(finished.len(), 3);
        assert_eq!(remaining, [0, 2, 3, 5, 7].iter().map(|&k| jobs[k].clone()).collect::<Vec<_>>());
        // Running the rest gives every trace an uninterrupted run gives.
        let mut resumed = finished;
        resumed.extend(remaining.iter().map(run));
        let key = |t: &Trace| (t.method.clone(), t.task.clone(), t.seed);
        resumed.sort_by_key(key);
        let mut whole: Vec<Trace> = jobs.iter().map(run).collect();
        whole.sort_by_key(key);
        assert_eq!(crate::export::traces_csv(&resumed), crate::export::traces_csv(&whole));
        // Traces of another benchmark do not count.
        let mut foreign = run(&jobs[0]);
        foreign.blackbox = "other".into();
        assert_eq!(resolved.split_finished(&bench, vec![foreign]).1.len(), 8);
    }
}
