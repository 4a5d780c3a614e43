//! Search spaces: what each hyperparameter is and how models see it.
//!
//! Models never see raw values: continuous and integer hyperparameters are min-max scaled to
//! [0, 1] (after a log if the parameter is searched on a log scale), categoricals are one-hot
//! encoded — the encoding of the copula paper's Table 3.

use serde::{Deserialize, Serialize};

/// The type and range of one hyperparameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ParamKind {
    /// A real value in `[lower, upper]`; `log` means models see `ln(value)`.
    Continuous {
        /// Smallest value.
        lower: f64,
        /// Largest value.
        upper: f64,
        /// Searched on a log scale (requires `lower > 0`).
        log: bool,
    },
    /// An integer in `[lower, upper]`.
    Integer {
        /// Smallest value.
        lower: i64,
        /// Largest value.
        upper: i64,
    },
    /// One of a fixed set of levels; raw values are level indices.
    Categorical {
        /// Level names, in index order.
        levels: Vec<String>,
    },
}

/// One named hyperparameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hyperparameter {
    /// Column name (e.g. `hp_eta`).
    pub name: String,
    /// Type and range.
    pub kind: ParamKind,
}

impl Hyperparameter {
    /// Number of model inputs this parameter becomes.
    pub fn encoded_width(&self) -> usize {
        match &self.kind {
            ParamKind::Categorical { levels } => levels.len(),
            _ => 1,
        }
    }

    /// Appends the model encoding of `raw` to `out`.
    fn encode_into(&self, raw: f64, out: &mut Vec<f64>) {
        match &self.kind {
            ParamKind::Continuous { lower, upper, log } => {
                let (v, lo, hi) = if *log { (libm::log(raw), libm::log(*lower), libm::log(*upper)) } else { (raw, *lower, *upper) };
                out.push(min_max(v, lo, hi));
            }
            ParamKind::Integer { lower, upper } => out.push(min_max(raw, *lower as f64, *upper as f64)),
            ParamKind::Categorical { levels } => {
                let level = raw as usize;
                out.extend((0..levels.len()).map(|l| if l == level { 1.0 } else { 0.0 }));
            }
        }
    }

    /// Human-readable form of a raw value (level name for categoricals).
    pub fn display_value(&self, raw: f64) -> String {
        match &self.kind {
            ParamKind::Categorical { levels } => levels.get(raw as usize).cloned().unwrap_or_else(|| format!("{raw}")),
            ParamKind::Integer { .. } => format!("{}", raw as i64),
            ParamKind::Continuous { .. } => format!("{raw}"),
        }
    }
}

/// A degenerate range (one value only) maps to 0.5 so that it carries no information.
/// A range wider than f64 can hold (-1e308 to 1e308, say) is halved first: `hi - lo` would
/// be infinite and the top of the range would encode as inf/inf = NaN.
fn min_max(v: f64, lo: f64, hi: f64) -> f64 {
    if hi <= lo || hi.is_nan() || lo.is_nan() {
        0.5
    } else if (hi - lo).is_finite() {
        (v - lo) / (hi - lo)
    } else {
        (v * 0.5 - lo * 0.5) / (hi * 0.5 - lo * 0.5)
    }
}

/// The ordered hyperparameters of a benchmark.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SearchSpace {
    /// Hyperparameters in column order.
    pub params: Vec<Hyperparameter>,
}

impl SearchSpace {
    /// Number of model inputs (one-hot categoricals count once per level).
    pub fn encoded_dim(&self) -> usize {
        self.params.iter().map(Hyperparameter::encoded_width).sum()
    }

    /// Encodes one configuration (raw values in parameter order) for models.
    pub fn encode(&self, raw: &[f64]) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.encoded_dim());
        for (p, &v) in self.params.iter().zip(raw) {
            p.encode_into(v, &mut out);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn space() -> SearchSpace {
        SearchSpace {
            params: vec![
                Hyperparameter { name: "lr".into(), kind: ParamKind::Continuous { lower: 1e-4, upper: 1.0, log: true } },
                Hyperparameter { name: "depth".into(), kind: ParamKind::Integer { lower: 1, upper: 11 } },
                Hyperparameter { name: "op".into(), kind: ParamKind::Categorical { levels: vec!["a".into(), "b".into(), "c".into()] } },
            ],
        }
    }

    #[test]
    fn encodes_log_min_max_and_one_hot() {
        let s = space();
        assert_eq!(s.encoded_dim(), 5);
        let e = s.encode(&[1e-2, 6.0, 2.0]);
        assert!((e[0] - 0.5).abs() < 1e-12, "log midpoint of 1e-4..1 is 1e-2, got {}", e[0]);
        assert!((e[1] - 0.5).abs() < 1e-12);
        assert_eq!(&e[2..], &[0.0, 0.0, 1.0]);
    }

    #[test]
    fn degenerate_range_maps_to_half() {
        let p = Hyperparameter { name: "c".into(), kind: ParamKind::Integer { lower: 3, upper: 3 } };
        let s = SearchSpace { params: vec![p] };
        assert_eq!(s.encode(&[3.0]), vec![0.5]);
    }

    #[test]
    fn a_range_wider_than_f64_encodes_to_zero_half_and_one() {
        let p = Hyperparameter { name: "x".into(), kind: ParamKind::Continuous { lower: -f64::MAX, upper: f64::MAX, log: false } };
        let s = SearchSpace { params: vec![p] };
        assert_eq!(s.encode(&[-f64::MAX]), vec![0.0]);
        assert_eq!(s.encode(&[0.0]), vec![0.5]);
        assert_eq!(s.encode(&[f64::MAX]), vec![1.0]);
    }
}
