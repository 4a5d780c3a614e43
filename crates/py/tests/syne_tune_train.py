"""A training script for Syne Tune's LocalBackend (test_syne_tune.py): the curve family of
test_multi_fidelity.py, one epoch per report, resumed from its checkpoint (the epochs trained)
when the scheduler resumes the trial. With --fail_lr_above, a configuration of a larger lr
raises at its first epoch (a trial that errors); with --nan_lr_above, it reports a NaN loss from
its first epoch on (a training that diverged)."""

import argparse
import json
import math
import time
from pathlib import Path

from syne_tune import Reporter

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, required=True)
parser.add_argument("--width", type=int, required=True)
parser.add_argument("--epochs", type=int, required=True)
parser.add_argument("--st_checkpoint_dir", type=str, required=True)
parser.add_argument("--fail_lr_above", type=float, default=math.inf)
parser.add_argument("--nan_lr_above", type=float, default=math.inf)
args = parser.parse_args()

checkpoint = Path(args.st_checkpoint_dir) / "epochs.json"
start = json.loads(checkpoint.read_text())["epochs"] if checkpoint.exists() else 0
report = Reporter()
floor = (math.log10(args.lr) + 2) ** 2 + ((args.width - 64) / 64) ** 2
for epoch in range(start + 1, args.epochs + 1):
    time.sleep(0.05)
    if args.lr > args.fail_lr_above:
        raise RuntimeError(f"lr {args.lr} diverged")
    checkpoint.parent.mkdir(parents=True, exist_ok=True)
    checkpoint.write_text(json.dumps({"epochs": epoch}))
    loss = math.nan if args.lr > args.nan_lr_above else floor + (1.0 - floor / 4) / epoch
    report(epoch=epoch, loss=loss, resumed_from=start)
