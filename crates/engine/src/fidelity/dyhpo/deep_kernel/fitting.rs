//! The fit of the deep kernel (App. C.4): full-batch Adam on the negative log marginal
//! likelihood, stopping when it has not improved for `patience` epochs or after `max_epochs`,
//! keeping the best parameters seen.
//!
//! [`Fitting`] is that loop with its state kept between epochs, so a caller that bounds the
//! work of one call (DyHPO's decisions in an ask/tell session, `super::super::DyHpo`) runs the
//! epochs [`fit`] runs, in pieces: the same epochs in the same order give the same bits.

use super::iterative::{self, CgRule};
use super::precision::Element;
use super::MAX_CHOLESKY_SIZE;
use super::{blocked_algebra, nll_and_grad_with, CurvePoint, DeepKernel, DeepKernelSettings, LikelihoodBuffers, Precision, Solver};
use crate::adam::Adam;
use crate::optimizer::MethodRng;

/// How a fit went.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitReport {
    /// Adam epochs run.
    pub epochs: usize,
    /// Best training loss (NLL / n).
    pub loss: f64,
}

/// Fits `model` in place (see the module docs); `None` when not even the starting point can
/// be evaluated (the caller re-initialises, as the authors' code does).
pub fn fit(model: &mut DeepKernel, points: &[CurvePoint], y: &[f64], s: &DeepKernelSettings) -> Option<FitReport> {
    let mut fitting = Fitting::start(model.clone(), points.len(), s);
    match fitting.advance(points, y, s, usize::MAX) {
        FitProgress::Done(report) => {
            *model = fitting.into_model();
            Some(report)
        }
        FitProgress::Failed => None,
        FitProgress::Running => unreachable!("a fit without a cap on its epochs runs to its end"),
    }
}

/// Where a [`Fitting`] stands after [`Fitting::advance`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FitProgress {
    /// Neither stopping rule has fired: more epochs to run.
    Running,
    /// Finished; [`Fitting::into_model`] holds the best parameters seen.
    Done(FitReport),
    /// Not even the starting point could be evaluated (the kernel matrix is not positive
    /// definite): the caller re-initialises.
    Failed,
}

/// A fit in progress: the model being trained, Adam's moments, the best parameters seen and
/// the stopping rules' counters. The caller gives every call the same data.
#[derive(Debug, Clone)]
pub struct Fitting {
    model: DeepKernel,
    adam: Adam,
    best: Option<(f64, Vec<f64>)>,
    /// Epochs since the loss last improved.
    stale: usize,
    epochs: usize,
    /// The probe vectors' generator of GPyTorch's estimator ([`Solver::Gpytorch`]).
    probes: MethodRng,
    finished: bool,
}

impl Fitting {
    /// A fit of `model` (its parameters are the start: warm or fresh) on `n` observations.
    pub fn start(model: DeepKernel, n: usize, s: &DeepKernelSettings) -> Self {
        let adam = Adam::new(model.params.len(), s.learning_rate);
        Fitting { model, adam, best: None, stale: 0, epochs: 0, probes: iterative::probe_generator(n), finished: false }
    }

    /// Epochs run so far.
    pub fn epochs(&self) -> usize {
        self.epochs
    }

    /// Runs at most `epochs` more epochs (at least one unless the fit is over).
    pub fn advance(&mut self, points: &[CurvePoint], y: &[f64], s: &DeepKernelSettings, epochs: usize) -> FitProgress {
        if !self.finished {
            match s.precision {
                Precision::F64 => self.advance_in::<f64>(points, y, s, epochs),
                Precision::F32 => self.advance_in::<f32>(points, y, s, epochs),
            }
        }
        match (&self.best, self.finished) {
            (_, false) => FitProgress::Running,
            (None, true) => FitProgress::Failed,
            (Some((loss, _)), true) => FitProgress::Done(FitReport { epochs: self.epochs, loss: *loss }),
        }
    }

    fn advance_in<R: Element>(&mut self, points: &[CurvePoint], y: &[f64], s: &DeepKernelSettings, epochs: usize) {
        // Fresh buffers give the bits of reused ones (a test in the parent module).
        let mut buffers = LikelihoodBuffers::<R>::default();
        let estimated = s.solver == Solver::Gpytorch && points.len() > MAX_CHOLESKY_SIZE;
        let until = self.epochs.saturating_add(epochs);
        while self.epochs < until {
            if self.epochs >= s.max_epochs {
                self.finished = true;
                return;
            }
            let rule = estimated.then_some((&CgRule::GPYTORCH, &mut self.probes));
            let model = &mut self.model;
            let Some((loss, grad)) = nll_and_grad_with(blocked_algebra(), model, points, y, &mut buffers, rule, &mut |_| {}) else {
                self.finished = true;
                return;
            };
            self.epochs += 1;
            if self.best.as_ref().is_none_or(|(b, _)| loss < *b) {
                self.best = Some((loss, model.params.clone()));
                self.stale = 0;
            } else {
                self.stale += 1;
                if self.stale >= s.patience {
                    self.finished = true;
                    return;
                }
            }
            self.adam.step(&mut model.params, &grad);
        }
        if self.epochs >= s.max_epochs {
            self.finished = true;
        }
    }

    /// The model with the best parameters seen (the start's, if no epoch ran).
    pub fn into_model(self) -> DeepKernel {
        let mut model = self.model;
        if let Some((_, params)) = self.best {
            model.params = params;
        }
        model
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{data, small};
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn a_fit_run_in_pieces_gives_the_bits_of_one_run_at_once() {
        let mut rng = MethodRng::seed_from_u64(11);
        let (points, y) = data(&mut rng, 30, 6);
        let settings = DeepKernelSettings { max_epochs: 60, ..small() };
        let start = DeepKernel::new(3, 6, &settings, &mut rng);
        let mut whole = start.clone();
        let report = fit(&mut whole, &points, &y, &settings).unwrap();
        assert!(report.epochs > 7, "the fit should need several pieces ({} epochs)", report.epochs);
        let mut pieces = Fitting::start(start, points.len(), &settings);
        let mut calls = 0;
        let done = loop {
            calls += 1;
            match pieces.advance(&points, &y, &settings, 3) {
                FitProgress::Running => assert!(pieces.epochs() == 3 * calls, "{} epochs after {calls} calls", pieces.epochs()),
                FitProgress::Done(r) => break r,
                FitProgress::Failed => panic!("the fit failed"),
            }
        };
        assert_eq!(done, report);
        assert_eq!(calls, report.epochs.div_ceil(3));
        assert_eq!(pieces.into_model().params, whole.params, "same epochs, same bits");
    }

    #[test]
    fn the_epoch_cap_ends_a_fit_run_in_pieces_where_it_ends_one_run_at_once() {
        let mut rng = MethodRng::seed_from_u64(12);
        let (points, y) = data(&mut rng, 20, 6);
        let settings = DeepKernelSettings { max_epochs: 10, patience: 1000, ..small() };
        let start = DeepKernel::new(3, 6, &settings, &mut rng);
        let mut pieces = Fitting::start(start, points.len(), &settings);
        assert_eq!(pieces.advance(&points, &y, &settings, 4), FitProgress::Running);
        assert_eq!(pieces.advance(&points, &y, &settings, 4), FitProgress::Running);
        assert!(matches!(pieces.advance(&points, &y, &settings, 4), FitProgress::Done(FitReport { epochs: 10, .. })));
    }
}
