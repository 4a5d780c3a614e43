//! `hpo gpb`: the GPB paper's experiments — Tables 1 and 2 (synthetic) and the LCBench
//! analogue of Tables 3–4 — printed as Markdown tables beside the paper's numbers.

use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;

use hpo_playground::engine::fidelity::gpb::construct::DesignMethod;
use hpo_playground::engine::fidelity::gpb::design::Criterion;
use hpo_playground::engine::fidelity::gpb::view_setting::DesignViewSpec;
use hpo_playground::engine::gpb_experiments::design_view::{design_view, DesignTable};
use hpo_playground::engine::gpb_experiments::protocol::{self, Arm};
use hpo_playground::engine::gpb_experiments::synthetic::{mean_sd, std_of_beta, table1_rep, table2_rep, Setting, TestFunction};
use hpo_playground::engine::loaders::clean::MissingPolicy;
use hpo_playground::engine::results::significance::wilcoxon;

use crate::common::CliResult;

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

/// Std. of β with a 90 % percentile-bootstrap interval over the repetitions (1,000 resamples,
/// fixed seed), so that orderings can be read with their uncertainty.
fn std_of_beta_band(betas: &[Vec<f64>]) -> String {
    use hpo_playground::engine::optimizer::{index_below, MethodRng};
    use rand::SeedableRng;
    let mut rng = MethodRng::seed_from_u64(0);
    let mut boot: Vec<f64> = (0..1000)
        .map(|_| {
            let sample: Vec<Vec<f64>> = (0..betas.len()).map(|_| betas[index_below(&mut rng, betas.len())].clone()).collect();
            std_of_beta(&sample)
        })
        .collect();
    boot.sort_by(f64::total_cmp);
    let digits = |v: f64| {
        if v >= 100.0 {
            format!("{v:.0}")
        } else if v >= 10.0 {
            format!("{v:.1}")
        } else {
            format!("{v:.3}")
        }
    };
    format!("{} [{}, {}]", digits(std_of_beta(betas)), digits(boot[50]), digits(boot[949]))
}

/// Tables 1 and 2 with `reps` repetitions per cell.
pub fn tables(reps: u64, setting: Setting) -> CliResult<()> {
    let criterion = setting.criterion;
    let started = Instant::now();
    println!(
        "## Table 1 (§4.1): N = 6, {reps} repetitions, {}-optimal designs, budget correlation {:?}\n",
        criterion.name(),
        setting.kernel
    );
    println!("Std. of β: mean over β's components of their standard deviation over the repetitions, [90 % bootstrap interval].\n");
    println!(
        "| initial design | Std. of β (ours) | paper | integral loss b=1 (ours) | paper | b=2/3 (ours) | paper | b=1/2 (ours) | paper |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for method in DESIGNS {
        let reps: Vec<_> = (0..reps).into_par_iter().map(|s| table1_rep(method, setting, s)).collect::<Result<_, _>>()?;
        let betas: Vec<Vec<f64>> = reps.iter().map(|r| r.beta.clone()).collect();
        let loss = |k: usize| {
            let (m, s) = mean_sd(&reps.iter().map(|r| r.loss[k]).collect::<Vec<_>>());
            format!("{m:.3} ± {s:.3}")
        };
        let paper = PAPER_TABLE1.iter().find(|p| p.0 == method.name());
        let p = |i: usize| paper.map_or("—", |p| [p.1, p.2, p.3, p.4][i]);
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            method.name(),
            std_of_beta_band(&betas),
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
                    (0..reps).into_par_iter().map(|s| table2_rep(function, method, setting, points, s)).collect::<Result<_, _>>()?;
                cells.push(std_of_beta_band(&betas));
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
pub fn lcbench(lcbench_dir: &Path, tasks: Option<&str>, seeds: u64, json: Option<&Path>) -> CliResult<()> {
    let started = Instant::now();
    let bench = crate::race::load("lcbench", lcbench_dir, None, MissingPolicy::default())?;
    if bench.tasks.is_empty() {
        return Err(format!("no LCBench tables in {}", lcbench_dir.display()).into());
    }
    let tasks = crate::race::select_tasks(&bench, tasks)?;
    let metric = &bench.metrics[bench.objective].name;
    println!("## Tables 3–4 analogue on LCBench: 4 rounds of 20/10/10/10 configurations, {seeds} seeds × {} tasks\n", tasks.len());
    println!(
        "| initial design | recommendation | final {metric} (mean ± sd over tasks of the seed mean) | budget (epochs, mean ± sd) | budget / GP's | tasks better than Random (GP) | Wilcoxon p vs Random (GP) |"
    );
    println!("|---|---|---|---|---|---|---|");
    let jobs: Vec<(Arm, usize, u64)> =
        Arm::ALL.iter().flat_map(|&a| tasks.iter().flat_map(move |&t| (0..seeds).map(move |s| (a, t, s)))).collect();
    let runs: Vec<protocol::ProtocolRun> = jobs.par_iter().map(|&(a, t, s)| protocol::run(&bench, t, a, s)).collect::<Result<_, _>>()?;
    let per_task = |arm: usize, observed: bool| -> Vec<f64> {
        tasks
            .iter()
            .enumerate()
            .map(|(k, _)| {
                let start = (arm * tasks.len() + k) * seeds as usize;
                let runs = &runs[start..start + seeds as usize];
                runs.iter().map(|r| if observed { r.observed_final_metric } else { r.final_metric }).sum::<f64>() / seeds as f64
            })
            .collect()
    };
    let baseline = per_task(3, true);
    let sign = bench.metrics[bench.objective].direction.sign();
    let budget_of = |a: usize| -> Vec<f64> {
        runs[a * tasks.len() * seeds as usize..(a + 1) * tasks.len() * seeds as usize].iter().map(|r| r.budget as f64).collect()
    };
    let gp_budget = mean_sd(&budget_of(3)).0;
    for (a, arm) in Arm::ALL.iter().enumerate() {
        for observed in [false, true] {
            if a == 3 && !observed {
                continue;
            }
            let finals = per_task(a, observed);
            let (m, s) = mean_sd(&finals);
            let (bm, bs) = mean_sd(&budget_of(a));
            let wins = finals.iter().zip(&baseline).filter(|(v, b)| sign * **v < sign * **b).count();
            let p = if a == 3 { "—".to_string() } else { format!("{:.3}", wilcoxon(&finals, &baseline).1) };
            let rule = if a == 3 {
                "best observed at the full budget"
            } else if observed {
                "best observed at the largest budget"
            } else {
                "lowest predicted loss as b → ∞"
            };
            println!(
                "| {} | {rule} | {m:.4} ± {s:.4} | {bm:.0} ± {bs:.0} | {:.0} % | {wins}/{} | {p} |",
                arm.label(),
                100.0 * bm / gp_budget,
                tasks.len()
            );
        }
    }
    if let Some(path) = json {
        std::fs::write(path, serde_json::to_string_pretty(&runs)?)?;
        eprintln!("wrote every run to {}", path.display());
    }
    eprintln!("{:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// Speed of the designs and of one GPB step (`docs/benchmarks.md`).
pub fn bench() -> CliResult<()> {
    use hpo_playground::engine::gpb_experiments::speed::{design_seconds, gpb_step};

    let start = Instant::now();
    let now = move || start.elapsed().as_secs_f64();
    println!("| what | N = 6 | N = 10 | N = 20 |\n|---|---|---|---|");
    for dim in [2, 8] {
        for method in [DesignMethod::Ic, DesignMethod::Ta] {
            let cells: Vec<String> = [6, 10, 20]
                .iter()
                .map(|&n| {
                    if n < dim + 2 {
                        return format!("— (N < p + 2 = {}: M is singular)", dim + 2);
                    }
                    let (seconds, iterates) = design_seconds(dim, method, n, &now);
                    format!("{seconds:.2} s ({iterates} iterates)")
                })
                .collect();
            println!("| {} design, {dim}-D, 1,000 points × 6 budgets | {} |", method.name(), cells.join(" | "));
        }
    }
    // The page's design view: 2-D, the 21 × 21 map × Table 1's 3 budgets.
    for method in [DesignMethod::Ic, DesignMethod::Ta] {
        let cells: Vec<String> = [6, 10, 20]
            .iter()
            .map(|&points| {
                let t0 = Instant::now();
                let view = hpo_playground::engine::gpb_experiments::design_view::design_view(
                    &hpo_playground::engine::fidelity::gpb::view_setting::DesignViewSpec {
                        method,
                        criterion: Criterion::D,
                        points,
                        seed: 0,
                        axes: None,
                    },
                    None,
                );
                format!("{:.2} s ({} iterates)", t0.elapsed().as_secs_f64(), view.map_or(0, |v| v.iterates))
            })
            .collect();
        println!(
            "| the page's design view with {} (2-D, 441 points × 3 budgets, and the 1-D fit) | {} |",
            method.name(),
            cells.join(" | ")
        );
    }
    // The page's design view on the 8-D table `scripts/bench-browser.mjs` uploads (same bytes).
    let table8 = design_8d_csv();
    let bench8 = hpo_playground::engine::loaders::upload::load_file("design-8d.csv", table8.as_bytes(), None)
        .map_err(|e| format!("{e:?}"))?
        .benchmark;
    for method in [DesignMethod::Ic, DesignMethod::Ta] {
        let cells: Vec<String> = [10, 20]
            .iter()
            .map(|&points| {
                let spec = DesignViewSpec { method, criterion: Criterion::D, points, seed: 0, axes: Some((0, 1)) };
                let t0 = Instant::now();
                let view = DesignTable::from_benchmark(&bench8, 0, (0, 1), 0).and_then(|t| design_view(&spec, Some(&t)));
                format!("{:.2} s ({} iterates)", t0.elapsed().as_secs_f64(), view.map_or(0, |v| v.iterates))
            })
            .collect();
        println!(
            "| the page's design view with {} on the uploaded 8-D table (1,000 configurations × 6 budgets, and the 1-D fit) | — (raised to p + 2 = 10) | {} |",
            method.name(),
            cells.join(" | ")
        );
    }
    println!("\n| one GPB step (ML fit + EI over 2,000 configurations × 6 budgets), 7-D | seconds |\n|---|---|");
    for n in [50, 200] {
        let t = gpb_step(n, 7, 2000, &now)?;
        println!("| {n} observations | {:.2} (fit {:.2}, EI {:.2}; best EI {:.2e}) |", t.total, t.fit, t.total - t.fit, t.best_ei);
    }
    Ok(())
}

/// The 8-D learning-curve table of the design-view benchmark: 1,000 configurations uniform
/// in [0, 1]⁸ and 50 steps, from the same linear congruential generator and with the same
/// formatting as `scripts/bench-browser.mjs` (MINSTD: exact in JavaScript's doubles), so that both measure the same bytes.
fn design_8d_csv() -> String {
    let mut seed: u64 = 1;
    let mut uniform = || {
        seed = seed * 48_271 % 2_147_483_647;
        seed as f64 / 2_147_483_647.0
    };
    let mut out = (1..=8).map(|k| format!("hp{k}")).chain((1..=50).map(|k| format!("e{k}"))).collect::<Vec<_>>().join(",");
    out.push('\n');
    for _ in 0..1000 {
        let x: Vec<f64> = (0..8).map(|_| uniform()).collect();
        let last: f64 = x.iter().map(|v| (v - 0.5).powi(2)).sum();
        let row: Vec<String> =
            x.iter().map(|v| format!("{v:.5}")).chain((1..=50).map(|k| format!("{:.5}", last + 1.0 / k as f64))).collect();
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}
