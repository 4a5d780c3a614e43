//! One of Optuna's distributions and everything the engine does with one parameter's values:
//! the one validity rule (Optuna's own, for a file, the page and Python alike), its kind in the
//! engine's space, where it stands when a trial did not suggest it, its steps, a draw, and the
//! conversion between Optuna's external values (numbers, choices as written) and its internal
//! ones (a choice's index).

use rand::Rng;
use serde_json::Value;

use crate::space::ParamKind;

/// One of Optuna's distributions.
#[derive(Debug, Clone, PartialEq)]
pub enum Distribution {
    /// `FloatDistribution`.
    Float {
        /// Lower bound.
        low: f64,
        /// Upper bound.
        high: f64,
        /// Log scale.
        log: bool,
        /// Step, if discrete.
        step: Option<f64>,
    },
    /// `IntDistribution`.
    Int {
        /// Lower bound.
        low: i64,
        /// Upper bound.
        high: i64,
        /// Log scale.
        log: bool,
        /// Step.
        step: i64,
    },
    /// `CategoricalDistribution`: its choices as Optuna wrote them (JSON values).
    Categorical {
        /// The choices.
        choices: Vec<Value>,
    },
}

impl Distribution {
    /// The distribution Optuna serialised as `text` (`distribution_to_json`, as its journal and
    /// SQLite storage hold it), if it is one and [`Distribution::validate`] accepts it; else
    /// why not.
    pub fn from_optuna_json(text: &str) -> Result<Self, String> {
        let d = Self::parse(text).ok_or_else(|| "not a distribution Optuna writes".to_string())?;
        d.validate()?;
        Ok(d)
    }

    fn parse(text: &str) -> Option<Self> {
        let v: Value = serde_json::from_str(text).ok()?;
        let a = v.get("attributes")?;
        let f = |k: &str| a.get(k).and_then(Value::as_f64);
        let i = |k: &str| a.get(k).and_then(Value::as_i64);
        let log = a.get("log").and_then(Value::as_bool).unwrap_or(false);
        match v.get("name")?.as_str()? {
            "FloatDistribution" => Some(Distribution::Float { low: f("low")?, high: f("high")?, log, step: f("step") }),
            "IntDistribution" => Some(Distribution::Int { low: i("low")?, high: i("high")?, log, step: i("step").unwrap_or(1) }),
            "CategoricalDistribution" => Some(Distribution::Categorical { choices: a.get("choices")?.as_array()?.clone() }),
            // The distributions of Optuna before 3.0, still read by it.
            "UniformDistribution" => Some(Distribution::Float { low: f("low")?, high: f("high")?, log: false, step: None }),
            "LogUniformDistribution" => Some(Distribution::Float { low: f("low")?, high: f("high")?, log: true, step: None }),
            "DiscreteUniformDistribution" => Some(Distribution::Float { low: f("low")?, high: f("high")?, log: false, step: f("q") }),
            "IntUniformDistribution" => {
                Some(Distribution::Int { low: i("low")?, high: i("high")?, log: false, step: i("step").unwrap_or(1) })
            }
            "IntLogUniformDistribution" => Some(Distribution::Int { low: i("low")?, high: i("high")?, log: true, step: 1 }),
            _ => None,
        }
    }

    /// Whether Optuna would construct this distribution (its `FloatDistribution` and
    /// `IntDistribution` raise otherwise): finite bounds in order, a log scale above 0, a
    /// positive step, none on a float's log scale and 1 on an integer's, at least one choice.
    /// Why not, in words a user can act on.
    pub fn validate(&self) -> Result<(), String> {
        match *self {
            Distribution::Float { low, high, log, step } => {
                if !(low.is_finite() && high.is_finite() && low <= high) {
                    return Err(format!("a float distribution needs finite low <= high, not [{low}, {high}]"));
                }
                if log && low <= 0.0 {
                    return Err(format!("a log-scale float distribution needs low > 0, not {low}"));
                }
                if step.is_some_and(|s| !(s > 0.0 && s.is_finite())) || (log && step.is_some()) {
                    return Err("a float distribution's step must be positive (and Optuna has none on a log scale)".into());
                }
                Ok(())
            }
            Distribution::Int { low, high, log, step } => {
                if low > high || step < 1 || (log && (low < 1 || step != 1)) {
                    return Err(format!(
                        "an int distribution needs low <= high, step >= 1 (1 on a log scale, low >= 1), not [{low}, {high}] step {step}"
                    ));
                }
                Ok(())
            }
            Distribution::Categorical { ref choices } if choices.is_empty() => Err("a categorical distribution needs a choice".into()),
            Distribution::Categorical { .. } => Ok(()),
        }
    }

    /// The playground's kind for this distribution.
    pub fn kind(&self) -> ParamKind {
        match self {
            Distribution::Float { low, high, log, .. } => ParamKind::Continuous { lower: *low, upper: *high, log: *log },
            Distribution::Int { low, high, .. } => ParamKind::Integer { lower: *low, upper: *high },
            Distribution::Categorical { choices } => ParamKind::Categorical { levels: choices.iter().map(choice_name).collect() },
        }
    }

    /// The internal value a parameter takes in a trial that did not suggest it (see
    /// [`super::rules`]): a number at its lower bound, a choice at its first.
    pub fn inactive_value(&self) -> f64 {
        match *self {
            Distribution::Float { low, .. } => low,
            Distribution::Int { low, .. } => low as f64,
            Distribution::Categorical { .. } => 0.0,
        }
    }

    /// Whether the internal value `v` is one of this distribution's: within its bounds (a
    /// float's up to rounding), on an integer's step, a choice's index.
    pub fn holds(&self, v: f64) -> bool {
        match *self {
            Distribution::Float { low, high, .. } => {
                let slack = 1e-12 * (high - low).abs().max(low.abs()).max(high.abs());
                v >= low - slack && v <= high + slack
            }
            Distribution::Int { low, high, step, .. } => {
                v.fract() == 0.0 && v >= low as f64 && v <= high as f64 && (v as i64 - low) % step.max(1) == 0
            }
            Distribution::Categorical { ref choices } => v.fract() == 0.0 && v >= 0.0 && (v as usize) < choices.len(),
        }
    }

    /// The internal value of an external one as Optuna writes it (a number as it is, a
    /// choice as its index), if it is one of this distribution's.
    pub fn internal(&self, external: &Value) -> Option<f64> {
        let v = match self {
            Distribution::Categorical { choices } => choices.iter().position(|c| c == external)? as f64,
            _ => external.as_f64()?,
        };
        self.holds(v).then_some(v)
    }

    /// The external value of the internal one `v`, as Optuna writes it.
    pub fn external(&self, v: f64) -> Value {
        match self {
            Distribution::Float { .. } => serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number),
            Distribution::Int { .. } => Value::from(v.round() as i64),
            Distribution::Categorical { choices } => choices.get(v as usize).cloned().unwrap_or(Value::Null),
        }
    }

    /// A number's nearest allowed value under a numeric distribution: on its step (from `low`),
    /// within its bounds. Drawn candidates and searched proposals alike.
    pub fn on_steps(&self, v: f64) -> f64 {
        match *self {
            Distribution::Float { low, high, step: Some(s), .. } if s > 0.0 => (low + ((v - low) / s).round() * s).min(high),
            Distribution::Float { low, high, .. } => v.clamp(low, high),
            Distribution::Int { low, high, step, .. } => {
                let step = step.max(1);
                let k = ((v - low as f64) / step as f64).round() as i64;
                (low + k * step).min(high - (high - low) % step) as f64
            }
            Distribution::Categorical { .. } => v,
        }
    }

    /// One internal value drawn from this distribution: log-uniform on a log scale, on its
    /// steps, one of its choices. Logs and exponentials are libm's, so that the page (wasm)
    /// and the CLI draw the same bits.
    pub fn draw<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match *self {
            Distribution::Float { low, high, log, .. } => self.on_steps(if log {
                libm::exp(rng.random_range(libm::log(low)..=libm::log(high)))
            } else {
                rng.random_range(low..=high)
            }),
            Distribution::Int { low, high, log, .. } => self.on_steps(if log {
                libm::exp(rng.random_range(libm::log(low.max(1) as f64)..=libm::log(high as f64)))
            } else {
                rng.random_range(low as f64..=high as f64)
            }),
            Distribution::Categorical { ref choices } => rng.random_range(0..choices.len()) as f64,
        }
    }

    /// This distribution in a few words: "1e-5…0.1, log", "32…512 step 32", "adam | sgd".
    pub fn in_words(&self) -> String {
        let num = |v: f64| if v != 0.0 && (v.abs() < 1e-3 || v.abs() >= 1e5) { format!("{v:e}") } else { format!("{v}") };
        match self {
            Distribution::Float { low, high, log, step } => {
                format!(
                    "{}…{}{}{}",
                    num(*low),
                    num(*high),
                    if *log { ", log" } else { "" },
                    step.map_or(String::new(), |s| format!(" step {}", num(s)))
                )
            }
            Distribution::Int { low, high, log, step } => {
                format!(
                    "{low}…{high}{}{}",
                    if *log { ", log" } else { "" },
                    if *step > 1 { format!(" step {step}") } else { String::new() }
                )
            }
            Distribution::Categorical { choices } => choices.iter().map(choice_name).collect::<Vec<_>>().join(" | "),
        }
    }
}

/// A categorical choice as text: strings as they are, anything else as its JSON.
pub fn choice_name(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}
