"""The round trip with real Optuna: `hpo suggest` writes a journal with k trials enqueued;
Optuna opens it, finds the k trials waiting with exactly the suggested parameters, and runs
them first. Run by scripts/test.sh in the venv it makes (Optuna 5.0.0):

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


def main():
    if sys.argv[1] == "--check":
        check(sys.argv[2], "the page's")
        return
    hpo = sys.argv[1]
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([hpo, "suggest", "--data", JOURNAL, "--method", "GCP", "--n", str(K), "--seed", "3", "--out", out], check=True, stdout=subprocess.DEVNULL)
        check(out, "hpo suggest's")


def check(out, whose):
    """The journal, suggestions.csv and enqueue.py in `out`: K trials waiting, run first."""
    journal = JOURNAL
    with open(os.path.join(out, "suggestions.csv")) as f:
        suggested = list(csv.DictReader(f))
    assert len(suggested) == K, suggested

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    storage = optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(os.path.join(out, "journal.log")))
    study = optuna.load_study(study_name="mlp-cifar", storage=storage)
    before = len(study.trials)
    waiting = [t for t in study.trials if t.state == optuna.trial.TrialState.WAITING]
    assert len(waiting) == K, f"{len(waiting)} trials waiting, {K} expected"

    def same(params, row):
        return all(
            (abs(params[k] - float(v)) <= 1e-12 * max(1.0, abs(float(v)))) if isinstance(params[k], float)
            else str(params[k]) == v
            for k, v in row.items()
        )

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
    print(f"optuna round trip ({whose} files): {K} suggested trials waiting in the journal with the suggested parameters, run first by Optuna {optuna.__version__}; enqueue.py the same")


if __name__ == "__main__":
    main()
