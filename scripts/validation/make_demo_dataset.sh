#!/usr/bin/env bash
# make_demo_dataset.sh - remakes datasets/demo-4gpu.h5, the bundled demo trace: a real
# recorded PyTorch DDP run (4 ranks, 2 loader workers each, rank 3's storage 3x slower),
# the slow-rank run of the validation grid. Without arguments it copies the committed
# grid trace; with --record it records the grid anew first (scripts/validation/validate_pytorch.sh).
# --synthetic writes the former synthetic demo (stallsim gen) to datasets/synthetic-4gpu.h5.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
case ${1:-} in
  --record) "$here/scripts/validation/validate_pytorch.sh" --record ;;
  --synthetic)
    "$here/build/stallsim" gen -o "$here/datasets/synthetic-4gpu.h5" --gpus 4 --iterations 400 --epochs 2 \
      --workers 3 --prefetch 2 --fetch-mean 1.0 --fetch-cv 0.25 --compute-mean 0.3 \
      --straggler-prob 0.03 --straggler-scale 4 --worker-gap 0.05 --seed 2021
    exit 0 ;;
  "") ;;
  *) echo "make_demo_dataset.sh: unknown option $1" >&2; exit 2 ;;
esac
cp "$here/datasets/pytorch-grid/w2-x1-p2-slow3.h5" "$here/datasets/demo-4gpu.h5"
