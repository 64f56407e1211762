#!/usr/bin/env bash
# Run from the repository root after scripts/setup.sh: datasets/pytorch-startup-o/record.sh [POINT...]
# The workload: 2 ranks, spawned workers that burn 60 ms at start, a dataset that holds an index of 150,000 file
# names (sent to every worker), batch 16, 2 ms storage, 25 ms step, 2 epochs x 120 batches.
# Its points: w0 (probed with spawn, two passes) w1 w2 w3 w2-pers w2-slow1 (rank 1's storage 3x slower).
exec "$(dirname "$0")/../../scripts/validation/record_startup.sh" datasets/pytorch-startup-o \
  "--ranks 2 --init-ms 60 --index-files 150000 --batch 16 --storage-ms 2 --step-ms 25 --epochs 2 --batches 120" \
  "${@:-w1 w2 w3 w2-pers w0 w2-slow1}"
