#!/usr/bin/env bash
# Run from the repository root after scripts/setup.sh: datasets/pytorch-startup-k/record.sh [POINT...]
# The workload: 2 ranks, spawned workers that burn 50 ms each at start, a dataset that holds an index of 1,000,000
# file names (sent to every worker), batch 8, 4 ms storage, 15 ms step, 3 epochs x 100 batches.
# Its points: w0 (probed with spawn, two passes) w1 w2 w3 w2-pers.
exec "$(dirname "$0")/../../scripts/validation/record_startup.sh" datasets/pytorch-startup-k \
  "--ranks 2 --init-ms 50 --index-files 1000000 --batch 8 --storage-ms 4 --step-ms 15 --epochs 3 --batches 100" \
  "${@:-w1 w2 w3 w2-pers w0}"
