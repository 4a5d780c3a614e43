//! The one error type of the engine.

use thiserror::Error;

/// Everything that can go wrong in the engine, phrased for the person who has to fix it.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum EngineError {
    /// A data file could not be read; says where and what was expected.
    #[error("{}", format_parse(file, row, column, message))]
    Parse {
        /// File name as the user knows it.
        file: String,
        /// 1-based line number in the CSV (header = line 1), when known.
        row: Option<usize>,
        /// Column name, when known.
        column: Option<String>,
        /// What was wrong and what was expected.
        message: String,
    },
    /// An experiment specification is inconsistent with itself or with the data.
    #[error("invalid experiment: {0}")]
    Spec(String),
    /// A method could not run on the data it was given.
    #[error("{method}: {message}")]
    Method {
        /// Method name.
        method: String,
        /// What went wrong.
        message: String,
    },
    /// A race method can train nothing more on its table: every configuration is started and
    /// none can go further by the method's rule (a small or pruned study's table runs out
    /// before a large budget). A race ends there with what it spent: not a failure.
    #[error("{method}: {message}")]
    Exhausted {
        /// Method name.
        method: String,
        /// What is used up.
        message: String,
    },
}

fn format_parse(file: &str, row: &Option<usize>, column: &Option<String>, message: &str) -> String {
    let mut s = file.to_string();
    if let Some(r) = row {
        s.push_str(&format!(", line {r}"));
    }
    if let Some(c) = column {
        s.push_str(&format!(", column '{c}'"));
    }
    s.push_str(": ");
    s.push_str(message);
    s
}

impl EngineError {
    /// Shorthand for a parse error without row or column.
    pub fn parse(file: &str, message: impl Into<String>) -> Self {
        EngineError::Parse { file: file.to_string(), row: None, column: None, message: message.into() }
    }

    /// The same error, attributed to `method` if it came from a method: code shared by
    /// several methods (the GP-EI loop, say) names itself, the job knows which method it ran.
    pub fn for_method(self, method: &str) -> Self {
        match self {
            EngineError::Method { message, .. } => EngineError::Method { method: method.to_string(), message },
            other => other,
        }
    }
}

/// Result alias used throughout the engine.
pub type Result<T> = std::result::Result<T, EngineError>;
