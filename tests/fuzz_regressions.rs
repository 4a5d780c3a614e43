//! Every input a fuzzer ever crashed on (tests/fuzz_regressions/TARGET/*), replayed through
//! the target's checks: each crash found by `scripts/fuzz.sh` stays fixed.
#![cfg(not(target_arch = "wasm32"))]

mod fuzz_cases;

#[test]
fn every_recorded_crash_input_passes_its_target() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions");
    let mut replayed = 0;
    for (target, case) in fuzz_cases::TARGETS {
        let Ok(entries) = std::fs::read_dir(root.join(target)) else { continue };
        for entry in entries.flatten() {
            let bytes = std::fs::read(entry.path()).unwrap();
            let outcome = std::panic::catch_unwind(|| case(&bytes));
            assert!(outcome.is_ok(), "{target}: {} fails again", entry.path().display());
            replayed += 1;
        }
    }
    eprintln!("{replayed} recorded inputs replayed");
}

#[test]
fn the_targets_accept_their_seed_shapes() {
    // The checks themselves hold on ordinary inputs (a check that fails everything would make
    // every fuzz run a crash report).
    fuzz_cases::load_file_case(b"hp_x,metric_loss,task\n1,2,a\n3,4,b\n");
    fuzz_cases::load_file_case(b"lr,depth,acc,dataset\n0.1,3,0.8,a\n0.01,5,0.7,b\n");
    fuzz_cases::curve_table_case(b"hp_lr,task,e1,e2\n0.1,a,0.9,0.5\n");
    fuzz_cases::permalink_case(b"v=1&data=bundled:curves&methods=ASHA,DyHPO&seeds=3&race=200");
    fuzz_cases::lesson_link_case(b"learn=gp-ei&step=3&ei_hide=1");
    fuzz_cases::spec_json_case(br#"{"version":1,"data":"bundled:curves","objective":null,"direction":null,"tasks":[],"methods":["RS"],"seeds":2,"first_seed":0,"iterations":5,"transfer":"None"}"#);
}
