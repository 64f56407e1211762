#!/usr/bin/env bash
# cli_recompute.sh - every column of summary.csv, recomputed independently of the C code
# from the definitions in sim/models/MODELS-independent.md (tests/lib/recompute_independent.py,
# plain Python over the trace read with h5py), agrees to 1e-9: a generated trace of
# 3 GPUs x 60 iterations x 2 epochs, the independent model with every fetch and start
# align, with the default settings and with other epoch, warm-up, threshold, floor and
# sensitivity values, healing each GPU and two GPUs together; and a 1-GPU trace.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3
$py -c "import h5py" 2>/dev/null || { echo "skipped: /usr/bin/python3 lacks h5py"; exit 77; }
cd "$work" || exit 1
"$stallsim" gen -o t.h5 --gpus 3 --iterations 60 --epochs 2 --seed 11 --straggler-prob 0.2 >/dev/null || fail "gen"
"$stallsim" gen -o one.h5 --gpus 1 --iterations 40 --seed 3 >/dev/null || fail "gen 1 GPU"
printf '[trace]\npath = t.h5\n[scenarios]\nfetch_align = none, min, avg, median, max\nstart_align = none, min, avg, mean\n' > all.ini
"$stallsim" run all.ini --out r1 --quiet || fail "run defaults"
$py "$src/tests/lib/recompute_independent.py" t.h5 r1/summary.csv && ok || fail "defaults"
"$stallsim" run all.ini --set trace.epoch=2 --set trace.warmup_iterations=5 --set summary.effective_delay_threshold=0.05 \
  --set independent.stall_floor=0.001 --set independent.stall_sensitivity=0.2 --out r2 --quiet || fail "run settings"
$py "$src/tests/lib/recompute_independent.py" t.h5 r2/summary.csv epoch=2 warmup=5 threshold=0.05 floor=0.001 sensitivity=0.2 &&
  ok || fail "other settings"
# healing each GPU, with every align
"$stallsim" run all.ini --set scenarios.heal=none,each --out r4 --quiet || fail "run heal"
$py "$src/tests/lib/recompute_independent.py" t.h5 r4/summary.csv && ok || fail "heal"
# GPUs healed together (each takes the median of the GPUs not healed), with every align
"$stallsim" run all.ini --set scenarios.heal=0+2,1-2 --out r5 --quiet || fail "run heal sets"
$py "$src/tests/lib/recompute_independent.py" t.h5 r5/summary.csv && ok || fail "heal sets"
printf '[trace]\npath = one.h5\n[scenarios]\nfetch_align = none, min\nstart_align = none, avg\n' > one.ini
"$stallsim" run one.ini --out r3 --quiet || fail "run 1 GPU"
$py "$src/tests/lib/recompute_independent.py" one.h5 r3/summary.csv && ok || fail "1 GPU"
# the check can fail: a changed number is found
sed -i '3s/^\([^,]*,[^,]*,[^,]*,[^,]*,[^,]*,\)[0-9.]*/\10.123/' r1/summary.csv
$py "$src/tests/lib/recompute_independent.py" t.h5 r1/summary.csv >/dev/null && fail "a changed iter_time_mean went unnoticed" || ok
finish
