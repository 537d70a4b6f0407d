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
set -euo pipefail
cd "$(dirname "$0")/.."
tag="${1:-gpu}"
out=benchmarks/results
export OMP_NUM_THREADS=1
python benchmarks/type1_steps.py --device cuda --steps 20 --json "$out/type1-$tag.json"
python benchmarks/spof_steps.py --device cuda --expand 20 --json "$out/spof-steps-$tag.json"
python benchmarks/scaling.py --grids hiera-sgd pm-fedsgd --jobs 1 8 16 \
    --machine "16 cores, $tag (lent GPU machine)" --json "$out/scaling-16cores-$tag-own-data.json"
