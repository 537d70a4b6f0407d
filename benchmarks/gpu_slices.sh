#!/usr/bin/env bash
# One prepared run for a lent GPU machine (16 cores, one GPU; no internet): times the slices
# the `plan` projections lack and writes them under benchmarks/results/. About 8 minutes on an
# H100; run it once, with a timeout that leaves time to rerun:
#
#     bash benchmarks/gpu_slices.sh h100
#
# 1. chapter 2's Type I private SGD step of each paper network on the GPU (type1_steps.py;
#    `plan tvg --device cuda` adds it to Fig. 3's projection);
# 2. chapter 4's training step on the GPU: operator calls and launches per step
#    (spof_steps.py; why the chapter runs on the CPU);
# 3. the speed-up of chapters 3 and 5's grids on 1, 8 and 16 workers after each cell was
#    given only its own data set (scaling.py; `plan` reads every scaling-*.json).
#
# Each step has its own time limit and says when it starts, so a step that hangs costs its
# limit, not the lease: a try on 2026-11-27 hung before its first step (a `python` wrapper
# around the machine's python3; no output in 570 s) and spent the session's device time.
# PYTHON names the interpreter that holds torch (default: python3, as on the lent machines).
set -euo pipefail
cd "$(dirname "$0")/.."
tag="${1:-gpu}"
out=benchmarks/results
py="${PYTHON:-python3}"
export OMP_NUM_THREADS=1 PYTHONUNBUFFERED=1
step() {  # step SECONDS SCRIPT ARGS...: one timed slice, announced first
    local limit=$1; shift
    echo "[$(date +%T)] $* (limit ${limit} s)"
    timeout "$limit" "$py" "$@" || echo "[$(date +%T)] $1 ended with status $?"
}
"$py" -c "import torch; print('torch', torch.__version__, torch.cuda.get_device_name(0))"
step 180 benchmarks/type1_steps.py --device cuda --steps 20 --json "$out/type1-$tag.json"
step 120 benchmarks/spof_steps.py --device cuda --expand 20 --json "$out/spof-steps-$tag.json"
step 240 benchmarks/scaling.py --grids hiera-sgd pm-fedsgd --jobs 1 8 16 \
    --machine "16 cores, $tag (lent GPU machine)" --json "$out/scaling-16cores-$tag-own-data.json"
