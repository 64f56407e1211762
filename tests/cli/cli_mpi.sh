#!/usr/bin/env bash
# cli_mpi.sh - the same binary at several rank counts and slab sizes gives byte-identical
# summary.csv (independent and pipeline sweeps, traces of several statistics blocks with
# an epoch boundary inside a block; pipeline scenarios whole on a rank, with shared slabs,
# and split over the ranks by blocks of iterations), and identical per-iteration results.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
need_mpirun

# 2 epochs x 2600 rows = 5200 rows: three 2048-row blocks, the epoch boundary inside block 1
"$stallsim" gen -o "$work/t.h5" --gpus 3 --iterations 2600 --epochs 2 --workers 3 --prefetch 2 \
  --fetch-mean 0.9 --compute-mean 0.3 --straggler-prob 0.02 --seed 7 >/dev/null || fail "gen"

cat > "$work/ind.ini" <<INI
[trace]
path = t.h5
[scenarios]
model = independent
fetch_align = none, avg, min
start_align = none, avg, min
INI
cat > "$work/pipe.ini" <<INI
[trace]
path = t.h5
[scenarios]
model = pipeline
workers = auto, auto*2
prefetch = 1, 2
fetch_scale = 1, 0.5
[output]
per_iteration = true
INI

# independent: plain process, then 1..5 ranks, then slab sizes
"$stallsim" run --explain --verbose "$work/ind.ini" --out "$work/ind-plain" --quiet || fail "plain run"
for np in 1 2 3 4 5; do
  mpirun_t $np "$stallsim" run --explain --verbose "$work/ind.ini" --out "$work/ind-$np" --quiet || fail "independent np=$np exit status"
  same_file "$work/ind-plain/summary.csv" "$work/ind-$np/summary.csv" "independent np=$np"
done
for slab in 1 7 1000 100000; do
  mpirun_t 2 "$stallsim" run --explain --verbose "$work/ind.ini" --set run.slab_iterations=$slab --out "$work/ind-s$slab" --quiet ||
    fail "slab $slab exit status"
  same_file "$work/ind-plain/summary.csv" "$work/ind-s$slab/summary.csv" "independent slab=$slab"
done
# a single-epoch selection summarised with a slab smaller than a chunk equals the whole read
"$stallsim" run --explain --verbose "$work/ind.ini" --set trace.epoch=2 --out "$work/e2-a" --quiet || fail "epoch 2 run"
mpirun_t 3 "$stallsim" run --explain --verbose "$work/ind.ini" --set trace.epoch=2 --set run.slab_iterations=5 --out "$work/e2-b" --quiet ||
  fail "epoch 2 run np=3"
same_file "$work/e2-a/summary.csv" "$work/e2-b/summary.csv" "epoch 2 selection"

# pipeline (scenarios over ranks), with per-iteration output written in parallel
"$stallsim" run --explain --verbose "$work/pipe.ini" --out "$work/pipe-plain" --quiet || fail "pipeline plain run"
for np in 1 2 3 5; do
  mpirun_t $np "$stallsim" run --explain --verbose "$work/pipe.ini" --out "$work/pipe-$np" --quiet || fail "pipeline np=$np exit status"
  same_file "$work/pipe-plain/summary.csv" "$work/pipe-$np/summary.csv" "pipeline np=$np"
done
for slab in 3 100000; do
  mpirun_t 2 "$stallsim" run --explain --verbose "$work/pipe.ini" --set run.slab_iterations=$slab --out "$work/pipe-s$slab" --quiet ||
    fail "pipeline slab $slab"
  same_file "$work/pipe-plain/summary.csv" "$work/pipe-s$slab/summary.csv" "pipeline slab=$slab"
done
# the scenario file on standard input: under mpirun only rank 0 has it, and reads it for all
# (relative paths in a piped file: from the current folder)
(cd "$work" && mpirun_t 3 "$stallsim" run --explain --verbose /dev/stdin --out "$work/pipe-stdin" --quiet < "$work/pipe.ini") ||
  fail "pipeline np=3, the scenario file on stdin: exit status"
same_file "$work/pipe-plain/summary.csv" "$work/pipe-stdin/summary.csv" "pipeline np=3, the scenario file on stdin"
out=$(cd "$work" && printf '[trace]\npath = t.h5\n[scenarios]\nworkers = 2\nmodel = nothing\n' |
      mpirun_t 3 "$stallsim" run --explain --verbose /dev/stdin --out "$work/bad-stdin" 2>&1); rc=$?
[ $rc -ne 0 ] && [ "$(grep -c '^stallsim: /dev/stdin:5: ' <<<"$out")" = 1 ] && [ ! -e "$work/bad-stdin" ] && ok ||
  fail "a bad scenario file on stdin at np=3: rc $rc: $out"
# the ranks of a node read shared slabs, each its share (7-row slabs at 3 ranks: 2, 2 and
# 3 rows); the same as every rank reading every row (STALLSIM_NO_SHARED_READS=1)
mpirun_t 3 "$stallsim" run --explain --verbose "$work/pipe.ini" --set run.slab_iterations=7 --out "$work/pipe-sh7" --quiet ||
  fail "pipeline shared slabs of 7 rows, np=3"
same_file "$work/pipe-plain/summary.csv" "$work/pipe-sh7/summary.csv" "pipeline shared slabs of 7 rows, np=3"
mpirun_t 2 -x STALLSIM_NO_SHARED_READS=1 "$stallsim" run --explain --verbose "$work/pipe.ini" --out "$work/pipe-unshared" --quiet ||
  fail "pipeline without shared slabs, np=2"
same_file "$work/pipe-plain/summary.csv" "$work/pipe-unshared/summary.csv" "pipeline without shared slabs, np=2"
# whole scenarios on fewer ranks of the node (the others read more of each slab): chosen
# by itself or forced to 1, 2 or 3 of 3 ranks, the same summary
for q in auto 1 2 3; do
  mpirun_t 3 -x STALLSIM_REPLAYERS=$([ $q = auto ] && echo 0 || echo $q) "$stallsim" run --explain --verbose "$work/pipe.ini" \
    --out "$work/pipe-q$q" --quiet --timing 2> "$work/pipe-q$q.err" || fail "pipeline replayers $q, np=3"
  same_file "$work/pipe-plain/summary.csv" "$work/pipe-q$q/summary.csv" "pipeline on $q replaying ranks of 3"
done
grep -q "whole scenarios on the first 1 of the 3 ranks" "$work/pipe-q1.err" && ok ||
  fail "replayers 1: --timing does not say so: $(grep stateful "$work/pipe-q1.err")"
# nodes of different sizes (STALLSIM_TEST_NODE_RANKS=2 at 3 ranks: a node of 2 ranks that
# share slabs and a node of one that reads alone; at 5 ranks: 2 + 2 + 1): the same summary,
# no hang
for np in 3 5; do
  mpirun_t $np -x STALLSIM_TEST_NODE_RANKS=2 "$stallsim" run --explain --verbose "$work/pipe.ini" --out "$work/pipe-nodes$np" --quiet \
    --timing 2> "$work/pipe-nodes$np.err" || fail "pipeline on uneven nodes, np=$np: $(tail -3 "$work/pipe-nodes$np.err")"
  grep -q "waiting for the node's other ranks" "$work/pipe-nodes$np.err" && ok ||
    fail "uneven nodes np=$np: no rank shared slabs"
  same_file "$work/pipe-plain/summary.csv" "$work/pipe-nodes$np/summary.csv" "pipeline on uneven nodes, np=$np"
done
# the calibration does not depend on the slab memory either
"$stallsim" run --explain --verbose "$work/pipe.ini" --set run.slab_mb=0.05 --out "$work/pipe-mb" --quiet || fail "pipeline slab_mb"
same_file "$work/pipe-plain/summary.csv" "$work/pipe-mb/summary.csv" "pipeline slab_mb=0.05"
if command -v h5diff >/dev/null; then
  if h5diff -q "$work/pipe-plain/results.h5" "$work/pipe-3/results.h5" /scenarios /scenarios; then ok
  else fail "per-iteration series differ between 1 and 3 ranks"; fi
fi
# a pipeline scenario split over the ranks by blocks of iterations (its epochs are
# independent: each rank replays from the start of the epoch holding its first block): 12
# epochs of 700 rows = 5 blocks, epoch starts inside blocks; healed scenarios, per-iteration
# output, a slab smaller than a block; forced at 2..5 ranks, and chosen by itself for one
# scenario at 3 ranks (fewer rows replayed than whole scenarios)
"$stallsim" gen -o "$work/ep.h5" --gpus 5 --iterations 700 --epochs 12 --workers 3 --prefetch 2 --fetch-mean 0.9 \
  --compute-mean 0.3 --straggler-prob 0.02 --delivery 0.001 --seed 7 >/dev/null || fail "gen ep"
printf '[trace]\npath = ep.h5\n[scenarios]\nmodel = pipeline\nworkers = auto, auto*2\nheal = none, 2\n[output]\nper_iteration = true\n' \
  > "$work/ep.ini"
"$stallsim" run --explain --verbose "$work/ep.ini" --out "$work/ep-plain" --quiet || fail "ep plain"
"$stallsim" run --explain --verbose "$work/ep.ini" --set run.slab_iterations=300 --out "$work/ep-plain-s" --quiet || fail "ep plain slab 300"
for np in 2 3 5; do
  mpirun_t $np -x STALLSIM_STATEFUL_SPLIT=time "$stallsim" run --explain --verbose "$work/ep.ini" --out "$work/ep-$np" --quiet --timing \
    2> "$work/ep-$np.err" || fail "ep np=$np: $(cat "$work/ep-$np.err")"
  grep -q "split over the ranks by blocks of iterations" "$work/ep-$np.err" && ok || fail "ep np=$np: not split by blocks"
  same_file "$work/ep-plain/summary.csv" "$work/ep-$np/summary.csv" "pipeline split by blocks, np=$np"
  mpirun_t $np -x STALLSIM_STATEFUL_SPLIT=time "$stallsim" run --explain --verbose "$work/ep.ini" --set run.slab_iterations=300 \
    --out "$work/ep-s$np" --quiet || fail "ep slab 300 np=$np"
  same_file "$work/ep-plain-s/summary.csv" "$work/ep-s$np/summary.csv" "pipeline split by blocks, slab 300, np=$np"
  if command -v h5diff >/dev/null; then
    if h5diff -q "$work/ep-plain/results.h5" "$work/ep-$np/results.h5" /scenarios /scenarios; then ok
    else fail "per-iteration series of the split pipeline differ, np=$np"; fi
  fi
done
printf '[trace]\npath = ep.h5\n[scenarios]\nmodel = pipeline\n' > "$work/ep1.ini"
"$stallsim" run --explain --verbose "$work/ep1.ini" --out "$work/ep1-plain" --quiet || fail "ep1 plain"
mpirun_t 3 "$stallsim" run --explain --verbose "$work/ep1.ini" --out "$work/ep1-3" --quiet --timing 2> "$work/ep1-3.err" || fail "ep1 np=3"
grep -q "split over the ranks by blocks of iterations" "$work/ep1-3.err" && ok || fail "ep1: one scenario not split: $(cat "$work/ep1-3.err")"
same_file "$work/ep1-plain/summary.csv" "$work/ep1-3/summary.csv" "one pipeline scenario split by blocks, np=3"
# the calibration is split over the ranks in blocks of 64 GPUs: a trace of 150 GPUs with
# GPUs of their own worker counts and a slow one gives the same calibration (printed) and
# the same summary at 1, 2 and 3 ranks
"$stallsim" gen -o "$work/wide.h5" --gpus 150 --iterations 300 --workers 2 --workers-gpu 70:1 --workers-gpu 140:4 \
  --slow-gpu 100:3 --delivery 0.002 --seed 9 >/dev/null || fail "gen wide"
# wide_ranks NAME WHAT: NAME.ini's plain run, then 2 and 3 ranks: the same calibration lines
# (without their time) and the same summary
wide_ranks() {
  local name=$1 what=$2 np
  "$stallsim" run --explain --verbose "$work/$name.ini" --out "$work/$name-plain" > "$work/$name-plain.txt" || fail "$name plain"
  grep "^calibration:" "$work/$name-plain.txt" | sed 's/(took [0-9.]* s)//' > "$work/$name-plain.cal"
  for np in 2 3; do
    mpirun_t $np "$stallsim" run --explain --verbose "$work/$name.ini" --out "$work/$name-$np" > "$work/$name-$np.txt" || fail "$name np=$np"
    grep "^calibration:" "$work/$name-$np.txt" | sed 's/(took [0-9.]* s)//' > "$work/$name-$np.cal"
    same_file "$work/$name-plain.cal" "$work/$name-$np.cal" "calibration of $what, np=$np"
    same_file "$work/$name-plain/summary.csv" "$work/$name-$np/summary.csv" "pipeline on $what, np=$np"
  done
}
printf '[trace]\npath = wide.h5\n[scenarios]\nmodel = pipeline\nworkers = auto, auto*2\nfetch_scale = 1, 0.5\n' > "$work/wide.ini"
wide_ranks wide "150 GPUs"
grep -q "W=1" "$work/wide-plain.cal" && grep -q "W=4" "$work/wide-plain.cal" && ok || fail "wide: calibration misses the per-GPU W: $(cat "$work/wide-plain.cal")"
# the same wide trace with CPU datasets (two pools of 75 GPUs on 16 cores each, the waits
# for a core and the first window's): CPU sharing's stretch, the start-up crush and the
# training processes' alignment, which the calibration gathers
# from its GPUs on every rank, give the same calibration lines and summary at any rank count
/usr/bin/python3 - "$work" <<'PY' || fail "wide: CPU datasets"
import shutil, sys, h5py, numpy as np
w = sys.argv[1]
shutil.copy(w + "/wide.h5", w + "/wide-cpu.h5")
with h5py.File(w + "/wide-cpu.h5", "r+") as f:
    g = 150
    f["fetch_cpu_time"] = np.full(g, 0.12)
    f["loop_cpu_time"] = np.full(g, 0.05)
    f["cpu_pool"] = np.array([0] * 75 + [75] * 75, dtype=np.int32)
    f["cpu_pool_cores"] = np.full(g, 16, dtype=np.int32)
    # the waits for a core, and the first window's (recorder format 3): every rank applies
    # the start-up crush to the same rows alike
    f["fetch_wait_time"] = np.full(g, 0.01)
    f["loop_wait_time"] = np.full(g, 0.005)
    f["fetch_wait_start_time"] = np.where(np.arange(g) % 2 == 0, 0.05, 0.08)
PY
printf '[trace]\npath = wide-cpu.h5\n[scenarios]\nmodel = pipeline\nworkers = auto, auto*2, 0\nfetch_scale = 1, 0.5\n' > "$work/widec.ini"
wide_ranks widec "150 GPUs with CPU sharing"
grep -q "started their steps together" "$work/widec-plain.cal" && ok || fail "wide cpu: no alignment line: $(cat "$work/widec-plain.cal")"
# storage sharing on the same trace (the trace's period and step, which the calibration
# gathers from every rank's GPUs, and a healed GPU's reads): the same at 1, 2 and 3 ranks;
# the baseline's reads keep their times, twice the workers read slower, synchronous faster
printf '[trace]\npath = wide-cpu.h5\n[scenarios]\nmodel = pipeline\nworkers = auto, auto*2, 0\nheal = none, 100\n[pipeline]\nstorage_parallel = 4\n' > "$work/wides.ini"
wide_ranks wides "150 GPUs with storage sharing"
/usr/bin/python3 - "$work/wides-plain/summary.csv" <<'PY' && ok || fail "wide storage sharing: read_stretch"
import csv, sys
r = {x["label"].replace("pipe f=none s=none ", "").replace(" P=2", "").replace(" P=-", "").replace(" fs=1 cs=1", ""):
     float(x["read_stretch"]) for x in csv.DictReader(open(sys.argv[1])) if x["read_stretch"]}
assert len(r) == 6 and r["W=1-4"] == 1.0, r
assert r["W=2-8"] > 1.0 and r["W=0"] < 1.0 and r["W=1-4 heal=100"] > 1.0, r
PY
# a small real trace (4 GPUs: one block of GPUs, so rank 0 of 2 or 3 fits none and fits
# nothing) with the loader's slow start-up: every note and line run prints is the same at 1,
# 2 and 3 ranks (rank 0 read no epochs and printed a start-up over "6 epochs" of 2)
bb=$src/datasets/pytorch-bigbatch/base.h5
if [ -e "$bb" ]; then
  printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, auto*2\n' "$bb" > "$work/bb.ini"
  "$stallsim" run --explain --verbose "$work/bb.ini" --out "$work/bb-1" 2>&1 | sed 's/(took [0-9.]* s)//; /^wrote /d' > "$work/bb-1.txt"
  grep -q "each epoch's first batch came" "$work/bb-1.txt" && ok || fail "bigbatch: no start-up note: $(cat "$work/bb-1.txt")"
  for np in 2 3; do
    mpirun_t $np "$stallsim" run --explain --verbose "$work/bb.ini" --out "$work/bb-$np" 2>&1 | sed 's/(took [0-9.]* s)//; /^wrote /d' > "$work/bb-$np.txt"
    same_file "$work/bb-1.txt" "$work/bb-$np.txt" "run's output on a 4-GPU real trace, np=$np"
  done
fi
# --progress under mpirun (the ranks' stderr is a pipe): a line per tenth of rank 0's replay,
# rising, the last at 100 %; none without it (its sweep: 3 blocks of 2048 rows)
prog_ok() { # FILE: 1 to 10 progress lines, rising tenths, the last at 100 %
  local pcts
  pcts=$(sed -n "s/^stallsim: \([0-9]*\)% of rank 0's share of the replay (at the trace's block [0-9]* of [0-9]*); [0-9.]* m\{0,1\}s\( so far, about [0-9.]* m\{0,1\}s left\)\{0,1\}$/\1/p" "$1" | tr '\n' ' ')
  [ -n "$pcts" ] && [ "$(echo $pcts | wc -w)" -le 10 ] && [ "$(echo $pcts | tr ' ' '\n' | tail -1)" = 100 ] &&
    [ "$(echo $pcts | tr ' ' '\n' | sort -n | tr '\n' ' ')" = "$(echo $pcts | tr ' ' '\n' | tr '\n' ' ')" ] &&
    ! echo $pcts | tr ' ' '\n' | grep -qv '0$'
}
mpirun_t 2 "$stallsim" run --explain --verbose "$work/ind.ini" --out "$work/prog" --progress > /dev/null 2> "$work/prog.err" || fail "--progress"
prog_ok "$work/prog.err" && ok || fail "--progress lines: $(cat "$work/prog.err")"
mpirun_t 2 "$stallsim" run --explain --verbose "$work/ind.ini" --out "$work/prog" > /dev/null 2> "$work/prog.err"
! grep -q "rank 0's share of the replay" "$work/prog.err" && ok || fail "progress without --progress on a pipe: $(cat "$work/prog.err")"
# a trace of one block (at most 2048 rows) swept over many scenarios shows progress too
"$stallsim" gen -o "$work/short.h5" --gpus 4 --iterations 300 --workers 2 --seed 5 > /dev/null
printf '[trace]\npath = short.h5\n[scenarios]\nmodel = pipeline\nworkers = 1, 2, 3, 4, 5, 6\nfetch_scale = 0.25, 0.5, 0.75, 1, 1.5, 2\n' > "$work/short.ini"
mpirun_t 2 "$stallsim" run --explain --verbose "$work/short.ini" --out "$work/prog1" --progress > /dev/null 2> "$work/prog1.err" || fail "--progress, one block"
prog_ok "$work/prog1.err" && [ "$(grep -c "rank 0's share of the replay" "$work/prog1.err")" -ge 5 ] && ok ||
  fail "--progress on a one-block sweep: $(cat "$work/prog1.err")"
# determinism: the same run twice
"$stallsim" run --explain --verbose "$work/ind.ini" --out "$work/ind-again" --quiet
same_file "$work/ind-plain/summary.csv" "$work/ind-again/summary.csv" "repeat run"
# the summary has the measured row and the nine scenarios
rows=$(($(wc -l < "$work/ind-plain/summary.csv") - 1))
[ "$rows" -eq 10 ] && ok || fail "expected 10 summary rows, got $rows"
finish
