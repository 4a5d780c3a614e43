//! `hpo gpb`: the GPB paper's experiments — Tables 1 and 2 (synthetic) and the LCBench
//! analogue of Tables 3–4 — printed as Markdown tables beside the paper's numbers.

use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;

use hpo_playground::engine::gpb::construct::DesignMethod;
use hpo_playground::engine::gpb::design::Criterion;
use hpo_playground::engine::gpb::protocol::{self, Arm};
use hpo_playground::engine::gpb::synthetic::{mean_sd, std_of_beta, table1_rep, table2_rep, TestFunction};

use crate::cli::CliResult;

/// The paper's Table 1 (Std. of β; integral loss at b = 1, 2/3, 1/2 as mean ± sd).
const PAPER_TABLE1: [(&str, &str, &str, &str, &str); 3] = [
    ("Random", "4.598", "0.297 ± 0.121", "0.285 ± 0.116", "0.417 ± 0.388"),
    ("IC", "3.718", "0.305 ± 0.051", "0.306 ± 0.055", "0.297 ± 0.065"),
    ("TA", "3.525", "0.256 ± 0.064", "0.238 ± 0.052", "0.227 ± 0.029"),
];

/// The paper's Table 2: rosenbrock 10, 20; sixhumpcamp 10, 20.
const PAPER_TABLE2: [(&str, [f64; 4]); 3] =
    [("Random", [0.4963, 0.4700, 0.5769, 0.4326]), ("IC", [0.3918, 0.3276, 0.3789, 0.3372]), ("TA", [0.3583, 0.3570, 0.4526, 0.2983])];

const DESIGNS: [DesignMethod; 4] = [DesignMethod::Random, DesignMethod::Lhd, DesignMethod::Ic, DesignMethod::Ta];

/// Tables 1 and 2 with `reps` repetitions per cell.
pub fn tables(reps: u64, criterion: Criterion) -> CliResult<()> {
    let started = Instant::now();
    println!("## Table 1 (§4.1): N = 6, {reps} repetitions, {}-optimal designs\n", criterion.name());
    println!(
        "| initial design | Std. of β (ours) | paper | integral loss b=1 (ours) | paper | b=2/3 (ours) | paper | b=1/2 (ours) | paper |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for method in DESIGNS {
        let reps: Vec<_> = (0..reps).into_par_iter().map(|s| table1_rep(method, criterion, s)).collect::<Result<_, _>>()?;
        let betas: Vec<Vec<f64>> = reps.iter().map(|r| r.beta.clone()).collect();
        let loss = |k: usize| {
            let (m, s) = mean_sd(&reps.iter().map(|r| r.loss[k]).collect::<Vec<_>>());
            format!("{m:.3} ± {s:.3}")
        };
        let paper = PAPER_TABLE1.iter().find(|p| p.0 == method.name());
        let p = |i: usize| paper.map_or("—", |p| [p.1, p.2, p.3, p.4][i]);
        println!(
            "| {} | {:.3} | {} | {} | {} | {} | {} | {} | {} |",
            method.name(),
            std_of_beta(&betas),
            p(0),
            loss(0),
            p(1),
            loss(1),
            p(2),
            loss(2),
            p(3)
        );
    }
    println!("\n## Table 2 (App. C, Table 5): Std. of β, {reps} repetitions, noise b·N(0,1), b ∈ {{10⁴ … 10⁻⁵}}\n");
    println!("| initial design | rosenbrock 10 | rosenbrock 20 | sixhumpcamp 10 | sixhumpcamp 20 | paper (same order) |");
    println!("|---|---|---|---|---|---|");
    for method in DESIGNS {
        let mut cells = Vec::new();
        for function in TestFunction::ALL {
            for points in [10, 20] {
                let betas: Vec<Vec<f64>> =
                    (0..reps).into_par_iter().map(|s| table2_rep(function, method, criterion, points, s)).collect::<Result<_, _>>()?;
                cells.push(format!("{:.4}", std_of_beta(&betas)));
            }
        }
        let paper =
            PAPER_TABLE2.iter().find(|p| p.0 == method.name()).map_or("—".to_string(), |p| p.1.map(|v| format!("{v:.4}")).join(" / "));
        println!("| {} | {} | {paper} |", method.name(), cells.join(" | "));
    }
    eprintln!("{:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// The LCBench analogue of Tables 3–4.
pub fn lcbench(lcbench_dir: &Path, tasks: Option<&str>, seeds: u64) -> CliResult<()> {
    let started = Instant::now();
    let bench = crate::race::load("lcbench", lcbench_dir)?;
    if bench.tasks.is_empty() {
        return Err(format!("no LCBench tables in {}", lcbench_dir.display()).into());
    }
    let tasks = crate::race::select_tasks(&bench, tasks)?;
    let metric = &bench.metrics[bench.objective].name;
    println!("## Tables 3–4 analogue on LCBench: 4 rounds of 20/10/10/10 configurations, {seeds} seeds × {} tasks\n", tasks.len());
    println!(
        "| initial design | final {metric} (mean ± sd over tasks of the seed mean) | budget (epochs, mean ± sd) | wins vs Random (GP) |"
    );
    println!("|---|---|---|---|");
    let jobs: Vec<(Arm, usize, u64)> =
        Arm::ALL.iter().flat_map(|&a| tasks.iter().flat_map(move |&t| (0..seeds).map(move |s| (a, t, s)))).collect();
    let runs: Vec<protocol::ProtocolRun> = jobs.par_iter().map(|&(a, t, s)| protocol::run(&bench, t, a, s)).collect::<Result<_, _>>()?;
    let per_task = |arm: usize| -> Vec<f64> {
        tasks
            .iter()
            .enumerate()
            .map(|(k, _)| {
                let start = (arm * tasks.len() + k) * seeds as usize;
                runs[start..start + seeds as usize].iter().map(|r| r.final_metric).sum::<f64>() / seeds as f64
            })
            .collect()
    };
    let baseline = per_task(3);
    let sign = bench.metrics[bench.objective].direction.sign();
    for (a, arm) in Arm::ALL.iter().enumerate() {
        let finals = per_task(a);
        let (m, s) = mean_sd(&finals);
        let budgets: Vec<f64> =
            runs[a * tasks.len() * seeds as usize..(a + 1) * tasks.len() * seeds as usize].iter().map(|r| r.budget as f64).collect();
        let (bm, bs) = mean_sd(&budgets);
        let wins = finals.iter().zip(&baseline).filter(|(v, b)| sign * **v < sign * **b).count();
        println!("| {} | {m:.3} ± {s:.3} | {bm:.0} ± {bs:.0} | {wins}/{} |", arm.label(), tasks.len());
    }
    eprintln!("{:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}
