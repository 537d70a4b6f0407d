"""Why chapter 4's time-per-epoch cell is slower on a GPU than on one CPU core: what one
training step of each timed method costs, in operator calls and in time.

Alg. 1 trains with batch size 1 (one record per user per step), so an epoch is as many steps
as the table has rows, and each step is a few dozen operator calls on tensors of a few
hundred numbers. This script trains one epoch of each method of the timing cell
(``cost_claims.TIMED``) on the chapter's table (Fitbit, expanded ``--expand`` times) under
``torch.profiler``, and prints the steps, the operator calls per step (``aten::`` calls; on a
GPU also the kernel launches) and the time per call. When the time per call is what one
operator call costs however small its tensors, the device is bound by calls, not arithmetic,
and a GPU's launch cost per call exceeds a CPU core's.

Usage::

    python benchmarks/spof_steps.py                       # this machine's CPU, one thread
    python benchmarks/spof_steps.py --device cuda --json benchmarks/results/spof-steps-h100.json
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

from ldp_companion.execution.runner import machine
from ldp_companion.neural.device import one_thread, torch_device
from ldp_companion.spof import experiments as ex
from ldp_companion.spof.cost_claims import TIMED
from ldp_companion.spof.train import Setup, _layout, train


def _profiled(method: str, x_train, x_test, device: str | None) -> tuple[int, int, float]:
    """(aten calls, kernel launches, seconds per epoch) of one epoch under the profiler."""
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU]
    if torch_device(device).type == "cuda":
        activities.append(ProfilerActivity.CUDA)
    with one_thread(), profile(activities=activities) as prof:
        out = train(method, x_train, x_test, [1.0], setup=Setup(),
                    rng=np.random.default_rng(0), device=device)
    events = prof.key_averages()
    aten = sum(e.count for e in events if e.key.startswith("aten::"))
    launches = sum(e.count for e in events if e.key in ("cudaLaunchKernel", "cuLaunchKernel"))
    return aten, launches, out["seconds_per_epoch"]


def profile_epoch(method: str, x_train, x_test, device: str | None) -> dict:
    """Operator calls and time per training step of ``method``: the difference between an
    epoch on the whole table and one on its first half (the test pass and the set-up cancel),
    and the epoch's time without the profiler."""
    _, decoder, *_ = _layout(method, Setup())
    feeds = 1 if decoder == "concat" else Setup().users
    half = x_train[: len(x_train) // 2]
    a_half, k_half, _ = _profiled(method, half, x_test, device)
    a_full, k_full, _ = _profiled(method, x_train, x_test, device)
    with one_thread():
        start = time.perf_counter()
        out = train(method, x_train, x_test, [1.0], setup=Setup(),
                    rng=np.random.default_rng(0), device=device)
        wall = time.perf_counter() - start
    steps = len(x_train) // feeds
    extra_steps = steps - len(half) // feeds
    calls = (a_full - a_half) / extra_steps
    per_step = out["seconds_per_epoch"] / steps
    return {"method": method, "steps": steps, "calls_per_step": calls,
            "launches_per_step": (k_full - k_half) / extra_steps,
            "seconds_per_epoch": out["seconds_per_epoch"], "seconds_with_test": wall,
            "microseconds_per_step": 1e6 * per_step,
            "microseconds_per_call": 1e6 * per_step / calls}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cpu", help="torch device (cpu or cuda)")
    parser.add_argument("--expand", type=int, default=1,
                        help="expansion of the Fitbit table (the chapter: 20, paper 80)")
    parser.add_argument("--json", help="write the table here")
    args = parser.parse_args()
    x_train, x_test = ex.prepare("fitbit", args.expand, 0)
    rows = [profile_epoch(m, x_train, x_test, args.device) for m in TIMED]
    for r in rows:
        print(f"{r['method']:>14}: {r['steps']:,} steps of {r['microseconds_per_step']:.0f} µs, "
              f"{r['calls_per_step']:.0f} aten calls a step ({r['microseconds_per_call']:.1f} "
              f"µs a call), {r['seconds_per_epoch']:.2f} s an epoch"
              + (f", {r['launches_per_step']:.0f} kernel launches a step"
                 if r["launches_per_step"] else ""))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"machine": machine(), "device": str(torch_device(args.device)),
                       "expand": args.expand, "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
