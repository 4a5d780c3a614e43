//! What a race's surrogate models are fitted on: the losses as observed (the papers' choice,
//! the default), or their Gaussian-copula transform ψ = Φ⁻¹∘F̃ (Salinas et al. 2020, §3:
//! the winsorized empirical CDF of every loss observed so far), under which no single extreme
//! value can flatten the differences among the others.
//!
//! ψ is monotone, so every comparison an optimizer makes (incumbents, promotions, the
//! good/bad split of BOHB's density model) is unchanged; only what a regression model fits —
//! DyHPO's deep-kernel GP, GPB's and its max-budget baseline's GPs — changes. The transform
//! is refitted at every request on all the race's observations, so the optimizer sees one
//! consistent scale at each step.

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::optimizer::MethodRng;
use crate::race::{MultiFidelityOptimizer, Race, Request};
use crate::warping::CopulaWarp;

/// The losses a race's optimizer sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum RaceTargets {
    /// As observed (each method then does what its paper does, e.g. DyHPO standardises).
    #[default]
    Observed,
    /// ψ = Φ⁻¹∘F̃ of every observed loss, refitted at each request.
    Copula,
}

impl RaceTargets {
    /// Short form in links (`targets=`) and the CLI.
    pub fn as_str(self) -> &'static str {
        match self {
            RaceTargets::Observed => "raw",
            RaceTargets::Copula => "copula",
        }
    }

    /// From its short form.
    pub fn parse(s: &str) -> Option<Self> {
        [RaceTargets::Observed, RaceTargets::Copula].into_iter().find(|t| t.as_str() == s)
    }

    /// `optimizer`, seeing the losses as this says.
    pub fn wrap(self, optimizer: Box<dyn MultiFidelityOptimizer>) -> Box<dyn MultiFidelityOptimizer> {
        match self {
            RaceTargets::Observed => optimizer,
            RaceTargets::Copula => Box::new(CopulaTargets { inner: optimizer }),
        }
    }
}

/// An optimizer that sees ψ of every loss instead of the loss.
struct CopulaTargets {
    inner: Box<dyn MultiFidelityOptimizer>,
}

/// The race with every observed loss replaced by ψ fitted on all of them.
pub fn copula_race(race: &Race) -> Race {
    let all: Vec<f64> = race.curves.iter().flatten().copied().collect();
    let warp = CopulaWarp::fit(&all);
    Race { curves: race.curves.iter().map(|c| c.iter().map(|&v| warp.psi(v)).collect()).collect(), ..race.clone() }
}

impl MultiFidelityOptimizer for CopulaTargets {
    fn next(&mut self, race: &Race, candidates: &[Vec<f64>], rng: &mut MethodRng) -> Result<Request> {
        self.inner.next(&copula_race(race), candidates, rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn psi_keeps_the_order_and_tames_an_explosion() {
        let mut race = Race::new(4, 3, 100);
        race.curves = vec![vec![2.3, 1.0, 0.5], vec![2.3, 1.2], vec![1e17], vec![]];
        let warped = copula_race(&race);
        assert_eq!(warped.curves.iter().map(Vec::len).collect::<Vec<_>>(), [3, 2, 1, 0]);
        let (flat, raw): (Vec<f64>, Vec<f64>) =
            (warped.curves.iter().flatten().copied().collect(), race.curves.iter().flatten().copied().collect());
        for i in 0..raw.len() {
            for j in 0..raw.len() {
                if raw[i] < raw[j] {
                    assert!(flat[i] < flat[j], "order kept");
                }
            }
        }
        // Under ψ the explosion is one step above the rest, and the gaps between the other
        // losses keep their proportions by rank: 0.5 → 1.0 is about as wide as 1.0 → 1.2
        // (by hand: ψ = −0.967, −0.431, 0 for the three, F of 1e17 clipped to 1 − δ₆ with
        // δ₆ = 0.0674). The losses themselves give a ratio of 2.5 and a step of 1e17.
        let psi = |raw_value: f64| *flat.iter().zip(&raw).find(|(_, &r)| r == raw_value).unwrap().0;
        let ratio = (psi(1.0) - psi(0.5)) / (psi(1.2) - psi(1.0));
        let q = crate::stats::normal_quantile;
        assert!((ratio - (q(2.0 / 6.0) - q(1.0 / 6.0)) / (q(0.5) - q(2.0 / 6.0))).abs() < 1e-12, "{ratio}");
        assert!((psi(1e17) - crate::stats::normal_quantile(1.0 - crate::warping::delta_n(6))).abs() < 1e-12);
        assert!(psi(1e17) - psi(2.3) < 1.0, "{} {}", psi(1e17), psi(2.3));
        assert_eq!(RaceTargets::parse("copula"), Some(RaceTargets::Copula));
        assert_eq!(RaceTargets::parse("raw"), Some(RaceTargets::Observed));
    }
}
