//! How long the rest of a run will take, from the jobs finished so far. Within a job, progress
//! says little about time (a faithful DyHPO step grows with the cube of its observations, so
//! the first half of a race's budget takes a fraction of the time of the second), so the
//! estimate is made from whole jobs: per method, the mean wall time of its finished jobs times
//! the jobs it has left, spread over the workers. Until a method has finished a job, its share
//! is not known, and the estimate says so instead of guessing. Between job ends the jobs
//! still running count with what they have left: their method's mean less the time they have
//! run, or at their own pace so far when that is slower (so the figure falls as they run and
//! does not stand still until the next job ends).

use std::collections::BTreeMap;

/// The jobs of a run, per method: how many are left and how long the finished ones took.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TimeLeft {
    per_method: BTreeMap<String, MethodTimes>,
}

#[derive(Debug, Clone, Default, PartialEq)]
struct MethodTimes {
    left: usize,
    finished: usize,
    seconds: f64,
}

/// A job running now, for [`TimeLeft::estimate_running`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Running<'a> {
    /// Its method.
    pub method: &'a str,
    /// Wall seconds since it started.
    pub seconds: f64,
    /// Fraction of its work done, in [0, 1] (0: not known).
    pub fraction: f64,
}

/// What can be said of the time left.
#[derive(Debug, Clone, PartialEq)]
pub enum Estimate {
    /// About this many seconds.
    Seconds(f64),
    /// Not yet: this method has jobs left and none finished.
    NotKnownUntil(String),
    /// No job is left.
    Done,
}

impl TimeLeft {
    /// A run of these jobs, one method name per job.
    pub fn new<'a>(methods: impl IntoIterator<Item = &'a str>) -> Self {
        let mut per_method: BTreeMap<String, MethodTimes> = BTreeMap::new();
        for m in methods {
            per_method.entry(m.to_string()).or_default().left += 1;
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

    /// The time left with `workers` running jobs side by side: the work left spread over them,
    /// but never less than one job of the slowest method left (a job runs on one worker).
    pub fn estimate(&self, workers: usize) -> Estimate {
        self.estimate_running(workers, &[])
    }

    /// [`TimeLeft::estimate`] with the jobs running now: (method, seconds it has run, fraction
    /// of its work done in [0, 1], 0 when not known). A running job has left the larger of its
    /// method's mean less the time it has run and the rest at its own pace so far.
    pub fn estimate_running(&self, workers: usize, running: &[Running<'_>]) -> Estimate {
        let mut total = 0.0;
        let mut longest: f64 = 0.0;
        let mut any_left = false;
        for (method, t) in &self.per_method {
            if t.left == 0 {
                continue;
            }
            any_left = true;
            if t.finished == 0 {
                return Estimate::NotKnownUntil(method.clone());
            }
            let mean = t.seconds / t.finished as f64;
            let mut not_started = t.left;
            for r in running.iter().filter(|r| r.method == method.as_str()).take(t.left) {
                not_started -= 1;
                let own_pace = if r.fraction > 0.0 && r.fraction < 1.0 { r.seconds * (1.0 - r.fraction) / r.fraction } else { 0.0 };
                let rest = (mean - r.seconds).max(own_pace).max(0.0);
                total += rest;
                longest = longest.max(rest);
            }
            total += not_started as f64 * mean;
            if not_started > 0 {
                longest = longest.max(mean);
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

    #[test]
    fn each_method_is_timed_by_its_own_finished_jobs_and_unknown_until_one_ends() {
        let mut t = TimeLeft::new(["RS", "RS", "RS", "DyHPO", "DyHPO"]);
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
        let mut t = TimeLeft::new(["GP", "GP", "GP"]);
        t.finished("GP", f64::NAN);
        assert_eq!(t.estimate(1), Estimate::NotKnownUntil("GP".into()));
        t.finished("GP", 4.0);
        assert_eq!(t.estimate(1), Estimate::Seconds(4.0));
    }

    #[test]
    fn running_jobs_count_what_they_have_left_so_the_figure_falls_between_job_ends() {
        let mut t = TimeLeft::new(["RS"; 4]);
        t.finished("RS", 10.0);
        t.finished("RS", 10.0);
        // Two left, both running on two workers: 10 s each before they start.
        assert_eq!(t.estimate(2), Estimate::Seconds(10.0));
        let at = |seconds: f64, fraction: f64| Running { method: "RS", seconds, fraction };
        assert_eq!(t.estimate_running(2, &[at(4.0, 0.4), at(7.0, 0.7)]), Estimate::Seconds(6.0), "the longer rest, 10 - 4");
        assert_eq!(t.estimate_running(2, &[at(8.5, 0.9), at(9.0, 0.95)]), Estimate::Seconds(1.5));
        // Slower than the mean: at its own pace, 12 s for half, 12 s more.
        assert_eq!(t.estimate_running(1, &[at(12.0, 0.5)]), Estimate::Seconds(22.0), "12 s left of it plus one of 10 s not started");
        // Overrun with no progress known: nothing left of it, the other job still whole.
        assert_eq!(t.estimate_running(2, &[at(15.0, 0.0)]), Estimate::Seconds(10.0));
        // A running job of a method without a finished job says nothing yet.
        let u = TimeLeft::new(["GP"]);
        assert_eq!(u.estimate_running(1, &[Running { method: "GP", seconds: 3.0, fraction: 0.5 }]), Estimate::NotKnownUntil("GP".into()));
    }
}
