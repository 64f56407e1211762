#!/usr/bin/env bash
# make_demo_dataset.sh - regenerates datasets/demo-4gpu.h5, the bundled synthetic trace
# (4 GPUs, 2 epochs of 400 iterations, 3 workers per GPU, occasional stragglers).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/build/stallsim" gen -o "$here/datasets/demo-4gpu.h5" --gpus 4 --iterations 400 --epochs 2 \
  --workers 3 --prefetch 2 --fetch-mean 1.0 --fetch-cv 0.25 --compute-mean 0.3 \
  --straggler-prob 0.03 --straggler-scale 4 --worker-gap 0.05 --seed 2021
