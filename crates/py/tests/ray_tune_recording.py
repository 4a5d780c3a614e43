"""The recording searcher, scheduler and callback of ray_tune_driver.py, in a module of their
own: Ray pickles the scheduler and the callbacks into the experiment (tuner.pkl) and cloudpickle
would copy classes of the driver's __main__ by value, each with a private copy of the globals
below, so that a restored run's records would not reach the driver's summary."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from ray import tune
from ray.tune.experiment import Trial
from ray.tune.schedulers import TrialScheduler

from hpo_playground.ray_tune import MultiFidelityScheduler, Searcher

# What the searcher, the scheduler and the run's end saw, for the summary. Module globals: after
# Tuner.restore the scheduler and the callback are copies unpickled from the experiment.
SEEN: dict = {"running_at_suggest": [], "most_in_training": 0, "resumed": [], "unasked_epochs": 0, "late_pauses": []}
INTERRUPT_AFTER_TELLS = 0
GATE = ""  # with --late-pauses: the gate directory ray_tune_driver.wait_for_the_gate reads


class RecordingSearcher(Searcher):
    """The searcher, counting the trials still running when each suggestion is made."""

    def suggest(self, trial_id):
        SEEN["running_at_suggest"].append(sum(t["state"] == "RUNNING" for t in self._trials.values()))
        return super().suggest(trial_id)


class RecordingScheduler(MultiFidelityScheduler):
    """The scheduler, recording the most requests out at once, the trials it resumed from a pause
    and the tells it had at its first decision (those restored); with INTERRUPT_AFTER_TELLS the driver interrupts itself after that
    many tells (SIGINT, as Ctrl-C: Ray saves the experiment's state and ends the run).

    With GATE (--late-pauses), each pause after a tell comes one epoch late, as when Ray runs a
    trial on before a pause takes effect or starts a paused trial by itself: the scheduler's
    PAUSE becomes CONTINUE, the trial trains one epoch past its request and the scheduler meets
    an epoch the method never asked for. The trial holds the gate (a file named by its id) till
    then, so that every other trial's report waits and the method cannot ask for the
    configuration again first: with one request out at a time the order is made, not hoped for."""

    def choose_trial_to_run(self, tune_controller):
        SEEN.setdefault("scheduler", self)
        SEEN.setdefault("restored_tells", sum(e[0] == "tell" for e in self._race.history))
        paused = {t.trial_id for t in tune_controller.get_trials() if t.status == Trial.PAUSED}
        chosen = super().choose_trial_to_run(tune_controller)
        SEEN["most_in_training"] = max(SEEN["most_in_training"], len(self._race.training()))
        if chosen is not None and chosen.trial_id in paused:
            SEEN["resumed"].append(chosen.trial_id)
        return chosen

    def on_trial_result(self, tune_controller, trial, result):
        # An epoch no one asked for: reported by a trial whose configuration is not in
        # training (paused), past where it paused.
        config = self._race.config_of[trial.trial_id]
        unasked = config not in self._race.training() and result["epoch"] > self._race.session.reached(config)
        if unasked:
            SEEN["unasked_epochs"] += 1
        tells = len(self._race.history)
        decision = super().on_trial_result(tune_controller, trial, result)
        if GATE and unasked:
            Path(GATE, trial.trial_id).unlink(missing_ok=True)  # the scheduler took the epoch past the request
        elif GATE and decision == TrialScheduler.PAUSE and any(e[0] == "tell" for e in self._race.history[tells:]):
            Path(GATE, trial.trial_id).touch(exist_ok=False)
            SEEN["late_pauses"].append([trial.trial_id, int(result["epoch"])])
            decision = TrialScheduler.CONTINUE
        global INTERRUPT_AFTER_TELLS
        if INTERRUPT_AFTER_TELLS and sum(e[0] == "tell" for e in self._race.history) >= INTERRUPT_AFTER_TELLS:
            INTERRUPT_AFTER_TELLS = 0
            os.kill(os.getpid(), signal.SIGINT)
        return decision


class Statuses(tune.Callback):
    def on_experiment_end(self, trials, **info):
        SEEN["statuses"] = sorted(t.status for t in trials)
