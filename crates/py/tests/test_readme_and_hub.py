"""The README's two lines and the OptunaHub folder, run as a user would: the lines copied out of
the README as written, the hub package loaded by OptunaHub and its example run."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import optuna
import optunahub

ROOT = Path(__file__).resolve().parents[3]
HUB_ROOT = ROOT / "crates/py/optunahub"
HUB_PACKAGE = HUB_ROOT / "samplers/hpo_playground"


def readme_section(title: str) -> str:
    text = (ROOT / "README.md").read_text()
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## )", text, re.S | re.M)
    assert match, f"README.md has no section {title!r}"
    return match.group(1)


def test_the_readme_lines_run_as_written():
    section = readme_section("Use the methods in your own study")
    blocks = dict(re.findall(r"```(\w+)\n(.*?)```", section, re.S))
    # The install line is the package tests/py/run.sh installs, with the extra that brings
    # Optuna (the two lines need it), which the package declares.
    assert blocks["sh"].strip() == "pip install './crates/py[optuna]'"
    assert "pip install --quiet --disable-pip-version-check --force-reinstall --no-deps ./crates/py" in (
        ROOT / "tests/py/run.sh"
    ).read_text()
    assert re.search(r'^optuna = \["optuna>=', (ROOT / "crates/py/pyproject.toml").read_text(), re.M)
    (line,) = blocks["python"].strip().splitlines()
    scope: dict = {}
    exec("import optuna, hpo_playground.optuna", scope)  # the import the README names
    exec(line, scope)
    study = scope["study"]
    study.optimize(lambda t: (t.suggest_float("x", -5, 5) - 1) ** 2, n_trials=12)
    assert len(study.trials) == 12
    assert abs(study.best_params["x"] - 1) < 0.05, study.best_params


def test_the_hub_folder_loads_and_its_example_runs():
    module = optunahub.load_local_module(package="samplers/hpo_playground", registry_root=str(HUB_ROOT))
    from hpo_playground.optuna import Sampler

    assert module.Sampler is Sampler, "the hub's wrapper re-exports the package's sampler"
    study = optuna.create_study(sampler=module.Sampler(method="GCP", seed=1))
    study.optimize(lambda t: math.sin(3 * t.suggest_float("x", 0, 2)), n_trials=10)
    assert len(study.trials) == 10
    run = subprocess.run(
        [sys.executable, str(HUB_PACKAGE / "example.py")], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    best = float(re.search(r"best value (\S+)", run.stdout).group(1))
    assert best < 0.5, f"30 trials of GP on Branin (minimum 0.397887) reached {best}"


def test_the_hub_folder_says_what_it_requires():
    # OptunaHub installs a package's requirements.txt; the engine itself is not on PyPI, which
    # the file and the README's Installation section say.
    requirements = (HUB_PACKAGE / "requirements.txt").read_text()
    lines = [line for line in requirements.splitlines() if line and not line.startswith("#")]
    assert lines == ["optuna>=4.0"], lines
    assert "pip install ./crates/py" in requirements
    assert "pip install -r requirements.txt" in (HUB_PACKAGE / "README.md").read_text()


def test_the_hub_readme_has_the_front_matter_the_registry_asks_for():
    text = (HUB_PACKAGE / "README.md").read_text()
    front = re.match(r"---\n(.*?)\n---\n", text, re.S)
    assert front, "README.md starts with front matter"
    keys = dict(line.split(":", 1) for line in front.group(1).splitlines())
    assert set(keys) == {"author", "title", "description", "tags", "optuna_versions", "license"}
    assert "sampler" in keys["tags"], "a package under samplers/ carries the tag 'sampler'"
    assert keys["license"].strip() == "MIT License"
    assert optuna.__version__ in keys["optuna_versions"], "the Optuna version the tests ran"
    assert "MIT License" in (HUB_PACKAGE / "LICENSE").read_text()
    for section in ("## Abstract", "## Class or Function Names", "## Installation", "## Example"):
        assert section in text


def package_readme_section(title: str) -> str:
    text = (ROOT / "crates/py/README.md").read_text()
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |^Tests: )", text, re.S | re.M)
    assert match, f"crates/py/README.md has no section {title!r}"
    return match.group(1)


def test_the_ray_tune_examples_run_as_written(ray_cluster, tmp_path):
    # The section's Python blocks in order, as one script (the restore block uses the
    # scheduler block's `train` and experiment), against the tests' two-node cluster: Ray's
    # own ray.init() inside Tuner.fit finds it through RAY_ADDRESS.
    blocks = re.findall(r"```python\n(.*?)```", package_readme_section("Ray Tune"), re.S)
    assert len(blocks) == 3, "the searcher, the scheduler and the restore"
    script = tmp_path / "readme_ray_tune.py"
    script.write_text("\n".join(blocks))
    run = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=900,
        env={**ray_cluster.env, "RAY_ADDRESS": ray_cluster.address},
    )
    assert run.returncode == 0, run.stderr[-5000:]
    lines = run.stdout.strip().splitlines()
    best_config = next(line for line in lines if line.startswith("{'lr'"))
    assert "'width'" in best_config, lines
    assert (tmp_path / "ray_results/asha").is_dir()
    assert any(line.startswith("(") and line.rstrip().endswith(")") for line in lines), lines


def test_the_package_readme_examples_run_as_written(tmp_path):
    # Every Python example of crates/py/README.md but the Ray Tune ones (run against the tests'
    # Ray cluster above), in order, as one script in an empty folder, where `train.py` is the
    # tests' Syne Tune training script (the README says so).
    text = (ROOT / "crates/py/README.md").read_text()
    ray = package_readme_section("Ray Tune")
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if b not in ray]
    assert len(blocks) == 5, f"the sampler, MultiFidelity, fail, Optuna and Syne Tune examples: {len(blocks)}"
    (tmp_path / "train.py").write_text((Path(__file__).parent / "syne_tune_train.py").read_text())
    script = tmp_path / "readme_examples.py"
    script.write_text("\n".join(blocks))
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    printed = run.stdout.strip().splitlines()
    assert len(printed) >= 5, printed
    assert (tmp_path / "journal.log").exists(), "the Optuna example wrote its journal"
