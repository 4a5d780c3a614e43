"""The round trip with real Optuna: `hpo suggest` writes a journal with k trials enqueued;
Optuna opens it, finds the k trials waiting with exactly the suggested parameters, and runs
them first. The same for an SQLite storage (hpo suggest writes enqueue.py, never the database:
run against a copy, it leaves the k trials waiting) and for a conditional space (each trial
waits with its branch's parameters only). Run by scripts/test.sh in the venv it makes (Optuna 5.0.0):

    .tools/study-venv/bin/python tests/studies/optuna_round_trip.py target/release/hpo

and by the page's end-to-end test on the files the page offered to download (the same check
on journal.log, suggestions.csv and enqueue.py in DIR):

    .tools/study-venv/bin/python tests/studies/optuna_round_trip.py --check DIR
"""

import csv
import os
import subprocess
import sys
import tempfile

import optuna

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures", "studies"))
from make import objective  # noqa: E402  (the study's own objective, as the fixture ran it)

K = 4


JOURNAL = os.path.join(ROOT, "tests", "fixtures", "studies", "optuna-mlp-journal.log")
DATABASE = os.path.join(ROOT, "tests", "fixtures", "studies", "optuna-mlp.db")


def main():
    if sys.argv[1] == "--check":
        check(sys.argv[2], "the page's")
        return
    hpo = sys.argv[1]
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([hpo, "suggest", "--data", JOURNAL, "--method", "GCP", "--n", str(K), "--seed", "3", "--out", out], check=True, stdout=subprocess.DEVNULL)
        check(out, "hpo suggest's")
    with tempfile.TemporaryDirectory() as out:
        check_sqlite(hpo, out)
    with tempfile.TemporaryDirectory() as out:
        check_conditional(hpo, out)


# The columns suggestions.csv writes after the parameters: why each trial is proposed.
EXPLANATION_COLUMNS = {"predicted_value", "predicted_sd", "log_ei", "on_untried_bound", "untried_bound_reason"}


def parameters(rows):
    """suggestions.csv's rows, each with its parameters only."""
    return [{k: v for k, v in row.items() if k not in EXPLANATION_COLUMNS} for row in rows]


def same(params, row):
    """Optuna's parameters are the suggested row (an empty cell: a parameter the row's branch
    of a conditional space does not suggest)."""
    return all(
        (abs(params[k] - float(v)) <= 1e-12 * max(1.0, abs(float(v)))) if isinstance(params[k], float)
        else str(params[k]) == v
        for k, v in row.items()
        if v != ""
    )


def check(out, whose):
    """The journal, suggestions.csv and enqueue.py in `out`: K trials waiting, run first."""
    journal = JOURNAL
    with open(os.path.join(out, "suggestions.csv")) as f:
        suggested = parameters(csv.DictReader(f))
    assert len(suggested) == K, suggested

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    storage = optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(os.path.join(out, "journal.log")))
    study = optuna.load_study(study_name="mlp-cifar", storage=storage)
    before = len(study.trials)
    waiting = [t for t in study.trials if t.state == optuna.trial.TrialState.WAITING]
    assert len(waiting) == K, f"{len(waiting)} trials waiting, {K} expected"

    for t, row in zip(waiting, suggested):
        assert same(t.system_attrs["fixed_params"], row), (t.system_attrs["fixed_params"], row)
    study.optimize(objective, n_trials=K)
    # The enqueued trials are the last K of the journal before the run: Optuna ran them.
    ran = [t for t in study.trials if before - K <= t.number < before]
    assert len(study.trials) == before, 'no other trial ran'
    for t, row in zip(ran, suggested):
        assert t.state == optuna.trial.TrialState.COMPLETE or t.state == optuna.trial.TrialState.PRUNED, t.state
        assert same(t.params, row), (t.params, row)

    # enqueue.py does the same on a copy of the original journal.
    copy = os.path.join(out, "copy", "journal.log")
    os.makedirs(os.path.dirname(copy))
    with open(journal) as src, open(copy, "w") as dst:
        dst.write(src.read())
    subprocess.run([sys.executable, os.path.join(out, "enqueue.py")], cwd=os.path.dirname(copy), check=True)
    study = optuna.load_study(study_name="mlp-cifar", storage=optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(copy)))
    waiting = [t for t in study.trials if t.state == optuna.trial.TrialState.WAITING]
    assert len(waiting) == K and all(same(t.system_attrs["fixed_params"], row) for t, row in zip(waiting, suggested))

    # Beside a journal whose last line is cut off (copied while its study wrote), enqueue.py
    # refuses before writing, names the file and points to the journal.log written beside it.
    torn = os.path.join(out, "torn", "journal.log")
    os.makedirs(os.path.dirname(torn))
    with open(journal) as src:
        text = src.read()
    cut = text + text.splitlines(True)[-1][:30]
    with open(torn, "w") as dst:
        dst.write(cut)
    refused = subprocess.run([sys.executable, os.path.join(out, "enqueue.py")], cwd=os.path.dirname(torn), capture_output=True, text=True)
    assert refused.returncode != 0 and "journal.log: its last line is cut off" in refused.stderr, refused.stderr
    assert "journal.log written beside this enqueue.py" in refused.stderr and "Traceback" not in refused.stderr, refused.stderr
    with open(torn) as f:
        assert f.read() == cut, "the torn journal left as it was"
    print(f"optuna round trip ({whose} files): {K} suggested trials waiting in the journal with the suggested parameters, run first by Optuna {optuna.__version__}; enqueue.py the same, and refuses a journal whose last line is cut off")


def check_sqlite(hpo, out):
    """An SQLite storage: hpo suggest writes suggestions.csv and an enqueue.py (never the
    database); run beside a copy of the database, enqueue.py leaves K trials waiting there with
    exactly the suggested parameters, and Optuna runs them first."""
    db = os.path.join(out, "optuna-mlp.db")
    with open(DATABASE, "rb") as src, open(db, "wb") as dst:
        dst.write(src.read())
    files = os.path.join(out, "files")
    subprocess.run([hpo, "suggest", "--data", db, "--study", "mlp-svhn", "--method", "GP", "--n", str(K), "--out", files], check=True, stdout=subprocess.DEVNULL)
    assert not os.path.exists(os.path.join(files, "journal.log")), "no journal for a database"
    with open(DATABASE, "rb") as a, open(db, "rb") as b:
        assert a.read() == b.read(), "hpo suggest left the database as it was"
    with open(os.path.join(files, "suggestions.csv")) as f:
        suggested = parameters(csv.DictReader(f))
    assert len(suggested) == K, suggested
    subprocess.run([sys.executable, os.path.join(files, "enqueue.py")], cwd=out, check=True)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.load_study(study_name="mlp-svhn", storage=f"sqlite:///{db}")
    waiting = [t for t in study.trials if t.state == optuna.trial.TrialState.WAITING]
    assert len(waiting) == K, f"{len(waiting)} trials waiting, {K} expected"
    for t, row in zip(waiting, suggested):
        assert same(t.system_attrs["fixed_params"], row), (t.system_attrs["fixed_params"], row)
    before = len(study.trials)
    study.optimize(objective, n_trials=K)
    ran = [t for t in study.trials if before - K <= t.number < before]
    assert len(study.trials) == before and all(same(t.params, row) for t, row in zip(ran, suggested)), "Optuna ran them first"
    print(f"optuna round trip (SQLite): {K} suggested trials waiting in the database after enqueue.py, run first by Optuna {optuna.__version__}")


def check_conditional(hpo, out):
    """A conditional space (momentum only for sgd, beta2 only for adam): each suggested trial
    waits with its branch's parameters only, and Optuna runs it with exactly those."""
    from make import conditional_objective

    journal = os.path.join(ROOT, "tests", "fixtures", "studies", "optuna-conditional-journal.log")
    subprocess.run([hpo, "suggest", "--data", journal, "--method", "GP", "--n", str(K), "--out", out], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "suggestions.csv")) as f:
        suggested = parameters(csv.DictReader(f))
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.load_study(study_name="cond-space", storage=optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(os.path.join(out, "journal.log"))))
    waiting = [t for t in study.trials if t.state == optuna.trial.TrialState.WAITING]
    assert len(waiting) == K
    for t, row in zip(waiting, suggested):
        branch = {k for k, v in row.items() if v != ""}
        assert set(t.system_attrs["fixed_params"]) == branch and ({"momentum", "beta2"} & branch) == ({"momentum"} if row["optimizer"] == "sgd" else {"beta2"}), (t.system_attrs, row)
    before = len(study.trials)
    study.optimize(conditional_objective, n_trials=K)
    ran = [t for t in study.trials if before - K <= t.number < before]
    assert len(study.trials) == before and all(same(t.params, row) and set(t.params) == {k for k, v in row.items() if v != ""} for t, row in zip(ran, suggested))
    print(f"optuna round trip (conditional space): {K} suggested trials waiting with their branch's parameters only, run first by Optuna {optuna.__version__}")


if __name__ == "__main__":
    main()
