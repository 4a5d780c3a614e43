"""The recording searcher, scheduler and callback of ray_tune_driver.py, in a module of their
own: Ray pickles the scheduler and the callbacks into the experiment (tuner.pkl) and cloudpickle
would copy classes of the driver's __main__ by value, each with a private copy of the globals
below, so that a restored run's records would not reach the driver's summary."""

from __future__ import annotations

import os
import signal

from ray import tune
from ray.tune.experiment import Trial

from hpo_playground.ray_tune import MultiFidelityScheduler, Searcher

# What the searcher, the scheduler and the run's end saw, for the summary. Module globals: after
# Tuner.restore the scheduler and the callback are copies unpickled from the experiment.
SEEN: dict = {"running_at_suggest": [], "most_in_training": 0, "resumed": [], "unasked_epochs": 0}
INTERRUPT_AFTER_TELLS = 0


class RecordingSearcher(Searcher):
    """The searcher, counting the trials still running when each suggestion is made."""

    def suggest(self, trial_id):
        SEEN["running_at_suggest"].append(sum(t["state"] == "RUNNING" for t in self._trials.values()))
        return super().suggest(trial_id)


class RecordingScheduler(MultiFidelityScheduler):
    """The scheduler, recording the most requests out at once, the trials it resumed from a pause
    and the tells it had at its first decision (those restored); with INTERRUPT_AFTER_TELLS the driver interrupts itself after that
    many tells (SIGINT, as Ctrl-C: Ray saves the experiment's state and ends the run)."""

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
        if config not in self._race.training() and result["epoch"] > self._race.session.reached(config):
            SEEN["unasked_epochs"] += 1
        decision = super().on_trial_result(tune_controller, trial, result)
        global INTERRUPT_AFTER_TELLS
        if INTERRUPT_AFTER_TELLS and sum(e[0] == "tell" for e in self._race.history) >= INTERRUPT_AFTER_TELLS:
            INTERRUPT_AFTER_TELLS = 0
            os.kill(os.getpid(), signal.SIGINT)
        return decision


class Statuses(tune.Callback):
    def on_experiment_end(self, trials, **info):
        SEEN["statuses"] = sorted(t.status for t in trials)
