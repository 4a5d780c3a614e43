#!/usr/bin/env bash
# Runs the coverage-guided fuzz targets (fuzz/, cargo-fuzz on the nightly toolchain) and prints,
# per target, the executions, the corpus size and the crashes.
#
#   bash scripts/fuzz.sh SECONDS [TARGET…]     explore for SECONDS a target (random seed)
#   RUNS=10000000 bash scripts/fuzz.sh 86400 load_file   stop after 10^7 executions instead
#   bash scripts/fuzz.sh smoke [TARGET…]       the test command's smoke: the same inputs on
#                                              every run and machine (below)
#   bash scripts/fuzz.sh build                 only build the targets
#
# Exploring, the corpus grows in fuzz/corpus/TARGET (not committed) and a later run starts from
# it. The smoke starts from the written seeds and the recorded crash inputs only, with
# libFuzzer's seed fixed and a fixed number of executions, so that it tries the same inputs
# every time: it passes or fails on the code, never on the draw.
# Exits 1 when any target found a crash (its input is in fuzz/artifacts/TARGET/: add it to
# tests/fuzz_regressions/TARGET/ so that `cargo test` replays it forever).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: fuzz.sh SECONDS|smoke|build [TARGET…]}
shift
# The smoke's executions a target: about 10 s each on a 2-core machine (docs/benchmarks.md).
declare -A smoke_runs=([load_file]=40000 [curve_table]=150000 [permalink]=150000 [spec_json]=300000 [lesson_link]=300000)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(load_file curve_table permalink spec_json lesson_link)
export PATH="$HOME/.cargo/bin:$PATH"

# Seeds: small valid inputs of every shape, written here (never copied from ../shared), into
# fuzz/seeds/TARGET (not committed; written anew on every run).
rm -rf fuzz/seeds
seed() { mkdir -p "fuzz/seeds/$1"; printf '%s' "$3" > "fuzz/seeds/$1/$2"; }
seed load_file copula.csv $'hp_x,hp_y_log,metric_error,metric_time,task,blackbox\n0.1,-2,0.3,10,a,B\n0.5,-1,0.2,12,a,B\n0.9,0,0.4,9,b,B\n'
seed load_file curves.csv $'hp_lr,task,e1,e2,e3\n0.1,a,0.9,0.5,0.4\n0.01,a,0.8,0.7,0.2\n'
seed load_file generic.csv $'lr,depth,opt,val_acc,dataset\n0.1,3,adam,0.8,a\n0.01,5,sgd,0.7,b\n'
seed load_file nan.csv $'hp_x,metric_loss,task\n1,nan,a\n2,,a\n3,inf,b\n4,1e308,b\n'
# Archives without timestamps (gzip -n, zip members dated 1980), so that the seeds are the same
# bytes on every run.
printf 'hp_x,metric_loss,task\n1,2,a\n3,4,b\n' | gzip -n -c > fuzz/seeds/load_file/plain.csv.gz
python3 - <<'EOF'
import io, zipfile
for name, members in {
    "one.zip": {"dir/table.csv": "hp_x,metric_loss,task\n1,2,a\n3,4,b\n"},
    "lcbench.zip": {
        "lcbench_configs.csv": "config_id,batch_size,learning_rate\n0,16,0.001\n1,512,0.1\n",
        "lcbench_surrogate_val_balanced_accuracy.csv.gz": "task_id,config_id,e1,e2,e3\n7,0,0.5,0.6,0.65\n7,1,0.7,0.8,0.75\n",
        "lcbench_task_names.csv": "task_id,dataset_name\n7,covertype\n",
    },
}.items():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for member, text in members.items():
            z.writestr(zipfile.ZipInfo(member, date_time=(1980, 1, 1, 0, 0, 0)), text, compress_type=zipfile.ZIP_DEFLATED)
    open(f"fuzz/seeds/load_file/{name}", "wb").write(buf.getvalue())
EOF
# Study files as Optuna, Ray Tune and Syne Tune wrote them (tests/fixtures/studies, made by the
# tools through make.py), whole, gzipped and cut short: a journal cut mid-line, a SQLite
# database cut mid-page.
studies=tests/fixtures/studies
for f in optuna-added-trials-journal.log optuna-disjoint-journal.log not-optuna.db synetune-mlp-results.csv.zip; do
  cp "$studies/$f" "fuzz/seeds/load_file/$f"
done
head -c 8000 "$studies/optuna-conditional-journal.log" > fuzz/seeds/load_file/conditional-cut.log
gzip -n -c "$studies/optuna-disjoint-journal.log" > fuzz/seeds/load_file/disjoint.log.gz
head -c 20000 "$studies/optuna-two-objective.db" > fuzz/seeds/load_file/two-objective-cut.db
head -c 6000 "$studies/raytune-mlp-dataframe.csv" > fuzz/seeds/load_file/raytune-cut.csv
seed curve_table steps.csv $'hp_lr,task,step_1,step_2\n0.1,a,0.9,0.5\n0.2,b,0.3,0.1\n'
seed curve_table e.csv $'lr,e1,e2,e3\n1,0.5,0.4,0.3\n'
seed permalink full 'v=1&data=shared:XGBoost.csv.zip&tasks=heart,a6a&methods=RS,GCP%2Bprior&seeds=20&seed0=3&iters=100&transfer=loto'
seed permalink race 'v=1&data=bundled:curves&methods=ASHA,DyHPO&seeds=3&race=200&direction=max&design=TA.D.10.0.2.5'
seed permalink roles 'v=1&data=upload:r%20uns.csv@aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa&hp=lr,depth&cat=depth&metrics=acc:max,loss:min&taskcol=ds&mo=acc:max,loss:auto'
seed permalink url 'v=1&data=url:https://host.org/a/XGBoost.csv.zip@07bc5e4087cb408ac154871c1b64caf3f1c163ba9b05c0c703db78a0ec815349&methods=RS'
seed spec_json spec.json '{"version":1,"data":"bundled:curves","objective":null,"direction":"Maximize","tasks":[],"methods":["RS","DyHPO"],"seeds":2,"first_seed":0,"iterations":50,"transfer":"None","columns":null,"objectives":[],"race_budget":80,"design_view":null}'
seed spec_json full.json '{"version":1,"data":"bundled:curves","objective":null,"direction":null,"tasks":["curves-0"],"methods":["RS","GP"],"seeds":3,"first_seed":7,"iterations":20,"transfer":"LeaveOneTaskOut"}'
seed lesson_link gp 'learn=gp-ei&step=3&speed=2&ei_hide=1&seed=4&lx=0.1,0.5'
seed lesson_link designs 'learn=designs&step=1&lp=0.1:0.2:0,0.5:0.5:1'
seed lesson_link pareto 'learn=pareto&method=EHVI&step=5'

# 16 codegen units (cargo-fuzz's default is 1): the engine then compiles on both cores, in
# 1 min 24 s instead of 2 min 13 s on a 2-core machine.
build=(--release --codegen-units 16)
cargo +nightly fuzz build "${build[@]}" >/dev/null 2>&1 || { cargo +nightly fuzz build "${build[@]}"; exit 1; }
[ "$seconds" != build ] || exit 0
# The targets as cargo-fuzz built them, run here directly (cargo-fuzz's `run` adds nothing but
# the artifact folder, given below).
bin_dir="${CARGO_TARGET_DIR:-fuzz/target}/$(rustc +nightly -vV | sed -n 's/^host: //p')/release"
if [ "$seconds" = smoke ]; then
  # The smoke tries the same inputs on every run: libFuzzer's seed fixed, a fixed number of
  # executions, no periodic re-read of the corpus folder (-reload, a timer), no leak check
  # (its verdicts moved with timing), no mutations from compared values (-use_cmp: heap
  # addresses are compared too, and libFuzzer's own threads move them), no address
  # randomisation (setarch -R) and getrandom's bytes fixed (fuzz/support/fixed_random.c) for
  # the hash keys. Measured: the same corpus on repeated runs (docs/benchmarks.md).
  fixed_random="${CARGO_TARGET_DIR:-fuzz/target}/fixed_random.so"
  cc -shared -fPIC -O2 -o "$fixed_random" fuzz/support/fixed_random.c
  run() { LD_PRELOAD="$fixed_random" setarch "$(uname -m)" -R "$@"; }
else
  run() { "$@"; }
fi
status=0
printf '%-12s %14s %10s %8s %8s\n' target executions exec/s corpus crashes
for t in "${targets[@]}"; do
  log=$(mktemp)
  mkdir -p "fuzz/artifacts/$t" fuzz/corpus
  recorded="tests/fuzz_regressions/$t"
  mkdir -p "$recorded"
  if [ "$seconds" = smoke ]; then
    corpus=$(mktemp -d)
    limits=(-seed=1 -runs="${smoke_runs[$t]}" -reload=0 -detect_leaks=0 -use_cmp=0 -timeout=60)
  else
    corpus="fuzz/corpus/$t"
    mkdir -p "$corpus"
    limits=(-max_total_time="$seconds" -runs="${RUNS:--1}" -timeout=10)
  fi
  # New inputs go to the first folder; the others are read only. -timeout: an input that takes
  # that long is a hang, reported like a crash (the smoke's is wide: it decides on inputs only).
  if ! run "$bin_dir/$t" "$corpus" "fuzz/seeds/$t" "$recorded" "${limits[@]}" -artifact_prefix="fuzz/artifacts/$t/" \
      -rss_limit_mb=4096 -print_final_stats=1 >"$log" 2>&1; then
    status=1
  fi
  execs=$(grep -h 'stat::number_of_executed_units' "$log" | awk '{s += $2} END {print s + 0}')
  rate=$(grep -h 'stat::average_exec_per_sec' "$log" | awk '{s += $2} END {print s + 0}')
  crashes=$(find "fuzz/artifacts/$t" -type f | wc -l)
  size=$(find "$corpus" -type f | wc -l)
  printf '%-12s %14s %10s %8s %8s\n' "$t" "$execs" "$rate" "$size" "$crashes"
  if [ "$crashes" -gt 0 ]; then
    status=1
    grep -h -m3 -E 'panicked at|ERROR: libFuzzer' "$log" | sed 's/^/    /' || true
  fi
  [ "$seconds" != smoke ] || rm -rf "$corpus"
  rm -f "$log"
done
exit $status
