"""Time chapter 2's Type I runs with the paper's setup (Fig. 3, Table II) before booking a
machine for them: seconds per private SGD step of each network at the paper's data sizes, and
what a cell and the `paper` profile's grid then take.

The data are random tensors of the real shapes (55,000 MNIST images, 199,364 Credit rows of
28 features, 32,561 Adult rows of 105), so no file is needed; the step's cost does not depend on
the values. Each step is :func:`ldp_companion.tvg.experiments.dp_sgd`'s: Poisson sampling over
all training records, the lot's per-example gradients a batch at a time, ℓ∞ clipping, one noise
draw per parameter tensor.

Usage::

    python benchmarks/type1_steps.py                 # CPU, one thread (as a grid cell runs)
    python benchmarks/type1_steps.py --device cuda --json benchmarks/results/type1-h100.json
"""
from __future__ import annotations

import argparse
import json
import time

import torch

from ldp_companion.execution.runner import machine
from ldp_companion.neural.device import one_thread, torch_device
from ldp_companion.tvg import paper_sgd
from ldp_companion.tvg.experiments import dp_sgd, type1_stds
from ldp_companion.tvg.params import PARAMS

_FEATURES = {"credit": 28, "adult": 105}


def _data(task: str, dev) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(0)
    n = paper_sgd.SIZES[task][0]
    if task == "mnist":
        x = torch.rand(n, 1, 28, 28, generator=gen) * 2 - 1
        y = torch.randint(0, 10, (n,), generator=gen)
    else:
        x = torch.randn(n, _FEATURES[task], generator=gen)
        y = torch.randint(0, 2, (n,), generator=gen).float()
    return x.to(dev), y.to(dev)


def step_seconds(task: str, steps: int, device: str | None) -> float:
    """Seconds per step of ``task``'s private SGD (IDN noise), over ``steps`` steps after one
    warm-up step."""
    dev = torch_device(device)
    x, y = _data(task, dev)
    gen = torch.Generator().manual_seed(1)
    model = paper_sgd.sgd_model(task, x.shape[1], gen, dev)
    setup = paper_sgd.SETUP[task]
    shapes = {k: p.shape for k, p in model.named_parameters()}
    stds = type1_stds("idn", 8.0, shapes, setup["lot"] / len(y), 1000, setup["clip"])
    kw = dict(stds=stds, clip=setup["clip"], lot=setup["lot"], lr=1e-3, gen=gen, private=True,
              batch=setup["batch"])
    dp_sgd(model, x, y, steps=1, **kw)
    if dev.type == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    dp_sgd(model, x, y, steps=steps, **kw)
    if dev.type == "cuda":
        torch.cuda.synchronize()
    return (time.perf_counter() - t0) / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default=None, help="torch device (default: CUDA if any)")
    parser.add_argument("--steps", type=int, default=20, help="timed steps per network")
    parser.add_argument("--tasks", nargs="+", default=list(paper_sgd.TASKS))
    parser.add_argument("--json", help="write the table here")
    args = parser.parse_args()
    eps = PARAMS.spec["eps_1"][1]["paper"]
    runs = PARAMS.spec["paper_runs"][1]["paper"]
    cells = 4 * len(eps) * runs + runs          # Optimized, IDN, UDN, MVG, and "none"
    rows = []
    with one_thread():
        for task in args.tasks:
            per_step = step_seconds(task, args.steps, args.device)
            lot = paper_sgd.SETUP[task]["lot"]
            steps = round(paper_sgd.PAPER_EPOCHS[task] * paper_sgd.SIZES[task][0] / lot)
            rows.append({"task": task, "seconds_per_step": per_step, "steps_per_cell": steps,
                         "seconds_per_cell": per_step * steps, "cells": cells,
                         "hours_one_worker": per_step * steps * cells / 3600})
            print(f"{task:>7}: {per_step:.4f} s/step, {steps} steps a cell -> "
                  f"{per_step * steps:,.0f} s a cell, {cells} cells -> "
                  f"{rows[-1]['hours_one_worker']:.2f} h on one worker")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"machine": machine(), "device": str(torch_device(args.device)),
                       "timed_steps": args.steps, "chapter": PARAMS.chapter,
                       "covers": "paper_tasks_1", "what": "Fig. 3 paper networks",
                       "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
