#!/usr/bin/env bash
# record.sh - records the held-out runs of datasets/pytorch-startup-d: scripts/validation/record_startup.sh with this set's workload.
# Run from the repository root after scripts/setup.sh: datasets/pytorch-startup-d/record.sh [POINT...]
# The workload: one rank, spawned workers that burn 200 ms each at start, batch 10, 3 ms storage, 18 ms step,
# 3 epochs x 80 batches. Its points (no slow rank with one rank): w1 w2 w3 w2-pers w0 w2-long.
exec "$(dirname "$0")/../../scripts/validation/record_startup.sh" datasets/pytorch-startup-d \
  "--ranks 1 --init-ms 200 --batch 10 --storage-ms 3 --step-ms 18 --epochs 3 --batches 80" "${@:-w1 w2 w3 w2-pers w0 w2-long}"
