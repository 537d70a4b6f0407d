"""Speed-up of the experiment grids per number of worker processes (issue "Speed and scale").

Runs slices of the ``paper``-profile grids of chapters 3 and 5 with ``n_jobs`` = 1, 2, 4, ...
(never more than the machine's cores), checks that every worker count returns the same table
(bit for bit: each cell's generator depends on the seed and the cell only, see
:mod:`ldp_companion.execution.grid`), and prints the wall time and the speed-up over one worker. A
slice keeps the paper's cells (mechanisms × ε × data set) and users per cell, with fewer repetitions
(``--runs``); chapter 5's SGD slice also scales the users by ``--sgd-scale``. Numpy runs one
thread per worker (``OMP_NUM_THREADS=1``, set below before numpy loads), so one worker is one core.

Usage::

    python benchmarks/scaling.py                      # every grid, 1, 2, 4, ... cores
    python benchmarks/scaling.py --grids hiera-sgd --jobs 1 2
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from ldp_companion.execution.profiles import resolve  # noqa: E402
from ldp_companion.hiera.experiments import (  # noqa: E402
    HierAConfig,
    mean_datasets,
    mean_grid,
    regression_tasks,
    sgd_grid,
)
from ldp_companion.hiera.params import PARAMS as HIERA  # noqa: E402
from ldp_companion.pm import synthetic  # noqa: E402
from ldp_companion.pm.experiments import (  # noqa: E402
    MeanTask,
    fedsgd_grid,
    mean_estimation_grid,
    split_task,
)
from ldp_companion.pm.params import PARAMS as PM  # noqa: E402

MECHS = ["laplace_split", "duchi_md", "duchi", "pm", "hm", "three_outputs", "pm_sub", "hm_tp"]
SGD_METHODS = ["none", "harmony", "pm", "graded_laplace", "hiera", "harmony_clip"]
#: Repetitions per cell of each slice: about a minute on one core of a 2-core laptop.
RUNS = {"hiera-sgd": 1, "pm-fedsgd": 3, "hiera-mean": 10, "pm-mean": 4}


def pm_mean(runs: int, sgd_scale: float):
    """Chapter 3, Figs. 5-7: the synthetic Gaussian tasks at the paper's n, every mechanism."""
    cfg = resolve("paper", PM.spec)
    rng = np.random.default_rng(cfg.seed)
    tasks = [MeanTask(f"Gaussian, d = {d}", synthetic.gaussian(cfg.n_mean, d, rng=rng))
             for d in cfg.d_grid[:2]]
    mechs = {m: m for m in MECHS}
    return lambda jobs: mean_estimation_grid(tasks, mechs, cfg.eps_grid, runs, cfg.seed,
                                             n_jobs=jobs, progress=False)


def pm_fedsgd(runs: int, sgd_scale: float):
    """Chapter 3, Figs. 8-10: LDP-FedSGD on the synthetic tasks at the paper's n_erm."""
    cfg = resolve("paper", PM.spec)
    rng = np.random.default_rng(cfg.seed)
    n = round(cfg.n_erm * 6 / 5)
    X, y, _ = synthetic.regression_task(n, cfg.d_erm, rng=rng)
    Xc, yc, _ = synthetic.classification_task(n, cfg.d_erm, rng=rng)
    tasks = [split_task("linear", "linear", X, y, rng, 1 / 6),
             split_task("logistic", "logistic", Xc, yc, rng, 1 / 6)]
    mechs = {"non_private": None, **{m: m for m in MECHS if m != "duchi"}}
    return lambda jobs: fedsgd_grid(tasks, mechs, cfg.eps_grid, runs, cfg.seed,
                                    group_size=cfg.group_size, eta0=cfg.eta0, lam=cfg.lam,
                                    n_jobs=jobs, progress=False)


def hiera_mean(runs: int, sgd_scale: float):
    """Chapter 5, Figs. 1-2: every data set at the paper's sizes, HierA mu = 1..5."""
    cfg = resolve("paper", HIERA.spec)
    data = mean_datasets(cfg.n_synth, cfg.n_real, cfg.seed)
    configs = [HierAConfig(mu, rule) for rule in ("paper", "block") for mu in cfg.mu_list]
    return lambda jobs: mean_grid(data, cfg.eps_grid, runs, cfg.seed, configs=configs,
                                  n_jobs=jobs, progress=False)


def hiera_sgd(runs: int, sgd_scale: float):
    """Chapter 5, Fig. 3: every (task, method, ε) cell, a fraction of the users."""
    cfg = resolve("paper", HIERA.spec)
    sizes = {k: max(1000, round(v * sgd_scale)) for k, v in cfg.sgd_sizes.items()}
    tasks = regression_tasks(sizes, cfg.seed)
    return lambda jobs: sgd_grid(tasks, SGD_METHODS, cfg.sgd_eps, cfg.cv_folds, runs, cfg.seed,
                                 n_jobs=jobs, progress=False, mu=cfg.mu_compare,
                                 lr_schedule=cfg.lr_schedule, lr0=cfg.lr0, lam=cfg.lam,
                                 multidim=cfg.multidim, bias_level=cfg.bias_level)


GRIDS = {"hiera-sgd": hiera_sgd, "pm-fedsgd": pm_fedsgd, "hiera-mean": hiera_mean,
         "pm-mean": pm_mean}


def sweep(run, jobs: list[int]) -> pd.DataFrame:
    """Wall time of ``run(k)`` for each k in ``jobs``; every table must equal the first."""
    rows, first = [], None
    for k in jobs:
        start = time.perf_counter()
        table = run(k)
        seconds = time.perf_counter() - start
        if first is None:
            first = table
        elif not table.equals(first):
            raise AssertionError(f"n_jobs={k} gave a different table than n_jobs={jobs[0]}")
        rows.append({"workers": k, "seconds": seconds, "table rows": len(table)})
    out = pd.DataFrame(rows)
    out["speed-up"] = out["seconds"].iloc[0] / out["seconds"]
    out["efficiency"] = out["speed-up"] / out["workers"] * out["workers"].iloc[0]
    return out


def main(argv=None) -> None:
    cores = os.cpu_count() or 1
    default_jobs = [k for k in (1, 2, 4, 8, 16, 32) if k <= cores]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--grids", nargs="+", choices=sorted(GRIDS), default=list(GRIDS))
    parser.add_argument("--jobs", nargs="+", type=int, default=default_jobs)
    parser.add_argument("--runs", type=int, default=None,
                        help="repetitions per cell (runs, seeds or CV repeats; paper: 100, "
                             f"50 or 10; default: {RUNS})")
    parser.add_argument("--sgd-scale", type=float, default=0.03,
                        help="fraction of the paper's users in the hiera-sgd slice")
    parser.add_argument("--json", type=Path, default=None,
                        help="also write the tables to this file (see benchmarks/results/)")
    parser.add_argument("--machine", default=f"{cores} cores",
                        help="how the --json record names this machine")
    args = parser.parse_args(argv)
    if any(k < 1 or k > cores for k in args.jobs):
        parser.error(f"--jobs must be between 1 and the {cores} cores of this machine")
    print(f"{cores} cores; numpy on one thread per worker")
    results = {"machine": args.machine, "cores": cores, "python": platform.python_version(),
               "numpy": np.__version__, "sgd_scale": args.sgd_scale, "grids": {}}
    for name in args.grids:
        start, runs = time.perf_counter(), args.runs or RUNS[name]
        run = GRIDS[name](runs, args.sgd_scale)
        print(f"\n{name} ({runs} repetition(s) per cell; data built in "
              f"{time.perf_counter() - start:.1f} s): {GRIDS[name].__doc__.splitlines()[0]}")
        table = sweep(run, args.jobs)
        print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"), flush=True)
        results["grids"][name] = {"runs": runs, "what": GRIDS[name].__doc__.splitlines()[0],
                                  "rows": table.round(3).to_dict("records")}
        if args.json:
            args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    print("\nEvery worker count gave the same table (bit for bit).")


if __name__ == "__main__":
    main()
