#!/usr/bin/env bash
# real_runs_users.sh - the models against the committed real runs of new users' questions
# (datasets/pytorch-twofaults, -twoslow, -accum, -breakloop, -fixfirst, -ahead, -disk,
# -spread, -fft, -files): which rank to fix first and what the fixes buy, faults together,
# ranks that do not step together, a loop that leaves its epochs early, storage sharing on a
# real disk, compare --spread and --match.
. "$(dirname "$0")/../lib/lib_real_runs.sh" "$@"
# two faults (datasets/pytorch-twofaults): from the base run, the pipeline model ranks rank 1
# (slow storage) before rank 3 (a CPU-heavy loader, which no stall shows), and predicts each
# fixed run within 7 % of its first recording (storage +6.3, CPU +3.2 %; the recordings of
# each differ by up to 1.7 %); run names the CPU-heavy loader; both fixed together
# (heal = 1+3) within 10 % of the first real run without either fault (+5.1 %; the two real
# runs without them differ by 9 %)
tf=$ds/pytorch-twofaults
printf '[trace]\npath = %s\nwarmup_iterations = 10\n[scenarios]\nmodel = pipeline\nheal = none, each, 1+3\n' "$tf/base.h5" > "$work/tf.ini"
"$stallsim" run --explain --verbose "$work/tf.ini" --out "$work/tf" --json > "$work/tf.json" 2>/dev/null || fail "twofaults: run"
"$stallsim" run --explain --verbose "$work/tf.ini" --out "$work/tf" > "$work/tf.txt" 2>&1 || fail "twofaults: run"
/usr/bin/python3 -c "
import json; h = [x for x in json.load(open('$work/tf.json'))['ranking']['heal'] if x['ranked']]
assert [x['gpu'] for x in h] == [1, 3], h
# each ranked cut's flags as the terminal marks them: optimistic above 100 %, likely above 85 %
# where the row is of the class 'near saturation' (no synchronous class before it)
d = json.load(open('$work/tf.json')); top = d['ranking']['top']
cls = {r['scenario']: r['error_class'] for r in d['scenarios']}
assert top and all(x['optimistic'] == (x['cpu_load_pct'] > 100) and
                   x['likely_optimistic'] == (85 < x['cpu_load_pct'] <= 100 and cls[x['scenario']] == 'near saturation')
                   for x in top), top
# the lines under the table that name GPUs, in the JSON too
fd = json.load(open('$work/tf.json'))['findings']
assert fd['slowest_loader_gpu'] == 1 and fd['cpu_heavy_gpu'] == 3 and fd['slow_loaders'] == [1, 3], fd" && grep -q "^CPU-heavy loader (recorded): GPU 3's" "$work/tf.txt" && ok ||
  fail "twofaults: ranking or CPU-heavy line: $(tail -5 "$work/tf.txt")"
for pt in "stofix heal-1" "cpufix heal-3"; do
  set -- $pt
  "$stallsim" compare "$tf/$1.h5" "$work/tf" --warmup 10 --csv "$work/tf-$1.csv" >/dev/null || fail "twofaults: compare $1"
  expect_within "$work/tf-$1.csv" "pipeline_.*_$2" "$work/tf-$1.csv" 7 "two faults: $2 against $1" && ok || fail "twofaults: $2"
done
"$stallsim" compare "$tf/healthy.h5" "$work/tf" --warmup 10 --csv "$work/tf-healthy.csv" >/dev/null || fail "twofaults: compare healthy"
grep -q "^slow loaders (calibration): GPUs 1 and 3 take .* heal = 1+3 replays them fixed together (in this sweep)$" "$work/tf.txt" &&
  ok || fail "twofaults: the slow loaders line: $(grep '^slow' "$work/tf.txt")"
# two slow ranks (datasets/pytorch-twoslow), from the first slow13 run: each fix and both
# together within 3 % of the first real run of each (pipeline: -1.2, -0.3, -1.5 %); the
# independent model takes fixing rank 1 alone for fixing both (-47 %)
ts=$ds/pytorch-twoslow
printf '[trace]\npath = %s\nwarmup_iterations = 10\n[scenarios]\nmodel = independent, pipeline\nheal = none, 1, 3, 1+3\n' \
  "$ts/slow13.h5" > "$work/ts.ini"
"$stallsim" run --explain --verbose "$work/ts.ini" --out "$work/ts" --quiet || fail "twoslow: run"
for pt in "slow3 heal-1" "slow1 heal-3" "healthy heal-1\\+3"; do
  set -- $pt
  "$stallsim" compare "$ts/$1.h5" "$work/ts" --warmup 10 --csv "$work/ts-$1.csv" >/dev/null || fail "twoslow: compare $1"
  expect_within "$work/ts-$1.csv" "pipeline_.*_$2" "$work/ts-$1.csv" 3 "two slow ranks: pipeline $2 against $1" && ok ||
    fail "twoslow: $2"
done
expect_within "$work/ts-slow3.csv" "independent_.*_heal-1" "$work/ts-slow3.csv" 60 "two slow ranks: independent heal-1 against slow3" &&
  ! expect_within "$work/ts-slow3.csv" "independent_.*_heal-1" "$work/ts-slow3.csv" 30 "(more than 30 % off)" && ok ||
  fail "twoslow: the independent model's heal-1"
expect_within "$work/tf-healthy.csv" 'pipeline_.*_heal-1\+3' "$work/tf-healthy.csv" 10 "two faults: heal-1+3 against healthy" &&
  ok || fail "twofaults: both healed together"
# ranks that all-reduce only every 4 steps (datasets/pytorch-accum): run's note on the
# traces whose ranks drift apart (a slow rank), none on the balanced ones or on grid F's base
# (with the pipeline model from the calibration, with the independent one without it)
for t in pytorch-accum/slow:1:pipeline pytorch-accum/w4:1:pipeline pytorch-accum/healthy:0:pipeline \
         pytorch-accum/healthy-w4:0:pipeline pytorch-grid-f/w2-x1-p2:0:pipeline pytorch-accum/slow:1:independent \
         pytorch-accum/healthy:0:independent pytorch-grid-f/w2-x1-p2:0:independent; do
  IFS=: read -r f want model <<<"$t"
  [ -e "$ds/$f.h5" ] || { fail "missing $f.h5"; continue; }
  printf '[trace]\npath = %s\n[scenarios]\nmodel = %s\n' "$ds/$f.h5" "$model" > "$work/lock.ini"
  "$stallsim" run --explain --verbose "$work/lock.ini" --out "$work/lock" > "$work/lock.txt" 2>&1 || { fail "run $f (lockstep)"; continue; }
  n=$(grep -c "^note: the GPUs' loops ask for their batches .* the ranks do not step together" "$work/lock.txt")
  w=$(grep -c "^warning: the ranks do not step together" "$work/lock.txt")
  [ "$n" = "$want" ] && [ "$w" = "$want" ] && ok || fail "not-lockstep note on $f ($model): $n and $w warnings, want $want"
done

# the accumulation's period, read off the asks (ss_calib.ask_phase_ratio): a note names it
# where sync_every is not given (the balanced trace too, whose ranks hardly drift); a warning
# where sync_every is given at another period (naming the trace's) or on a loop that
# all-reduces every step (grid F's base); none where it is right
phase() { # phase TRACE SYNC_EVERY PATTERN WANT
  printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\n[pipeline]\nsync_every = %s\n' "$1" "$2" > "$work/ph.ini"
  "$stallsim" run --explain "$work/ph.ini" --out "$work/ph" > "$work/ph.txt" 2>&1 || { fail "run $1 (sync_every $2)"; return; }
  [ "$(grep -c "$3" "$work/ph.txt")" = "$4" ] && ok || fail "sync_every $2 on $1: '$3' $4 times wanted: $(grep sync_every "$work/ph.txt")"
}
phase "$ds/pytorch-accum/healthy.h5" 1 "^note: the GPUs' loops ask together after every 4th step .* sync_every = 4 replays it" 1
phase "$ds/pytorch-accum/healthy.h5" 4 "sync_every = 4, but" 0
phase "$ds/pytorch-accum/slow.h5" 4 "sync_every = 4, but" 0
phase "$ds/pytorch-accum/slow.h5" 3 "^warning: \[pipeline\] sync_every = 3, but .* come together after every 4th step" 1
phase "$ds/pytorch-grid-f/w2-x1-p2.h5" 1 "ask together after every" 0
phase "$ds/pytorch-grid-f/w2-x1-p2.h5" 2 "^warning: \[pipeline\] sync_every = 2, but .* looks synchronised every step" 1

# with [pipeline] sync_every = 4 the pipeline model replays that job: from the slow trace,
# rank 1 healed, 4 workers and both within 5 % (+3.7, -1.1, -0.1 %; +215, +65, +298 % with
# every step synchronised), the baseline within 1 %
ac=$ds/pytorch-accum
printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 4\nheal = none, 1\n[pipeline]\nsync_every = 4\n' \
  "$ac/slow.h5" > "$work/acc.ini"
if "$stallsim" run --explain --verbose "$work/acc.ini" --out "$work/acc" > "$work/acc.txt" 2>&1; then
  grep -q "^note: the GPUs' loops ask" "$work/acc.txt" && fail "sync_every set, the note still printed" || ok
  for pt in "slow _w-auto_p2_fs1_cs1 1" "healthy _w-auto_p2_fs1_cs1_heal-1 5" "w4 _w-4_p2_fs1_cs1 5" \
            "healthy-w4 _w-4_p2_fs1_cs1_heal-1 5"; do
    set -- $pt
    "$stallsim" compare "$ac/$1.h5" "$work/acc" --csv "$work/acc-$1.csv" >/dev/null 2>&1 || { fail "accum: compare $1"; continue; }
    expect_within "$work/acc-$1.csv" "pipeline_fetch-none_start-none$2" "$work/acc-$1.csv" "$3" \
      "accum, sync_every = 4: $2 against $1" && ok || fail "accum, sync_every = 4: $2 against $1"
  done
else
  fail "accum: run with sync_every = 4: $(tail -3 "$work/acc.txt")"
fi

# a loop that leaves every epoch early (datasets/pytorch-breakloop, recorded after the models):
# from each 2-worker base, 4 workers within 5 % (-3.4, -3.3 %), rank 1 healed within 2 %
# by both models (-0.9, -0.5 %; independent -0.1, +0.2 %), both within 6 % (-0.3, -4.7 %)
bl=$ds/pytorch-breakloop
for b in base base-rep; do
  printf '[trace]\npath = %s\n[scenarios]\nmodel = independent, pipeline\nworkers = auto, 4\nheal = none, 1\n' \
    "$bl/$b.h5" > "$work/bl-$b.ini"
  "$stallsim" run --explain --verbose "$work/bl-$b.ini" --out "$work/bl-$b" --quiet 2>/dev/null || { fail "breakloop: run from $b"; continue; }
  for pt in "w4 pipeline_.*_w-4_p2_fs1_cs1 5" "healthy pipeline_.*_w-auto_p2_fs1_cs1_heal-1 2" \
            "healthy independent_.*_heal-1 2" "healthy-w4 pipeline_.*_w-4_p2_fs1_cs1_heal-1 6"; do
    set -- $pt
    "$stallsim" compare "$bl/$1.h5" "$work/bl-$b" --csv "$work/bl-$b-$1.csv" >/dev/null 2>&1 ||
      { fail "breakloop: compare $1"; continue; }
    expect_within "$work/bl-$b-$1.csv" "$2" "$work/bl-$b-$1.csv" "$3" "breakloop from $b: $2 against $1" && ok ||
      fail "breakloop from $b: $2 against $1"
  done
done
# "which rank to fix first" on a new user's job (datasets/pytorch-fixfirst, recorded after the
# model): from each of three runs of the base (rank 2's storage 2.5x slower, 1 worker) the
# ranking names rank 2 alone, rank 2 fixed and 2 workers within 5 % of the mean of their real
# runs (both models for the fix), and 4 workers and the fix with 2 workers within 15 % (the
# loaders then keep ahead: the known optimistic case; their real runs spread 15 %)
ff=$ds/pytorch-fixfirst
if [ -e "$ff/base-a.h5" ]; then
  for b in base-a base-b base-c; do
    printf '[trace]\npath = %s\n[scenarios]\nmodel = independent, pipeline\nheal = none, each\nworkers = auto, 2, 4\n' \
      "$ff/$b.h5" > "$work/ff-$b.ini"
    "$stallsim" run --explain --verbose "$work/ff-$b.ini" --out "$work/ff-$b" > "$work/ff-$b.txt" 2>&1 || fail "fixfirst: run from $b"
    grep -A1 "^GPUs to fix first, pipeline model" "$work/ff-$b.txt" | grep -q "^  GPU 2 -[0-9.]*% .*; 3 other GPUs gain less" && ok ||
      fail "fixfirst $b: the ranking: $(grep -A2 'GPUs to fix first' "$work/ff-$b.txt")"
    /usr/bin/python3 - "$work/ff-$b/summary.csv" "$ff" "" "$src/tests/lib" <<'PY' && ok || fail "fixfirst: predictions from $b"
import sys
sys.path.insert(0, sys.argv[4])
from real_means import predicted, real as real_in
rows = predicted(sys.argv[1])
def real(names):  # run's measured row: per iteration the slowest rank, past each epoch's first 11
    return real_in(sys.argv[2], names)
def pred(model, w, heal):
    k = [k for k in rows if k.startswith(model) and (w is None or "_w-%s_" % w in k)
         and (k.endswith("_heal-%s" % heal) if heal else "_heal" not in k)]
    assert len(k) == 1, (model, w, heal, k)
    return rows[k[0]]
fixed, w2 = real(["fixed-a", "fixed-b"]), real(["w2-a", "w2-b"])
w4, fw2 = real(["w4-a", "w4-b", "w4-c", "w4-d"]), real(["fixw2-a", "fixw2-b", "fixw2-c", "fixw2-d"])
for what, p, r, tol in (("pipeline heal 2", pred("pipeline", "auto", "2"), fixed, 5),
                        ("independent heal 2", pred("independent", None, "2"), fixed, 5),
                        ("2 workers", pred("pipeline", "2", None), w2, 5),
                        ("4 workers", pred("pipeline", "4", None), w4, 15),
                        ("heal 2 and 2 workers", pred("pipeline", "2", "2"), fw2, 15)):
    err = 100 * (p / r - 1)
    print("fixfirst %-25s %+6.1f %%" % (what, err))
    assert abs(err) <= tol, (what, err)
PY
  done
else
  fail "datasets/pytorch-fixfirst is missing (committed with the repository)"
fi

# a new user's job whose loaders keep ahead at its base (datasets/pytorch-ahead, 3 ranks,
# 4 workers, recorded after the first-round fix): from each of the four base runs, 1 and
# 2 workers, storage x2 with 4 workers, storage x3 with 2 workers within 7 % of the mean of
# their real runs, the loader-bound ones (1 worker at storage x2, x3) within 3 %; rank 1's storage 3x
# slower, healed, from each of its three runs within 10 % of the healthy runs' mean (the
# slow runs' steps took more CPU, which the model does not see: +2 to +8 %)
ah=$ds/pytorch-ahead
if [ -e "$ah/base-a.h5" ]; then
  for b in base-a base-b base-c base-d slow1-a slow1-b slow1-c; do
    case $b in
      base-*) printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 1, 2\nfetch_scale = 1, 2, 3\n' "$ah/$b.h5" ;;
      *) printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nheal = none, 1\n' "$ah/$b.h5" ;;
    esac > "$work/ah-$b.ini"
    "$stallsim" run --explain --verbose "$work/ah-$b.ini" --out "$work/ah-$b" --quiet 2>"$work/ah-$b.err" || fail "ahead: run from $b: $(cat "$work/ah-$b.err")"
    /usr/bin/python3 - "$work/ah-$b/summary.csv" "$ah" "$b" "$src/tests/lib" <<'PY' && ok || fail "ahead: predictions from $b"
import sys
sys.path.insert(0, sys.argv[4])
from real_means import predicted, real as real_in
rows = predicted(sys.argv[1])
def real(names):  # run's measured row: per iteration the slowest rank, past each epoch's first 11
    return real_in(sys.argv[2], names)
def pred(w, fs, heal=None):
    k = [k for k in rows if k.startswith("pipeline") and "_w-%s_" % w in k and "_fs%s_" % fs in k
         and (k.endswith("_heal-%s" % heal) if heal else "_heal" not in k)]
    assert len(k) == 1, (w, fs, heal, k)
    return rows[k[0]]
if sys.argv[3].startswith("base"):
    checks = (("1 worker", pred(1, 1), real(["w1-a", "w1-b"]), 7),
              ("2 workers", pred(2, 1), real(["w2-a", "w2-b"]), 7),
              ("storage x2", pred("auto", 2), real(["fs2-a", "fs2-b"]), 7),
              ("1 worker, storage x2", pred(1, 2), real(["w1fs2-a", "w1fs2-b"]), 3),
              ("1 worker, storage x3", pred(1, 3), real(["w1fs3-a", "w1fs3-b"]), 3),
              ("2 workers, storage x3", pred(2, 3), real(["w2fs3-a", "w2fs3-b"]), 7))
else:
    checks = (("rank 1 healed", pred("auto", 1, "1"), real(["base-a", "base-b", "base-c", "base-d"]), 10),)
for what, p, r, tol in checks:
    err = 100 * (p / r - 1)
    print("ahead from %-8s %-22s %+6.1f %%" % (sys.argv[3], what, err))
    assert abs(err) <= tol, (what, err)
PY
  done
else
  fail "datasets/pytorch-ahead is missing (committed with the repository)"
fi

# real files from the local disk (datasets/pytorch-disk, 2 ranks, each read evicted from the
# page cache; this VM's disk: storage_parallel = 2 by scripts/storage_probe.py): from the
# 2-worker traces, fewer workers read faster with storage sharing. From w2-a, synchronous
# loading and 1 worker within 6 % with storage_parallel = 2 (+2.0, +4.4 %) where without it
# they are 10-13 % too slow; from w2-b (whose reads were 1.4x as slow as w2-a's) the error
# at least 10 points smaller; the baseline keeps read_stretch 1 and its replay either way
dk=$ds/pytorch-disk
if [ -e "$dk/w2-a.h5" ]; then
  for b in w2-a w2-b; do
    for n in 0 2; do
      printf '[trace]\npath = %s\nwarmup_iterations = 10\n[scenarios]\nmodel = pipeline\nworkers = auto, 0, 1\n[pipeline]\nstorage_parallel = %s\n' \
        "$dk/$b.h5" $n > "$work/dk-$b-$n.ini"
      "$stallsim" run --explain --verbose "$work/dk-$b-$n.ini" --out "$work/dk-$b-$n" --quiet 2>"$work/dk-$b-$n.err" ||
        fail "disk: run from $b, storage_parallel = $n: $(cat "$work/dk-$b-$n.err")"
    done
    /usr/bin/python3 - "$work/dk-$b" "$dk" "$b" "$src/tests/lib" <<'PY' && ok || fail "disk: storage sharing from $b"
import csv, sys
sys.path.insert(0, sys.argv[4])
from real_means import real
rows = {n: {r["workers"]: r for r in csv.DictReader(open("%s-%d/summary.csv" % (sys.argv[1], n))) if r["model"] == "pipeline"}
        for n in (0, 2)}
assert rows[2]["2"]["read_stretch"] == "1" and rows[2]["2"]["iter_time_mean"] == rows[0]["2"]["iter_time_mean"], rows[2]["2"]
assert rows[0]["0"]["read_stretch"] == "" and 0.6 < float(rows[2]["0"]["read_stretch"]) < 0.9, rows[2]["0"]
for w in ("0", "1"):
    r = real(sys.argv[2], ["w%s-a" % w, "w%s-b" % w], warmup=10)
    e0, e2 = (100 * (float(rows[n][w]["iter_time_mean"]) / r - 1) for n in (0, 2))
    print("disk from %s, %s workers: %+6.1f %% without storage sharing, %+6.1f %% with storage_parallel = 2" % (sys.argv[3], w, e0, e2))
    assert e0 > 10, e0
    assert abs(e2) <= 6 if sys.argv[3] == "w2-a" else e0 - e2 >= 10, (e0, e2)
PY
  done
else
  fail "datasets/pytorch-disk is missing (committed with the repository)"
fi
# compare --spread and --match on a new user's job (datasets/pytorch-spread: the base
# recorded twice, 1 and 4 workers twice each): the spreads from the two bases' sweeps, and
# each real run's error against each base's prediction, both recomputed here from the
# traces and the summary.csv files; as README says, the 1-worker runs fall outside the
# spread (4.6-8.0 % too fast; 4 workers 0.0 to +5.6 %): the least error, not a bar
sd=$ds/pytorch-spread
if [ -e "$sd/base1.h5" ]; then
  for b in base1 base2; do
    printf '[trace]\npath = %s/%s.h5\n[scenarios]\nmodel = pipeline\nworkers = 1, 2, 4\n' "$sd" $b > "$work/sp-$b.ini"
    "$stallsim" run --explain --verbose "$work/sp-$b.ini" --out "$work/sp-$b" --quiet || fail "spread: run from $b"
  done
  (cd "$work" && "$stallsim" compare sp-base1 sp-base2 "$sd"/w1.h5 "$sd"/w1b.h5 "$sd"/w4.h5 "$sd"/w4b.h5 --match --spread) \
    > "$work/sp.txt" || fail "spread: compare"
  /usr/bin/python3 - "$work" "$sd" "$src/tests/lib" <<'PY' && ok || fail "spread: $(cat "$work/sp.txt")"
import re, sys
sys.path.insert(0, sys.argv[3])
from real_means import predicted, real
work, sd = sys.argv[1], sys.argv[2]
text = open(work + "/sp.txt").read()
pred = {b: predicted("%s/sp-%s/summary.csv" % (work, b)) for b in ("base1", "base2")}
name = "pipeline_fetch-none_start-none_w-%d_p2_fs1_cs1"
for w, runs, lo, hi, outside in ((1, ("w1", "w1b"), -9, -4, True), (4, ("w4", "w4b"), -1, 7, False)):
    p = [pred[b][name % w] for b in pred]
    sp = 100 * (max(p) - min(p)) / (sum(p) / 2)
    line = re.search(r"^pipe f=none s=none W=%d P=2 fs=1 cs=1\s+2\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)%%$" % w, text, re.M)
    assert line and abs(float(line.group(3)) - sp) < 0.051, (w, line and line.group(0), sp)
    for r in runs:
        real_t = real(sd, [r])
        for b, pb in zip(pred, p):
            e = 100 * (pb / real_t - 1)
            want = r"%.4f\s+%.4f\s+%s%%\s+(?:yes|no|-)\s+sp-%s: pipe f=none s=none W=%d P=2" % (real_t, pb, re.escape("%+.1f" % e), b, w)
            assert re.search(want, text), (r, b, e)
            assert lo <= e <= hi and (abs(e) > sp or not outside), (w, r, b, e, sp)
    print("spread: %d workers, spread %.1f %%, errors against the real runs %s" % (w, sp, "outside it" if outside else "checked"))
PY
else
  fail "datasets/pytorch-spread is missing (committed with the repository)"
fi
# a new user's 3-rank job with real CPU work in the loader and the step (datasets/pytorch-fft:
# the base and the fix twice, every other what-if once): from each base, the baseline within
# 1 %; 1 worker, prefetch 4 and storage twice as fast within 2 % (the loader stays the
# bottleneck); 4 workers 5-8 % and the fix (against the mean of its two runs) 10-13 %
# optimistic, as README says (the healed run's waits for the cores grew more than the
# model's stretch); the ranked answer's first cut heals rank 1, marked "loaders now ahead"
fd=$ds/pytorch-fft
if [ -e "$fd/base1.h5" ]; then
  for b in base1 base2; do
    printf '[trace]\npath = %s/%s.h5\n[scenarios]\nmodel = pipeline\nworkers = 1, 2, 4\nprefetch = 2, 4\nfetch_scale = 1, 0.5\nheal = none, 1\n' \
      "$fd" $b > "$work/fft-$b.ini"
    "$stallsim" run --explain --verbose "$work/fft-$b.ini" --out "$work/fft-$b" > "$work/fft-$b.txt" || fail "fft: run from $b"
  done
  /usr/bin/python3 - "$work" "$fd" "$src/tests/lib" <<'PY' && ok || fail "fft: $(grep -A3 'largest predicted' "$work/fft-base1.txt")"
import re, sys
sys.path.insert(0, sys.argv[3])
from real_means import predicted, real
work, fd = sys.argv[1], sys.argv[2]
P = "pipeline_fetch-none_start-none_"
for b in ("base1", "base2"):
    pred = predicted("%s/fft-%s/summary.csv" % (work, b))
    err = lambda name, runs: 100 * (pred[P + name] / real(fd, runs) - 1)
    checks = [("w-2_p2_fs1_cs1", [b], -1, 1), ("w-1_p2_fs1_cs1", ["w1"], -2, 2), ("w-2_p4_fs1_cs1", ["p4"], -2, 2),
              ("w-2_p2_fs0.5_cs1", ["fs05"], -2, 2), ("w-4_p2_fs1_cs1", ["w4"], -8, -5),
              ("w-2_p2_fs1_cs1_heal-1", ["healed1", "healed2b"], -13, -10)]
    got = [(n, err(n, r)) for n, r, lo, hi in checks]
    print("fft from %s: %s" % (b, ", ".join("%s %+.1f %%" % g for g in got)))
    assert all(lo <= e <= hi for (n, r, lo, hi), (_, e) in zip(checks, got)), got
    first = re.search(r"^  1\. (pipe .*)$", open("%s/fft-%s.txt" % (work, b)).read(), re.M)
    assert first and "heal=1" in first.group(1) and "loaders now ahead" in first.group(1), first and first.group(1)
PY
else
  fail "datasets/pytorch-fft is missing (committed with the repository)"
fi
# a new user's 3-rank job reading real files (datasets/pytorch-files: the base three times,
# 4 workers and no slow rank twice each; and the job's first recording, two of each): from
# each base the pipeline baseline within 1 % of its own run; from the second recording's
# bases 4 workers within 6 % and rank 2 healed within 8 % of the mean of their two real runs
# (+4.1/-1.7/+4.2 % and -0.0/-6.8/-0.9 %), from the first's 4 workers within 16 % and the
# heal within 12 % (+14.9/-1.5 and +8.9/-4.4 %: its first base's CPU times came out 8-17 %
# heavier); the independent model's heal more than 30 % too fast (it cannot see the
# healed rank's loader still sharing the cores). The bases of each recording within 1 % of
# each other, their predictions further apart near saturation (README: 4 workers 5.8 and
# 15.4 %, the heal 6.9 and 13.0 %)
fd=$ds/pytorch-files
if [ -e "$fd/base1.h5" ]; then
  for b in base1 base2 base3 first-base1 first-base2; do
    printf '[trace]\npath = %s/%s.h5\nwarmup_iterations = 10\n[scenarios]\nmodel = independent, pipeline\nworkers = auto, 4\nprefetch = auto\nheal = none, 2\n' "$fd" $b > "$work/fi-$b.ini"
    "$stallsim" run --explain --verbose "$work/fi-$b.ini" --out "$work/fi-$b" --quiet || fail "files: run from $b"
  done
  /usr/bin/python3 - "$work" "$fd" "$src/tests/lib" <<'PY' && ok || fail "files: predictions from each base"
import csv, sys
sys.path.insert(0, sys.argv[3])
from real_means import real
work, fd = sys.argv[1], sys.argv[2]
for pre, bases, tol, apart in (("", ("base1", "base2", "base3"), (6, 8), ((4, 9), (6, 13))),
                               ("first-", ("first-base1", "first-base2"), (16, 12), ((12, 18), (12, 18)))):
    w4, healthy = real(fd, [pre + "w4", pre + "w4b"], warmup=10), real(fd, [pre + "healthy", pre + "healthy-b"], warmup=10)
    own = [real(fd, [b], warmup=10) for b in bases]
    assert (max(own) - min(own)) / (sum(own) / len(own)) <= 0.01, (pre, own)
    preds = []
    for b in bases:
        rows = list(csv.DictReader(open("%s/fi-%s/summary.csv" % (work, b))))
        pick = lambda model, w, heal: [float(r["iter_time_mean"]) for r in rows
                                       if r["model"] == model and r["heal_gpus"] == heal and (w is None or r["workers"] == w)]
        base, four, heal = pick("pipeline", "2", ""), pick("pipeline", "4", ""), pick("pipeline", "2", "2")
        indep = pick("independent", None, "2")
        assert len(base) == len(four) == len(heal) == len(indep) == 1, b
        e = [100 * (base[0] / real(fd, [b], warmup=10) - 1), 100 * (four[0] / w4 - 1), 100 * (heal[0] / healthy - 1),
             100 * (indep[0] / healthy - 1)]
        print("files from %s: baseline %+.1f %%, 4 workers %+.1f %%, rank 2 healed %+.1f %% (independent %+.1f %%)" % (b, *e))
        assert abs(e[0]) <= 1 and abs(e[1]) <= tol[0] and abs(e[2]) <= tol[1] and e[3] < -30, (b, e)
        preds.append((four[0], heal[0]))
    for i, what in enumerate(("4 workers", "rank 2 healed")):
        p = [v[i] for v in preds]
        sp = 100 * (max(p) - min(p)) / (sum(p) / len(p))
        print("files%s: %s predicted %.1f %% apart from the %d bases" % (pre and " (" + pre[:-1] + ")", what, sp, len(p)))
        assert apart[i][0] <= sp <= apart[i][1], (pre, what, sp)
PY
else
  fail "datasets/pytorch-files is missing (committed with the repository)"
fi
finish
