//! The design view's setting (paper 003, §3–4.1), as a link carries it: which construction,
//! criterion, number of points and seed, and on loaded data which two hyperparameters are
//! drawn. Plain data with no computation, so that a spec and a link can hold it without
//! standing above the design view that runs it ([`crate::gpb_experiments::design_view`]).

use serde::{Deserialize, Serialize};

use super::construct::DesignMethod;
use super::design::Criterion;

/// Fewest and most design points the view offers.
pub const POINTS_RANGE: (usize, usize) = (4, 30);

/// The view's setting, carried in links as `design=TA.D.10.0` (method, criterion, points,
/// seed) on the unit square, or `design=TA.D.10.0.2.5` on the loaded data, drawn over its
/// hyperparameters 2 and 5 (0-based, in column order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DesignViewSpec {
    /// Construction.
    pub method: DesignMethod,
    /// Criterion.
    pub criterion: Criterion,
    /// Design points.
    pub points: usize,
    /// Seed of the construction.
    pub seed: u64,
    /// On the loaded data, the two hyperparameters drawn; `None` for the unit square.
    #[serde(default)]
    pub axes: Option<(usize, usize)>,
}

impl Default for DesignViewSpec {
    fn default() -> Self {
        DesignViewSpec { method: DesignMethod::Ta, criterion: Criterion::D, points: 10, seed: 0, axes: None }
    }
}

impl DesignViewSpec {
    /// The link value.
    pub fn to_link(&self) -> String {
        let base = format!("{}.{}.{}.{}", self.method.name(), self.criterion.name(), self.points, self.seed);
        match self.axes {
            Some((i, j)) => format!("{base}.{i}.{j}"),
            None => base,
        }
    }

    /// Parses a link value; `None` when any part is invalid. Whether the axes exist in the
    /// loaded data is checked when the view is built ([`crate::gpb_experiments::design_view::DesignTable::from_benchmark`]).
    pub fn parse(s: &str) -> Option<Self> {
        let parts: Vec<&str> = s.split('.').collect();
        if parts.len() != 4 && parts.len() != 6 {
            return None;
        }
        let method = DesignMethod::parse(parts[0])?;
        let criterion = Criterion::parse(parts[1])?;
        let points = parts[2].parse::<usize>().ok().filter(|n| (POINTS_RANGE.0..=POINTS_RANGE.1).contains(n))?;
        let seed = parts[3].parse::<u64>().ok()?;
        let axes = match parts.get(4..6) {
            Some([i, j]) => Some((i.parse::<usize>().ok()?, j.parse::<usize>().ok()?)).filter(|(i, j)| i != j),
            _ => None,
        };
        (parts.len() == 4 || axes.is_some()).then_some(DesignViewSpec { method, criterion, points, seed, axes })
    }
}
