#!/usr/bin/env bash
# Run from the repository root after scripts/setup.sh: datasets/pytorch-startup-n/record.sh [POINT...]
# The workload: 2 ranks, spawned workers that burn 30 ms at start, a dataset that holds an index of 300,000 file
# names (sent to every worker), batch 12, 3 ms storage, 20 ms step, 3 epochs x 90 batches.
# Its points: w0 (probed with spawn, two passes) w1 w2 w3 w2-pers w2-slow1 (rank 1's storage 3x slower).
exec "$(dirname "$0")/../../scripts/validation/record_startup.sh" datasets/pytorch-startup-n \
  "--ranks 2 --init-ms 30 --index-files 300000 --batch 12 --storage-ms 3 --step-ms 20 --epochs 3 --batches 90" \
  "${@:-w1 w2 w3 w2-pers w0 w2-slow1}"
