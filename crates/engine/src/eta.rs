//! How long the rest of a run will take, from every job's progress so far. A job's time is
//! projected from its own pace along its method's step growth ([`StepGrowth`]): a faithful
//! DyHPO step grows with the observations (the second half of a race's budget takes several
//! times the first), so its pace over the first steps, scaled by the growth to the job's
//! total, gives the job's time after a few steps instead of after its end. Jobs not started
//! take their method's measured mean when one has finished, else the projection of its
//! running jobs; a running job's own projection then counts as far as its share of the work
//! goes, the mean for the rest; a method with neither has an unknown share, and the estimate says so instead
//! of guessing. The jobs left are spread over the workers, never below the longest one left.

use std::collections::BTreeMap;

use crate::method_entry::StepGrowth;

/// Steps a job runs before its pace is projected (its first steps hold fixed costs: a cold
/// fit, the first evaluations).
pub const STEPS_BEFORE_PROJECTING: u64 = 3;

/// The jobs of a run, per method: how many are left, how long the finished ones took and
/// how the method's steps grow.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TimeLeft {
    per_method: BTreeMap<String, MethodTimes>,
}

#[derive(Debug, Clone, PartialEq)]
struct MethodTimes {
    left: usize,
    finished: usize,
    seconds: f64,
    growth: StepGrowth,
}

/// A job running now, for [`TimeLeft::estimate_running`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Running<'a> {
    /// Its method.
    pub method: &'a str,
    /// Wall seconds since it started.
    pub seconds: f64,
    /// Steps (iterations or budget units) done at its last report, and at how many seconds
    /// after its start it made it.
    pub done: u64,
    /// See `done`.
    pub reported: f64,
    /// The steps it will take in all.
    pub total: u64,
}

impl Running<'_> {
    /// Its projected wall seconds from start to end: its pace so far along `growth`; `None`
    /// before [`STEPS_BEFORE_PROJECTING`] steps.
    fn projected(&self, growth: StepGrowth) -> Option<f64> {
        if self.done < STEPS_BEFORE_PROJECTING || self.reported <= 0.0 || self.total == 0 {
            return None;
        }
        let so_far = growth.through(self.done);
        (so_far > 0.0).then(|| self.reported * growth.through(self.total.max(self.done)) / so_far)
    }
}

/// What can be said of the time left.
#[derive(Debug, Clone, PartialEq)]
pub enum Estimate {
    /// About this many seconds.
    Seconds(f64),
    /// Not yet: this method has jobs left, none finished and none far enough to project.
    NotKnownUntil(String),
    /// No job is left.
    Done,
}

impl TimeLeft {
    /// A run of these jobs: one (method name, its step growth) per job.
    pub fn new<'a>(jobs: impl IntoIterator<Item = (&'a str, StepGrowth)>) -> Self {
        let mut per_method: BTreeMap<String, MethodTimes> = BTreeMap::new();
        for (m, growth) in jobs {
            per_method.entry(m.to_string()).or_insert(MethodTimes { left: 0, finished: 0, seconds: 0.0, growth }).left += 1;
        }
        TimeLeft { per_method }
    }

    /// A job of `method` finished after `seconds` of wall time in its worker (NaN when that
    /// is not known, as for a job whose worker crashed: it is then no longer left, but says
    /// nothing of how long the method's jobs take).
    pub fn finished(&mut self, method: &str, seconds: f64) {
        if let Some(t) = self.per_method.get_mut(method) {
            t.left = t.left.saturating_sub(1);
            if seconds.is_finite() && seconds >= 0.0 {
                t.finished += 1;
                t.seconds += seconds;
            }
        }
    }

    /// The time left with `workers` running jobs side by side, before any job runs.
    pub fn estimate(&self, workers: usize) -> Estimate {
        self.estimate_running(workers, &[])
    }

    /// The time left with `workers` running jobs side by side and these jobs running now: the
    /// work left spread over the workers, but never less than the longest job left (a job
    /// runs on one worker).
    pub fn estimate_running(&self, workers: usize, running: &[Running<'_>]) -> Estimate {
        let mut total = 0.0;
        let mut longest: f64 = 0.0;
        let mut any_left = false;
        for (method, t) in &self.per_method {
            if t.left == 0 {
                continue;
            }
            any_left = true;
            let mine: Vec<&Running> = running.iter().filter(|r| r.method == method.as_str()).take(t.left).collect();
            let projections: Vec<f64> = mine.iter().filter_map(|r| r.projected(t.growth)).collect();
            // What a job of this method takes: measured when one has finished, else projected.
            let per_job = if t.finished > 0 {
                t.seconds / t.finished as f64
            } else if !projections.is_empty() {
                projections.iter().sum::<f64>() / projections.len() as f64
            } else {
                return Estimate::NotKnownUntil(method.clone());
            };
            for r in &mine {
                // Its own pace, trusted as far as it has gone when the method has a measured
                // mean: a job's first steps hold a cold fit the growth does not model.
                let own = match (r.projected(t.growth), t.finished) {
                    (Some(p), 0) => p,
                    (Some(p), _) => {
                        let share = t.growth.through(r.done) / t.growth.through(r.total.max(r.done)).max(f64::MIN_POSITIVE);
                        share * p + (1.0 - share) * per_job
                    }
                    (None, _) => per_job,
                };
                let rest = (own - r.seconds).max(0.0);
                total += rest;
                longest = longest.max(rest);
            }
            let not_started = t.left - mine.len();
            total += not_started as f64 * per_job;
            if not_started > 0 {
                longest = longest.max(per_job);
            }
        }
        if any_left {
            Estimate::Seconds((total / workers.max(1) as f64).max(longest))
        } else {
            Estimate::Done
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FLAT: StepGrowth = StepGrowth::Flat;

    #[test]
    fn each_method_is_timed_by_its_own_finished_jobs_and_unknown_until_one_ends_or_runs() {
        let mut t = TimeLeft::new([("RS", FLAT), ("RS", FLAT), ("RS", FLAT), ("DyHPO", FLAT), ("DyHPO", FLAT)]);
        assert_eq!(t.estimate(2), Estimate::NotKnownUntil("DyHPO".into()));
        t.finished("RS", 1.0);
        assert_eq!(t.estimate(2), Estimate::NotKnownUntil("DyHPO".into()), "a fast method says nothing of a slow one");
        t.finished("DyHPO", 50.0);
        // Left: 2 RS jobs of 1 s and 1 DyHPO job of 50 s: over 2 workers the DyHPO job alone
        // takes 50 s, over 1 worker everything takes 52 s.
        assert_eq!(t.estimate(2), Estimate::Seconds(50.0));
        assert_eq!(t.estimate(1), Estimate::Seconds(52.0));
        t.finished("RS", 3.0);
        t.finished("RS", 2.0);
        assert_eq!(t.estimate(1), Estimate::Seconds(50.0));
        t.finished("DyHPO", 70.0);
        assert_eq!(t.estimate(1), Estimate::Done);
        t.finished("unknown method", 1.0);
        assert_eq!(t.estimate(0), Estimate::Done);
        // A crashed job is no longer left but has no time.
        let mut t = TimeLeft::new([("GP", FLAT); 3]);
        t.finished("GP", f64::NAN);
        assert_eq!(t.estimate(1), Estimate::NotKnownUntil("GP".into()));
        t.finished("GP", 4.0);
        assert_eq!(t.estimate(1), Estimate::Seconds(4.0));
    }

    #[test]
    fn a_running_job_is_projected_from_its_own_pace_after_a_few_steps() {
        let t = TimeLeft::new([("RS", FLAT); 3]);
        let at = |seconds: f64, done: u64, reported: f64| Running { method: "RS", seconds, done, reported, total: 100 };
        // Two steps are not enough to say.
        assert_eq!(t.estimate_running(2, &[at(1.0, 2, 1.0)]), Estimate::NotKnownUntil("RS".into()));
        // 10 of 100 steps in 2 s: 20 s a job. Two running, one waiting, on two workers:
        // (18 + 16 + 20) / 2 = 27 s, more than the longest job left (20 s).
        let e = t.estimate_running(2, &[at(2.0, 10, 2.0), at(4.0, 20, 4.0)]);
        assert_eq!(e, Estimate::Seconds(27.0));
        // The clock runs on between reports: the figure falls with it.
        assert_eq!(t.estimate_running(2, &[at(3.0, 10, 2.0), at(5.0, 20, 4.0)]), Estimate::Seconds(26.0));
    }

    #[test]
    fn a_growing_step_makes_the_rest_of_a_job_longer_than_its_share_of_steps() {
        // Steps of n² seconds: the first half of a 100-step job is about an eighth of it.
        let growth = StepGrowth::Polynomial { base: 0.0, square: 1.0, cube: 0.0, cap: None };
        let t = TimeLeft::new([("DyHPO", growth)]);
        let half = growth.through(50);
        let whole = growth.through(100);
        assert!((half / whole - 0.127).abs() < 0.005, "{}", half / whole);
        let job = Running { method: "DyHPO", seconds: 10.0, done: 50, reported: 10.0, total: 100 };
        let Estimate::Seconds(s) = t.estimate_running(1, &[job]) else { panic!() };
        assert!((s - 10.0 * (whole / half - 1.0)).abs() < 1e-9, "{s}");
        assert!(s > 60.0, "a flat projection would say 10 s: {s}");
        // Once one such job has finished, the jobs not started take its measured time.
        let mut t = TimeLeft::new([("DyHPO", growth); 3]);
        t.finished("DyHPO", 80.0);
        assert_eq!(t.estimate_running(1, &[]), Estimate::Seconds(160.0));
        // And a job just started (its cold first steps slow) counts mostly at the mean: 10 s
        // for 5 of 100 steps projects to 17 h, but those steps are 0.02 % of its work. Its
        // rest, about 80 s, and one job not started: about 160 s on one worker.
        let young = Running { method: "DyHPO", seconds: 10.0, done: 5, reported: 10.0, total: 100 };
        let Estimate::Seconds(s) = t.estimate_running(1, &[young]) else { panic!() };
        assert!((s - 160.0).abs() < 1.0, "{s}");
    }

    #[test]
    fn step_growth_sums_match_a_loop_over_the_steps() {
        let growth = StepGrowth::Polynomial { base: 0.5, square: 1e-3, cube: 2e-6, cap: Some(40) };
        for steps in [0u64, 1, 7, 40, 41, 100] {
            let looped: f64 = (1..=steps).map(|n| n.min(40) as f64).map(|m| 0.5 + 1e-3 * m * m + 2e-6 * m * m * m).sum();
            assert!((growth.through(steps) - looped).abs() < 1e-9 * looped.max(1.0), "{steps}");
        }
        assert_eq!(StepGrowth::Flat.through(12), 12.0);
    }
}
