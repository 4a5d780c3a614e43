"""A Ray Tune driver for test_ray_tune.py, run as its own process against the test's cluster
(so that a test can kill it mid-run and restore its experiment in another). Its last line on
stdout is a JSON summary of what the engine's face saw; the training function writes a line per
(re)start to --events.

    python ray_tune_driver.py --address 127.0.0.1:PORT --storage DIR --name NAME --face scheduler ...
"""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
import time
import uuid
from pathlib import Path

import ray
from ray import tune

import ray_tune_recording as recording
from ray_tune_recording import SEEN, RecordingScheduler, RecordingSearcher, Statuses


def start_together(config):
    """With --together N, the run's first N trial starts wait for one another (a file each in
    --starts), so that N trials are running at once before any reports, however slowly Ray
    starts them: what a test of N concurrent trials counts on, not on trials lasting longer than
    the others take to start."""
    n = config["together"]
    if not n:
        return
    starts = Path(config["starts"])
    starts.mkdir(exist_ok=True)
    (starts / f"{os.getpid()}-{uuid.uuid4().hex}").touch()
    if len(list(starts.iterdir())) > n:
        return  # a later start
    for _ in range(3000):  # a hang guard of 5 minutes
        if len(list(starts.iterdir())) >= n:
            return
        time.sleep(0.1)
    raise RuntimeError(f"{n} trials never ran at once")


def wait_for_the_gate(config, trial_id):
    """With --late-pauses, a trial the scheduler let train past its request holds the gate (a
    file named by its trial id in the directory --events + ".gate") until the scheduler has taken that epoch's result:
    every other trial's report waits for it, so that no tell can ask for the configuration again
    first, however fast or slow the trials run."""
    gate = config["gate"]
    if not gate:
        return
    for _ in range(3000):  # a hang guard of 5 minutes
        if not [p for p in Path(gate).iterdir() if p.name != trial_id]:
            return
        time.sleep(0.1)
    raise RuntimeError(f"the gate {gate} stayed shut")


def train(config):
    """The curve family of syne_tune_train.py, one report (with a checkpoint) per epoch, resumed
    from the checkpoint Ray restores. A configuration with lr above fail_lr_above raises at its
    first epoch, and one with lr above nan_lr_above reports a NaN loss; with kill_dir, the first trial to reach epoch 2 writes its pid there and waits
    for the test to kill its worker process; with gate, each report waits for the gate."""
    checkpoint = tune.get_checkpoint()
    start = 0
    if checkpoint is not None:
        with checkpoint.as_directory() as d:
            start = json.loads(Path(d, "state.json").read_text())["epoch"]
    trial_id = tune.get_context().get_trial_id()
    with open(config["events"], "a") as f:
        f.write(json.dumps({"trial": trial_id, "start": start, "pid": os.getpid()}) + "\n")
    start_together(config)
    floor = (math.log10(config["lr"]) + 2) ** 2 + ((config["width"] - 64) / 64) ** 2
    for epoch in range(start + 1, config["max_t"] + 1):
        time.sleep(config["sleep"])
        if config["lr"] > config["fail_lr_above"]:
            raise RuntimeError(f"lr {config['lr']} diverged")
        if config["kill_dir"] and epoch == 2:
            try:
                os.close(os.open(Path(config["kill_dir"], "victim"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                Path(config["kill_dir"], "pid").write_text(f"{os.getpid()} {trial_id}")
                time.sleep(120)  # killed here by the test
            except FileExistsError:
                pass  # one worker is killed per run
        wait_for_the_gate(config, trial_id)
        loss = math.nan if config["lr"] > config["nan_lr_above"] else floor + (1.0 - floor / 4) / epoch
        with tempfile.TemporaryDirectory() as d:
            Path(d, "state.json").write_text(json.dumps({"epoch": epoch}))
            tune.report({"epoch": epoch, "loss": loss}, checkpoint=tune.Checkpoint.from_directory(d))


def full_evaluation(config):
    """One evaluation: the quadratic floor of `train`'s curves; raises above fail_lr_above."""
    start_together(config)
    time.sleep(config["sleep"])
    if config["lr"] > config["fail_lr_above"]:
        raise RuntimeError(f"lr {config['lr']} diverged")
    return {"loss": (math.log10(config["lr"]) + 2) ** 2 + ((config["width"] - 64) / 64) ** 2}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--address", required=True)
    p.add_argument("--storage", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--face", choices=["searcher", "scheduler"], required=True)
    p.add_argument("--method", required=True)
    p.add_argument("--events", required=True)
    p.add_argument("--trials", type=int, default=10, help="searcher: trials to run")
    p.add_argument("--max-t", type=int, default=3)
    p.add_argument("--total-budget", type=int, default=18)
    p.add_argument("--concurrent", type=int, default=4)
    p.add_argument("--sleep", type=float, default=0.2)
    p.add_argument("--fail-lr-above", type=float, default=math.inf)
    p.add_argument("--nan-lr-above", type=float, default=math.inf, help="train: configurations of lr above it report NaN")
    p.add_argument("--kill-dir", default="")
    p.add_argument("--max-failures", type=int, default=0)
    p.add_argument("--together", type=int, default=0, help="the first N trial starts wait for one another")
    p.add_argument("--interrupt-after-tells", type=int, default=0)
    p.add_argument("--late-pauses", action="store_true",
                   help="each trial the scheduler pauses after a tell trains one epoch past its request first")
    p.add_argument("--restore", action="store_true")
    a = p.parse_args()
    recording.INTERRUPT_AFTER_TELLS = a.interrupt_after_tells
    gate = a.events + ".gate" if a.late_pauses else ""
    if gate:
        os.makedirs(gate, exist_ok=True)
        recording.GATE = gate

    ray.init(address=a.address, logging_level="ERROR", log_to_driver=False)
    constants = {"events": a.events, "sleep": a.sleep, "fail_lr_above": a.fail_lr_above, "nan_lr_above": a.nan_lr_above,
                 "max_t": a.max_t, "kill_dir": a.kill_dir,
                 "together": a.together, "starts": a.events + ".starts", "gate": gate}
    space = {"lr": tune.loguniform(1e-4, 1.0), "width": tune.randint(8, 257), **constants}
    run_config = tune.RunConfig(
        storage_path=a.storage,
        name=a.name,
        verbose=0,
        failure_config=tune.FailureConfig(max_failures=a.max_failures),
        callbacks=[Statuses()],
        # The experiment's state reaches its storage at every save (TUNE_GLOBAL_CHECKPOINT_S=0,
        # set by the test) rather than every 5 minutes, so that a killed driver leaves a recent one.
        sync_config=tune.SyncConfig(sync_period=0),
    )
    if a.face == "searcher":
        searcher = RecordingSearcher(method=a.method, metric="loss", mode="min", seed=0)
        tuner = tune.Tuner(
            tune.with_resources(full_evaluation, {"cpu": 1}),
            param_space=space,
            tune_config=tune.TuneConfig(search_alg=searcher, num_samples=a.trials, max_concurrent_trials=a.concurrent),
            run_config=run_config,
        )
        tuner.fit()
        print(json.dumps({"statuses": SEEN["statuses"], "study": searcher.study(), "running_at_suggest": SEEN["running_at_suggest"]}))
        return

    trainable = tune.with_resources(train, {"cpu": 1})
    if a.restore:
        tuner = tune.Tuner.restore(str(Path(a.storage, a.name)), trainable=trainable, param_space=space)
    else:
        scheduler = RecordingScheduler(
            a.method, max_t=a.max_t, total_budget=a.total_budget, metric="loss", mode="min", seed=0, n_configs=64
        )
        tuner = tune.Tuner(
            trainable,
            param_space=space,
            tune_config=tune.TuneConfig(
                scheduler=scheduler, search_alg=scheduler.searcher, num_samples=-1, max_concurrent_trials=a.concurrent
            ),
            run_config=run_config,
        )
    tuner.fit()
    scheduler = SEEN["scheduler"]
    race = scheduler._race
    session = race.session
    print(json.dumps({
        "statuses": SEEN.get("statuses"),
        "tells": [list(e[1:]) for e in race.history if e[0] == "tell"],
        "failed": session.failed(),
        "failed_lr": [session.params(c)["lr"] for c in session.failed()],
        "in_training": session.in_training(),
        "finished": session.finished,
        "best": session.best and session.best[3],
        "trial_of": {str(c): t for c, t in race.trial_of.items()},
        "most_in_training": SEEN["most_in_training"],
        "restored_tells": SEEN["restored_tells"],
        "resumed": SEEN["resumed"],
        "unasked_epochs": SEEN["unasked_epochs"],
        "late_pauses": SEEN["late_pauses"],
    }))


if __name__ == "__main__":
    main()
