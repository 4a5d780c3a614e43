"""`hpo explore` against Optuna itself: its importance (fANOVA over 8 forests, with each order's
share of forests, ahead_of_next) against Optuna's FanovaImportanceEvaluator on the fixture
studies, its ranking on studies of a known order, and its Pareto front against study.best_trials.
Every seed is fixed: Optuna's samplers, Optuna's forests and ours."""

from __future__ import annotations

import csv
import os
import subprocess
from pathlib import Path

import optuna
import pytest
from conftest import journal_storage
from optuna.importance import FanovaImportanceEvaluator, get_param_importances

HPO = os.environ.get("HPO_BIN", str(Path(__file__).resolve().parents[3] / "target/release/hpo"))
STUDIES = Path(__file__).resolve().parents[3] / "tests/fixtures/studies"

# (file, study): every fixture study Optuna wrote with at least one parameter.
FIXTURES = [
    ("optuna-mlp-journal.log", "mlp-cifar"),
    ("optuna-mlp.db", "mlp-cifar"),
    ("optuna-mlp.db", "mlp-svhn"),
    ("optuna-mlp.db", "lr-only"),
    ("optuna-conditional-journal.log", "cond-space"),
    ("optuna-two-studies-journal.log", "mlp-cifar"),
    ("optuna-two-studies-journal.log", "mlp-svhn"),
    ("optuna-infinite-journal.log", "diverging"),
]
# Optuna's forests averaged, as ours are (seeds 0..7). The two-objective study is left to
# scripts/bench-importance.py (docs/benchmarks.md): its categorical has 300 choices, one-hot into
# 300 columns, and Optuna's fANOVA takes ~25 s a seed on it (its walk over the split cells of
# those columns); its only settled pair (lr above n_units) is 0.84-0.88 against 0.05-0.09 in
# each of Optuna's 8 seeds.
OPTUNA_SEEDS: dict[str, range] = {}


def storage_of(path: Path) -> optuna.storages.BaseStorage | str:
    return f"sqlite:///{path}" if path.suffix == ".db" else journal_storage(path)


def explore(data: Path, out: Path, study: str | None = None) -> Path:
    """Runs `hpo explore` (seed 0) and returns its output folder."""
    if not Path(HPO).exists():
        pytest.fail(f"{HPO} is missing: build it with `cargo build --release --bin hpo` (or set HPO_BIN)")
    chosen = ["--study", study] if study is not None else []
    subprocess.run([HPO, "explore", "--data", str(data), *chosen, "--seed", "0", "--out", str(out)], check=True, capture_output=True)
    return out


@pytest.fixture(scope="module")
def explored(tmp_path_factory):
    """`hpo explore`'s folder for a fixture study, run once for the module (the two-objective
    study's takes seconds)."""
    done: dict[tuple[str, str], Path] = {}

    def get(file: str, study: str) -> Path:
        if (file, study) not in done:
            done[(file, study)] = explore(STUDIES / file, tmp_path_factory.mktemp("explore"), study)
        return done[(file, study)]

    return get


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def our_importance(out: Path) -> list[tuple[str, float, float | None]]:
    """importance.csv in `out` as (parameter, importance, ahead_of_next), most important first."""
    rows = read_csv(out / "importance.csv")
    return [(r["parameter"], float(r["importance"]), float(r["ahead_of_next"]) if r["ahead_of_next"] else None) for r in rows]


def optuna_fanova(study: optuna.Study, seeds) -> dict[str, float]:
    """Optuna's fANOVA importances averaged over `seeds`, for the first objective."""
    target = (lambda t: t.values[0]) if len(study.directions) > 1 else None
    runs = [get_param_importances(study, evaluator=FanovaImportanceEvaluator(seed=s), target=target) for s in seeds]
    assert all(set(r) == set(runs[0]) for r in runs)
    return {p: sum(r[p] for r in runs) / len(runs) for p in runs[0]}


@pytest.mark.parametrize("file,name", FIXTURES, ids=[f"{f}:{n}" for f, n in FIXTURES])
def test_settled_orders_agree_with_optunas_fanova(explored, file, name):
    study = optuna.load_study(study_name=name, storage=storage_of(STUDIES / file))
    theirs = optuna_fanova(study, OPTUNA_SEEDS.get(file, range(8)))
    ours = our_importance(explored(file, name))
    # The same parameters: a conditional one left out as Optuna leaves it out.
    assert {p for p, _, _ in ours} == set(theirs), (ours, theirs)
    their_rank = sorted(theirs, key=lambda p: -theirs[p])
    detail = f"ours {ours}; Optuna's mean {theirs}"
    # Each adjacent pair all 8 of our forests order one way: Optuna's mean orders it so.
    settled = [(a, b) for (a, _, ahead), (b, _, _) in zip(ours, ours[1:]) if ahead == 1.0]
    for a, b in settled:
        assert theirs[a] > theirs[b], f"{a} above {b} in all our forests, not in Optuna's mean: {detail}"
    # Our top parameter, when settled (or alone), is Optuna's.
    if len(ours) == 1 or ours[0][2] == 1.0:
        assert ours[0][0] == their_rank[0], detail


# Studies of a known order. fANOVA as Optuna measures it integrates each parameter over its raw
# range (transform_log=False), so each term is linear in the raw value, a log-scale lr's too (a
# term linear in log10(lr) instead, of twice a categorical's variance on the log scale, came out
# 0.26 against the categorical's 0.70: most of lr's raw range is its top decade). Each term is
# 0..1 times its weight; with these weights all 24 orders of the four (sampler seeds 0-2) came
# out in the known order in all 8 forests, and Optuna's fANOVA (seed 0) agreed on the two tried.
WEIGHTS = [8.0, 5.0, 3.0, 2.0]
LEVELS = ["adam", "sgd", "rmsprop"]
# Each parameter at each rank once.
ORDERS = [
    ("lr", "width", "layers", "optimizer"),
    ("width", "layers", "optimizer", "lr"),
    ("layers", "optimizer", "lr", "width"),
    ("optimizer", "lr", "width", "layers"),
]


def known_order_study(journal: Path, order: tuple[str, ...], seed: int) -> None:
    weight = dict(zip(order, WEIGHTS))

    def objective(trial: optuna.Trial) -> float:
        unit = {
            "lr": (trial.suggest_float("lr", 1e-4, 1e-1, log=True) - 1e-4) / (1e-1 - 1e-4),
            "width": trial.suggest_float("width", 0.0, 1.0),
            "layers": (trial.suggest_int("layers", 1, 10) - 1) / 9,
            "optimizer": LEVELS.index(trial.suggest_categorical("optimizer", LEVELS)) / 2,
        }
        trial.suggest_float("noise", -5.0, 5.0)  # no effect
        return sum(weight[p] * unit[p] for p in unit)

    study = optuna.create_study(study_name="known", storage=journal_storage(journal), sampler=optuna.samplers.RandomSampler(seed=seed))
    study.optimize(objective, n_trials=300)


@pytest.mark.parametrize("seed,order", list(enumerate(ORDERS)), ids=[">".join(o) for o in ORDERS])
def test_ranking_is_the_known_order(tmp_path, seed, order):
    journal = tmp_path / "journal.log"
    known_order_study(journal, order, seed)
    ours = our_importance(explore(journal, tmp_path / "out"))
    assert [p for p, _, _ in ours] == [*order, "noise"], ours
    assert [ahead for _, _, ahead in ours] == [1.0, 1.0, 1.0, 1.0, None], ours


def several_objectives_study(journal: Path, ties: bool) -> optuna.Study:
    """Three objectives in mixed directions, some trials failed; with `ties`, values on a coarse
    grid, so that several trials of equal values are on the front."""

    def objective(trial: optuna.Trial) -> tuple[float, float, float]:
        x = trial.suggest_float("x", 0.0, 1.0)
        y = trial.suggest_int("y", 0, 4)
        if trial.number % 11 == 10:
            raise ValueError("diverged")
        if ties:
            x = round(x, 1)
        return x, round(1 - x, 1) + y if ties else (1 - x) ** 2 + y, float(y % 3)

    study = optuna.create_study(
        study_name="three",
        storage=journal_storage(journal),
        directions=["minimize", "minimize", "maximize"],
        sampler=optuna.samplers.RandomSampler(seed=0),
    )
    study.optimize(objective, n_trials=60, catch=(ValueError,))
    return study


def front_numbers(out: Path) -> set[int]:
    return {int(r["number"]) for r in read_csv(out / "pareto.csv") if r["on_front"] == "true"}


@pytest.mark.parametrize("file,name", [("optuna-two-objective.db", "loss-latency"), ("optuna-two-objective-failed-journal.log", "loss-throughput")])
def test_pareto_front_is_optunas_best_trials(explored, file, name):
    study = optuna.load_study(study_name=name, storage=storage_of(STUDIES / file))
    front = front_numbers(explored(file, name))
    assert front == {t.number for t in study.best_trials} and len(front) >= 2


@pytest.mark.parametrize(
    "ties",
    [False, True],
    ids=["distinct-values", "tied-values"],
)
def test_pareto_front_of_three_objectives_is_optunas_best_trials(tmp_path, ties):
    journal = tmp_path / "journal.log"
    study = several_objectives_study(journal, ties)
    front = front_numbers(explore(journal, tmp_path / "out"))
    assert front == {t.number for t in study.best_trials} and len(front) >= 2
