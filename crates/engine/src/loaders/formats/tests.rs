//! The format table on files the tools wrote: each is recognised as its format (the table's
//! order decides where formats overlap), loads naming it, and a zip is opened once.

use std::io::Write;

use super::*;
use crate::loaders::curves::LCBENCH_FILES;
use crate::loaders::unpacked::ZIPS_OPENED;
use crate::loaders::upload::{load_file, LoadFailure};

macro_rules! fixture {
    ($name:literal) => {
        ($name, include_bytes!(concat!("../../../../../tests/fixtures/studies/", $name)).as_slice())
    };
}

fn zipped(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut buf = std::io::Cursor::new(Vec::new());
    let mut w = zip::ZipWriter::new(&mut buf);
    for (name, bytes) in members {
        w.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
        w.write_all(bytes).unwrap();
    }
    w.finish().unwrap();
    buf.into_inner()
}

fn gzipped(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

fn format_of(file: &str, bytes: &[u8]) -> Option<FileFormat> {
    recognise(&Unpacked::of(file, bytes).unwrap()).map(|f| f.format)
}

#[test]
fn each_file_is_recognised_as_its_format_and_loads_naming_it() {
    let (_, journal) = fixture!("optuna-mlp-journal.log");
    let files: Vec<((&str, Vec<u8>), FileFormat)> = vec![
        (fixture!("optuna-mlp-journal.log"), FileFormat::OptunaJournal),
        (fixture!("optuna-conditional-journal.log"), FileFormat::OptunaJournal),
        (fixture!("optuna-mlp.db"), FileFormat::OptunaStorage),
        (fixture!("optuna-two-objective.db"), FileFormat::OptunaStorage),
        (fixture!("optuna-mlp-trials.csv"), FileFormat::OptunaTrialsCsv),
        (fixture!("raytune-mlp-dataframe.csv"), FileFormat::RayTuneDataframe),
        (fixture!("raytune-mlp-experiment.zip"), FileFormat::RayTuneExperiment),
        (fixture!("synetune-mlp-results.csv.zip"), FileFormat::SyneTuneResults),
        (("copula.csv", b"hp_a,metric_e,task\n1,2,t\n3,4,t\n".as_slice()), FileFormat::Copula),
        // Curves with hp_* columns: the curve table comes before the copula format.
        (("curves.csv", b"hp_lr,task,e1,e2,e3\n0.1,a,0.5,0.6,0.7\n0.2,a,0.1,0.2,0.3\n".as_slice()), FileFormat::LearningCurves),
    ]
    .into_iter()
    .map(|((name, bytes), format)| ((name, bytes.to_vec()), format))
    .chain([
        (("journal.log.gz", gzipped(journal)), FileFormat::OptunaJournal),
        (("journal.zip", zipped(&[("study/journal.log", journal)])), FileFormat::OptunaJournal),
    ])
    .collect();
    for ((name, bytes), format) in &files {
        assert_eq!(format_of(name, bytes), Some(*format), "{name}");
        let loaded = load_file(name, bytes, None).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(loaded.format, *format, "{name}");
    }
    // LCBench's folder is recognised by its files' names, before its first file is read.
    let lcbench = zipped(&[(LCBENCH_FILES[0], b"a\n1\n".as_slice()), (LCBENCH_FILES[1], b"b\n2\n".as_slice())]);
    assert_eq!(format_of("lcbench.zip", &lcbench), Some(FileFormat::LcbenchFolder));
    // An SQLite file of something else is Optuna's storage by its bytes, and says what it lacks.
    let (name, other) = fixture!("not-optuna.db");
    assert_eq!(format_of(name, other), Some(FileFormat::OptunaStorage));
    assert!(matches!(load_file(name, other, None), Err(LoadFailure::Error(e)) if e.contains("not an Optuna storage")));
    // Any other table is no format: its roles are asked for.
    assert_eq!(format_of("runs.csv", b"lr,acc\n0.1,0.8\n"), None);
    assert!(matches!(load_file("runs.csv", b"lr,acc\n0.1,0.8\n", None), Err(LoadFailure::NeedsRoles { .. })));
}

#[test]
fn the_table_names_each_format_once() {
    for (k, entry) in FORMATS.iter().enumerate() {
        let name = entry.format.name();
        assert!(FORMATS[..k].iter().all(|e| e.format != entry.format && e.format.name() != name), "{name}");
    }
    assert!(FileFormat::OptunaJournal.takes_next_trials() && FileFormat::OptunaStorage.takes_next_trials());
    assert!(!FileFormat::OptunaTrialsCsv.takes_next_trials(), "a trials CSV cannot take enqueued trials");
    // Every study's file but Optuna's storages says why it gets no next trials; a table that
    // is no study says nothing.
    for entry in FORMATS {
        let study = matches!(
            entry.format,
            FileFormat::OptunaTrialsCsv | FileFormat::RayTuneExperiment | FileFormat::RayTuneDataframe | FileFormat::SyneTuneResults
        );
        assert_eq!(entry.format.why_no_next_trials().is_some(), study, "{}", entry.format.name());
        assert!(!(entry.format.takes_next_trials() && study));
    }
    assert!(FileFormat::OptunaTrialsCsv.why_no_next_trials().unwrap().contains("Load the study's own storage"));
}

#[test]
fn a_zip_is_opened_once_whatever_it_holds() {
    let (_, journal) = fixture!("optuna-mlp-journal.log");
    let (_, experiment) = fixture!("raytune-mlp-experiment.zip");
    let journal_zip = zipped(&[("journal.log", journal)]);
    let opened = |run: &dyn Fn()| {
        ZIPS_OPENED.with(|n| n.set(0));
        run();
        ZIPS_OPENED.with(|n| n.get())
    };
    // Recognised last among the zip formats, after the two that look at its members.
    assert_eq!(opened(&|| assert!(load_file("j.zip", &journal_zip, None).is_ok())), 1);
    assert_eq!(opened(&|| assert!(load_file("e.zip", experiment, None).is_ok())), 1);
    let suggest = || assert!(crate::suggest::suggest_files("j.zip", &journal_zip, None, "RS", 1, 0).is_ok());
    assert_eq!(opened(&suggest), 1);
}
