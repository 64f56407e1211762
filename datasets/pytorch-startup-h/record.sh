#!/usr/bin/env bash
# Run from the repository root after scripts/setup.sh: datasets/pytorch-startup-h/record.sh [POINT...]
# The workload: 2 ranks, spawned workers with no worker_init_fn, batch 8, 4 ms storage, 15 ms step,
# 2 epochs x 100 batches. Its points: w0 (probed with spawn) w1 w2 w3 w2-pers.
exec "$(dirname "$0")/../../scripts/validation/record_startup.sh" datasets/pytorch-startup-h \
  "--ranks 2 --init-ms 0 --batch 8 --storage-ms 4 --step-ms 15 --epochs 2 --batches 100" "${@:-w1 w2 w3 w2-pers w0}"
