//! What the tests of the `hpo` binary share: running it, reading what it printed, and scratch
//! folders that go away when the test passes (and stay, to be looked at, when it fails).
#![allow(dead_code)] // each test file uses its own part of this module

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `hpo` with `args`, without the environment's cache or data-mirror settings.
pub fn hpo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hpo")).args(args).env_remove("HPO_CACHE").env_remove("HPO_DATA_BASE").output().expect("hpo runs")
}

/// What a run printed, stdout then stderr.
pub fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// What a successful run printed; a failed run fails the test with its output.
pub fn ok(o: Output) -> String {
    assert!(o.status.success(), "{}", text(&o));
    text(&o)
}

/// An empty folder of the system's temporary folder, per test process and `name`; removed when
/// dropped unless the test is failing.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("hpo-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        Scratch(dir)
    }
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
