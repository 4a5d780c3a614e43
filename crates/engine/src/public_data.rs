//! The public tables this project uses, pinned by SHA-256: the copula paper's offline
//! evaluations (Salinas et al. 2020), as published in the paper authors' public repository.
//! `hpo fetch` and the page download them (from [`DEFAULT_BASE`], or a mirror with the same
//! files) and accept them only with these exact bytes, so a `data=url:…@SHA256` link re-runs
//! identically for anyone.
//!
//! FCNET, the fourth table of the paper's Table 2, is not pinned: no copy of it is reachable
//! from where this project is built, so its hash cannot be known here (see docs/methods.md).

use super::data_ref::DataRef;

/// Where the copula paper's repository publishes its offline evaluations.
///
/// The files were checked byte for byte against copies of that folder (the hashes below); the
/// address itself could not be fetched from the machines this project is built on (GitHub is
/// unreachable there), so `--base`, `HPO_DATA_BASE` or any mirror URL in a link overrides it.
pub const DEFAULT_BASE: &str =
    "https://raw.githubusercontent.com/geoalgo/A-Quantile-based-Approach-for-Hyperparameter-Transfer-Learning/master/blackbox/offline_evaluations/";

/// A pinned public table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PublicTable {
    /// File name under the base URL.
    pub file: &'static str,
    /// Lower-case hex SHA-256 of the file.
    pub sha256: &'static str,
    /// Size in bytes.
    pub bytes: u64,
    /// What it holds.
    pub summary: &'static str,
}

/// The copula paper's tables (Table 2 of Salinas et al. 2020, without FCNET).
pub const PUBLIC_TABLES: [PublicTable; 3] = [
    PublicTable {
        file: "DeepAR.csv.zip",
        sha256: "70869c97d28733d7eef2f7dac11a8a846d3e792038acc72017f61fbfb8de0a83",
        bytes: 184_888,
        summary: "DeepAR on 11 forecasting tasks, 2,510 evaluations, 6 hyperparameters (CRPS)",
    },
    PublicTable {
        file: "XGBoost.csv.zip",
        sha256: "07bc5e4087cb408ac154871c1b64caf3f1c163ba9b05c0c703db78a0ec815349",
        bytes: 3_580_783,
        summary: "XGBoost on 10 LIBSVM datasets, 50,000 evaluations, 8 hyperparameters (1 − AUC)",
    },
    PublicTable {
        file: "nas_bench102.csv.zip",
        sha256: "140c9f48d8e62e7247c7181a75820537b53bcd8c25e1f2285c91a45985d29964",
        bytes: 1_699_066,
        summary: "NAS-Bench-201 on 3 image datasets, 46,875 architectures (error, latency)",
    },
];

/// The table named `file`, if pinned.
pub fn public_table(file: &str) -> Option<&'static PublicTable> {
    PUBLIC_TABLES.iter().find(|t| t.file == file)
}

/// The pinned table with this hash, if any (a link may name a mirror's URL).
pub fn pinned(sha256: &str) -> Option<&'static PublicTable> {
    PUBLIC_TABLES.iter().find(|t| t.sha256 == sha256)
}

/// The base URL with exactly one trailing slash.
pub fn normalize_base(base: &str) -> String {
    format!("{}/", base.trim_end_matches('/'))
}

impl PublicTable {
    /// The link's data reference for this table under `base`.
    pub fn data_ref(&self, base: &str) -> DataRef {
        DataRef::Url { url: format!("{}{}", normalize_base(base), self.file), sha256: self.sha256.into() }
    }
}

/// Why downloaded bytes are not the file a link names, if they are not.
pub fn verify(url: &str, expected_sha256: &str, bytes: &[u8]) -> Result<(), String> {
    let actual = super::content_hash(bytes);
    if actual == expected_sha256 {
        Ok(())
    } else {
        Err(format!(
            "{url} has SHA-256 {actual}, not the {expected_sha256} the link names: it is not the file the link was made with (the file changed, or the URL is wrong); nothing was used or kept"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_make_url_links_that_round_trip() {
        for t in PUBLIC_TABLES {
            let data = t.data_ref("http://127.0.0.1:9/mirror");
            assert_eq!(data.to_string(), format!("url:http://127.0.0.1:9/mirror/{}@{}", t.file, t.sha256));
            assert_eq!(data.to_string().parse::<DataRef>().unwrap(), data);
            assert_eq!(data.file_name(), t.file);
            assert_eq!(pinned(t.sha256), Some(&t));
        }
        assert!(DEFAULT_BASE.starts_with("https://") && DEFAULT_BASE.ends_with('/'));
    }

    #[test]
    fn verify_names_both_hashes() {
        let bytes = b"hp_x,metric_y\n1,2\n";
        let good = crate::content_hash(bytes);
        assert!(verify("http://h/f.csv", &good, bytes).is_ok());
        let e = verify("http://h/f.csv", &"0".repeat(64), bytes).unwrap_err();
        assert!(e.contains(&good) && e.contains(&"0".repeat(64)) && e.contains("http://h/f.csv"), "{e}");
    }
}
