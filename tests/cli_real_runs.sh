#!/usr/bin/env bash
# cli_real_runs.sh - the models against the committed real PyTorch runs (datasets/, README
# "How far to trust the predictions"), at the issue's targets: the calibrated pipeline
# baseline within 1 % of the measured mean and the slow rank healed within 5 % of the real
# run without it (grids B, C and D, 4 ranks; the regimes' 2-rank pair); in the regimes, every
# trace recorded with workers predicts the other loader settings within 5 % (the second
# recording: on average); with CPU work
# in every fetch, "storage twice as fast" from the x1 run within 5 % of the x0.5 run. These are real
# runs, not traces the tool made: a model change that moves a prediction out of range fails.
. "$(dirname "$0")/lib_cli.sh" "$@"
ds=$src/datasets
[ -e "$ds/pytorch-grid-c/w2-x1-p2.h5" ] || { echo "skipped: datasets/pytorch-grid-c absent"; exit 77; }

# expect_within CSV SCENARIO_PATTERN REAL_ROW_CSV TOLERANCE_PCT WHAT
# the scenario (matched by a Python regular expression) of a compare table against row 0 of
# another compare table (or the same)
expect_within() {
  /usr/bin/python3 - "$@" <<'PY'
import csv, re, sys
pred_csv, pattern, real_csv, tol, what = sys.argv[1:6]
rows = list(csv.DictReader(open(pred_csv)))
real = float(list(csv.DictReader(open(real_csv)))[0]["iter_time_mean"])
hits = [r for r in rows[1:] if re.fullmatch(pattern, r["scenario"])]
assert len(hits) == 1, (what, pattern, [r["scenario"] for r in rows])
err = 100 * (float(hits[0]["iter_time_mean"]) / real - 1)
print("%-60s %+6.1f %%" % (what, err))
sys.exit(0 if abs(err) <= float(tol) else 1)
PY
}

# one_prediction NAME TRACE WORKERS REAL: a pipeline sweep of TRACE with WORKERS workers
# (prefetch auto) in $work/NAME (its output in NAME.out), set against the real run REAL in
# $work/NAME.csv
one_prediction() {
  printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = %s\nprefetch = auto\n' "$2" "$3" > "$work/$1.ini"
  "$stallsim" run "$work/$1.ini" --out "$work/$1" > "$work/$1.out" 2>&1 || fail "$1: run from $2"
  "$stallsim" compare "$4" "$work/$1" --csv "$work/$1.csv" >/dev/null || fail "$1: compare with $4"
}

pipe_base='pipeline_fetch-none_start-none_w-auto_p2_fs1_cs1'
for g in b c d; do
  d=$ds/pytorch-grid-$g
  [ -e "$d/w2-x1-p2-slow3.h5" ] || continue
  for t in w2-x1-p2 w2-x1-p2-slow3; do
    printf '[trace]\npath = %s\nwarmup_iterations = 10\n[scenarios]\nmodel = independent, pipeline\nheal = none, 3\n' "$d/$t.h5" > "$work/$g-$t.ini"
    "$stallsim" run "$work/$g-$t.ini" --out "$work/$g-$t" --quiet || fail "grid $g: run $t"
    "$stallsim" compare "$d/$t.h5" "$work/$g-$t" --warmup 10 --csv "$work/$g-$t.csv" >/dev/null || fail "grid $g: compare $t"
  done
  "$stallsim" compare "$d/w2-x1-p2.h5" "$work/$g-w2-x1-p2-slow3" --warmup 10 --csv "$work/$g-healed.csv" >/dev/null ||
    fail "grid $g: compare healed"
  expect_within "$work/$g-w2-x1-p2.csv" "$pipe_base" "$work/$g-w2-x1-p2.csv" 1 "grid $g: pipeline baseline (calibrated)" && ok ||
    fail "grid $g: pipeline baseline"
  expect_within "$work/$g-w2-x1-p2-slow3.csv" "$pipe_base" "$work/$g-w2-x1-p2-slow3.csv" 1 \
    "grid $g, slow rank 3: pipeline baseline" && ok || fail "grid $g: slow-rank baseline"
  for m in "$pipe_base" 'independent_fetch-none_start-none'; do
    expect_within "$work/$g-healed.csv" "${m}_heal-3" "$work/$g-healed.csv" 5 "grid $g: ${m%%_*}, rank 3 healed vs the run without it" &&
      ok || fail "grid $g: ${m%%_*} healed"
  done
done

# grid_table NAME DIR "PREFIX,..." N [ALL] [MEAN] [HEALED] [HEALED_MEAN]: validate_pytorch.sh's
# predictions of the grid in DIR from its one base trace: the N points whose names start with
# a PREFIX (where the loader bounds the run) within 5 % (ALL = all: every one of the 17), the
# mean |error| over all 17 within MEAN % (5); the slow rank's pipeline baselines within 2 %,
# rank 3 healed (pipeline) within HEALED % (5) of the run without it and within HEALED_MEAN %
# (5) of the mean of that setting's three runs
grid_table() {
  local name=$1 dir=$2 prefixes=$3 n=$4 all=${5:-} mean_max=${6:-5} heal_max=${7:-5} heal_mean_max=${8:-5}
  [ -e "$dir/w2-x1-p2.h5" ] || return 0
  "$src/scripts/validation/validate_pytorch.sh" --dir "$dir" > "$work/grid-$name.txt" 2>&1 || fail "grid $name: validate_pytorch.sh"
  /usr/bin/python3 - "$work/grid-$name.txt" "$name" "$prefixes" "$n" "$all" "$mean_max" "$heal_max" "$heal_mean_max" <<'PY' && ok ||
import re, sys
text, name, prefixes, n = open(sys.argv[1]).read(), sys.argv[2], tuple(sys.argv[3].split(",")), int(sys.argv[4])
if sys.argv[5] == "all":
    prefixes, n = ("w",), 18
errs = {m.group(1): float(m.group(2)) for m in re.finditer(r"^(w\d-x[\d.]+-p\d)\s+\S+\s+\S+\s+([-+][\d.]+)", text, re.M)}
assert len(errs) == 18, errs
bound = [k for k in errs if k.startswith(prefixes)]
worst = max(abs(errs[k]) for k in bound)
mean = float(re.search(r"mean \|error\| of the iteration time over the 17 other points: ([\d.]+) %", text).group(1))
base = [float(m.group(1)) for m in re.finditer(r"^  pipeline\S+_fs1_cs1\s+\S+\s+measured\s+([-+][\d.]+)", text, re.M)]
healed = [float(m.group(1)) for m in re.finditer(r"^  pipeline\S+_heal-3\s+\S+\s+healed\*\s+([-+][\d.]+)", text, re.M)]
print("grid %s: the %d points %s within %.1f %%, mean |error| over 17 points %.1f %%, pipeline baselines %s %%, healed %s %%"
      % (name, len(bound), "|".join(prefixes), worst, mean, base, healed))
assert len(bound) == n and worst <= 5 and mean <= float(sys.argv[6]), (worst, mean)
assert len(base) == 2 and max(abs(b) for b in base) <= 2, base
assert len(healed) == 2 and max(abs(h) for h in healed) <= float(sys.argv[7]), healed
healed_mean = [float(m.group(1)) for m in re.finditer(
    r"^  pipeline\S+_heal-3\s+\S+ against the mean of the 3 runs without the slow rank .*: ([-+][\d.]+) %$", text, re.M)]
print("grid %s: rank 3 healed against the mean of the base setting's 3 runs %s %%" % (name, healed_mean))
assert len(healed_mean) == 2 and max(abs(h) for h in healed_mean) <= float(sys.argv[8]), healed_mean
# the same predictions from each of the three base runs: the first line is the table's own
bases = re.findall(r"^  from (w2-x1-p2\S*)\s+mean \|error\| over the 17 other points ([\d.]+) %, (\d+) within 5 %", text, re.M)
if bases:
    assert [b[0] for b in bases] == ["w2-x1-p2", "w2-x1-p2-rep1", "w2-x1-p2-rep2"], bases
    # (the table prints errors to 0.1 %: one printed as 5.0 may be just above 5)
    others = [abs(e) for k, e in errs.items() if k != "w2-x1-p2"]
    assert float(bases[0][1]) == mean and sum(e < 5 for e in others) <= int(bases[0][2]) <= sum(e <= 5 for e in others), bases
    print("grid %s from each base run: mean |error| %s %%" % (name, ", ".join(b[1] for b in bases)))
PY
    fail "grid $name: predictions from the base trace: $(cat "$work/grid-$name.txt")"
}
# grid D (an idle machine, 0.6 % run-to-run noise): every point within 5 % (issue 11's
# criterion; the largest miss +4.4 %, and -5.3 % before the training processes' alignment)
grid_table d "$ds/pytorch-grid-d" "w0-,w1-,w2-x1-" 8 all
# the training processes' alignment the calibration prints, against the same shares
# computed here from the trace: per row, the largest number n of the G GPUs whose
# train_start (and ask + delivery, ask = train_start - stall, delivery = the stall beyond
# the wait for the batch to be ready: stall - max(0, fetch_start + fetch_time - ask)) lie
# within the median step CPU
# (/loop_cpu_time; workers > 0 here) of each other; the mean of (n - 1) / (G - 1)
for t in pytorch-grid-d/w2-x1-p2 pytorch-grid-d/w4-x1-p2 pytorch-grid-e/w1-x1-p2 pytorch-vision/slow2; do
  [ -e "$ds/$t.h5" ] || continue
  "$stallsim" info "$ds/$t.h5" > "$work/align.txt" 2>&1 || fail "info $t"
  /usr/bin/python3 - "$ds/$t.h5" "$work/align.txt" <<'PY' && ok || fail "alignment of $t: $(grep 'started their steps together' "$work/align.txt")"
import re, sys
import h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
ts, st = f["timeline/train_start"][:], f["timeline/stall_time"][:]
done = f["timeline/fetch_start"][:] + f["timeline/fetch_time"][:]
b = np.median(f["loop_cpu_time"][:])
def share(v):
    out = []
    for row in np.sort(v, axis=1):
        n = max(int(np.searchsorted(row, row[i] + b, side="right")) - i for i in range(len(row)))
        out.append((n - 1) / (len(row) - 1))
    return 100 * np.mean(out)
ask = ts - st
together, asked = share(ts), share(ask + np.maximum(0, st - np.maximum(0, done - ask)))
m = re.search(r"started their steps together (\d+)% of the time and would have had their batches together (\d+)%", open(sys.argv[2]).read())
print("%s: steps together %.1f %% (printed %s), asks + deliveries %.1f %% (printed %s)" % (sys.argv[1].split("datasets/")[-1], together, m.group(1), asked, m.group(2)))
assert abs(together - int(m.group(1))) <= 0.5 + 1e-9 and abs(asked - int(m.group(2))) <= 0.5 + 1e-9
PY
done

# grid E (the same grid with another workload: batch 16, 3 ms per sample plus 0.5 ms of
# CPU decoding, a 25 ms step; format 3): synchronous, 1 worker at x1
grid_table e "$ds/pytorch-grid-e" "w0-,w1-x1-" 4
# grid F (grid D's workload recorded again on another machine of the kind, format 3):
# where the loader bounds the run within 5 % (2.1 %); the loader-ahead points are 3-13 %
# optimistic there (README), so the mean over all 17 within 6 % (5.2 %)
grid_table f "$ds/pytorch-grid-f" "w0-,w1-,w2-x1-" 8 "" 6
# run marks the pipeline cuts whose loaders keep ahead of a trace whose loaders were behind
# (README: the measured mean stall above 3x the median calibrated delivery, the scenario's
# below 2x it times its delivery factor: its cpu_stretch over the baseline's where some GPU
# had its batch ready at 95 % of its asks past each epoch's first W; one pool), computed here from summary.csv, results.h5 and
# the trace: on grid F's base, 4 workers keep ahead; on the two-fault base, 4 workers do
# too (its fast GPUs' deliveries stretched), healing rank 1 does not
for t in pytorch-grid-f/w2-x1-p2 pytorch-twofaults/base; do
  [ -e "$ds/$t.h5" ] || continue
  printf '[trace]\npath = %s\nwarmup_iterations = 10\n[scenarios]\nmodel = pipeline\nworkers = auto, 4\nheal = none, 1\n' \
    "$ds/$t.h5" > "$work/ahead.ini"
  "$stallsim" run "$work/ahead.ini" --out "$work/ahead" > "$work/ahead.txt" 2>&1 &&
    "$stallsim" run "$work/ahead.ini" --out "$work/ahead-json" --json > "$work/ahead.json" 2>/dev/null ||
    { fail "run $t (ahead)"; continue; }
  /usr/bin/python3 - "$work/ahead" "$work/ahead.txt" "$work/ahead.json" "$ds/$t.h5" <<'PY' && ok || fail "loaders-ahead marks on $t"
import csv, json, re, sys
import h5py, numpy as np
rows = list(csv.DictReader(open(sys.argv[1] + "/summary.csv")))
with h5py.File(sys.argv[4]) as f:
    tl = f["timeline"]
    st, ts = tl["stall_time"][()], tl["train_start"][()]
    ok = tl["fetch_start"][()] + tl["fetch_time"][()] <= ts - st
    index, W = tl["index"][()], np.maximum(1, f.attrs["loader_workers"])  # past each epoch's first W rows
    waited = any(ok[index >= W[g], g].mean() >= 0.95 for g in range(ok.shape[1]))
s0 = float(next(r for r in rows if r["model"] == "pipeline" and r["workers"] == "2" and not r["heal_gpus"])["cpu_stretch"])
jtop = json.load(open(sys.argv[3]))["ranking"]["top"]
top = [x["scenario"] for x in jtop]
h5top = h5py.File(sys.argv[1] + "/results.h5", "r")["ranking/top"][:]
med = float(np.median(h5py.File(sys.argv[1] + "/results.h5", "r")["calibration/delivery"][:]))
measured = next(r for r in rows if r["model"] == "measured")
behind = float(measured["stall_mean"]) > 3 * med
text = open(sys.argv[2]).read()
lines = [l for l in text.splitlines() if re.match(r"  \d\. pipe", l)]
assert lines, text
marked = 0
assert len(lines) == len(top), (lines, top)
for l, name in zip(lines, top):  # the terminal's cuts are the JSON's, in the same order
    r = next(r for r in rows if r["scenario"] == name)
    k = float(r["cpu_stretch"]) / s0 if waited else 1.0
    want = behind and float(r["stall_mean"]) < 2 * med * k
    assert ("loaders now ahead: less certain" in l) == want, (l, r["stall_mean"], med)
    k = top.index(name)  # the same flag in the JSON and in results.h5 /ranking/top
    assert jtop[k]["loaders_ahead"] == want and bool(h5top["loaders_ahead"][k]) == want, (jtop[k], h5top[k])
    marked += want
assert marked >= 1 and ("(loaders now ahead: the trace's loaders were behind" in text) == (marked > 0), text
print("%s: %d of %d cuts marked loaders-ahead" % (sys.argv[1], marked, len(lines)))
PY
done

# grid G (the same, recorded again on F's machine, with four loader-ahead points recorded
# four times): the loader-bound points within 5 % (2.6 %), the mean within 6 % (3.4 %)
grid_table g "$ds/pytorch-grid-g" "w0-,w1-,w2-x1-" 8 "" 6
# grid H (a third workload, recorded after every model change before the last: batch 24, 2 ms storage and
# 0.2 ms CPU per sample, 20 ms step; base runs 5 % apart): the synchronous and 1-worker
# points at full latency within 5 %, the mean within 5 % (2.8 %); rank 3 healed within 5 %
# (-3.5 %; -7.8 % before the deliveries of the GPUs whose batches waited were stretched)
# and -4.7 % against the mean of the base setting's three runs (0.0421, 0.0440, 0.0419 s)
grid_table h "$ds/pytorch-grid-h" "w0-,w1-x1-" 4
# grid I (the grid's fourth workload, recorded after every model change before the period's
# delivery term, which its misses prompted: batch 8, 8 ms storage and 1 ms CPU per sample,
# 10 ms step): the points where the loader bounds the run (1 worker, 2 workers at full
# latency) within 5 % (1.9 %); the mean within 5 % (4.0 %; 5.6 % before that change:
# loader-ahead points on nearly busy cores come out up to 12 % too slow, README); rank 3
# healed within 5 % (+1.8 %)
grid_table i "$ds/pytorch-grid-i" "w1-,w2-x1-" 6
# grid J (the fifth, likewise: batch 64, 1 ms storage per sample, 30 ms step, the base's
# loaders already ahead): every point but 1 worker at half the latency within 5 % (4.0 %;
# those two -8.4 and -7.7 %, half of it the emulated storage's sleeps not halving), the
# mean within 5 % (2.6 %), rank 3 healed within 5 % (-3.4 %)
grid_table j "$ds/pytorch-grid-j" "w0-,w1-x1-,w2-,w4-,w8-" 16
# grid K (the sixth, recorded after the alignment's change: batch 16, 4 ms storage and
# 0.15 ms CPU per sample, 12 ms step, the cores about half busy): the points where the
# loader bounds the run (synchronous, 1 worker, 2 workers at full latency) within 5 %
# (1.5 %), the mean within 5 % (2.9 %: the loader-ahead points -0.5 to +7.6 % from a base
# run with heavier CPU times than its repeats'), rank 3 healed within 5 % (-0.8 %)
grid_table k "$ds/pytorch-grid-k" "w0-,w1-,w2-x1-" 8
# grid L (the seventh, recorded after the worker gap's change: batch 32, 2 ms storage and
# 0.1 ms CPU per sample, 20 ms step, the cores about half busy): every point within 5 %
# (2.4 %), issue 11's criterion, the mean within 5 % (1.5 %), rank 3 healed within 5 % (-2.5 %)
grid_table l "$ds/pytorch-grid-l" "w0-,w1-,w2-x1-" 8 all
# grid M (8 ranks on the 2 cores, recorded after every model change before the last: batch 16, 4 ms storage
# and 0.1 ms CPU per sample, 20 ms step; the base's loaders already ahead): the points where
# the loaders bound the run within 5 % (3.7 %); the mean within 7 % (6.9 %) and rank 3 healed
# within 11 % (-10.6 %) of the base run, the slowest of its setting's three, 14.1 % apart;
# healed within 5 % of the mean of the three (-2.8 %)
grid_table m "$ds/pytorch-grid-m" "w0-,w1-x1-" 4 "" 7 11
# grid N (the ninth workload, recorded after the period's delivery term and never used to
# change the model: batch 12, 5 ms storage and 0.6 ms CPU per sample, 25 ms step; the base's
# loaders already ahead, the cores at most 61 % busy): the loader-bound points (synchronous,
# 1 worker) within 5 % (3.3 %), the mean within 5 % (2.4 %), rank 3 healed within 5 % of the
# base run (-2.5 %) and of the mean of the three (-2.8 %)
grid_table n "$ds/pytorch-grid-n" "w0-,w1-" 6
# grid O (the tenth, likewise recorded after it: batch 16, 4 ms storage and 0.4 ms CPU per
# sample, 20 ms step; the base's loaders behind, more workers or faster storage ahead on
# cores up to 64 % busy): every point within 5 % (3.6 %), issue 11's criterion, the mean
# within 5 % (1.3 %), rank 3 healed within 5 % of the base run (+2.4 %) and of the mean of
# the three (+1.6 %)
grid_table o "$ds/pytorch-grid-o" "w" 18 all
# grid P (the eleventh, likewise: batch 12, 5 ms storage and 0.5 ms CPU per sample, 16 ms
# step; the loader-ahead points on cores up to 67 % busy): every point but 8 workers within
# 5 % (3.0 %; 8 workers at half the latency +5.0 and +4.4 %), the mean within 5 % (1.6 %),
# rank 3 healed within 5 % of the base run (+2.5 %) and of the mean of the three (+2.7 %)
grid_table p "$ds/pytorch-grid-p" "w0-,w1-,w2-,w4-" 14
# grid Q (6 ranks, the twelfth workload, likewise: batch 12, 5 ms storage and 0.3 ms CPU per
# sample, 25 ms step; the base's loaders already ahead): every point but synchronous loading
# and 8 workers at half the latency within 5 % (-4.8 %; those -5.6, -7.8 and -5.1 %), the
# mean within 5 % (3.0 %), rank 3 healed within 5 % of the base run (+2.6 %) and of the mean
# of the three (+1.2 %)
grid_table q "$ds/pytorch-grid-q" "w0-x1-,w1-,w2-,w4-,w8-x1-" 15
# grid R (the thirteenth, recorded after every model change: batch 20, 3 ms storage and
# 0.3 ms CPU per sample, 22 ms step; the base's loaders about keeping pace): the synchronous,
# 1-worker and 2-worker points at full latency, and 2 workers at half the latency with
# prefetch 2, within 5 % (1.9 %); the mean within 7 % (6.8 %: every run with 4 or 8 workers
# 7.6-15.8 % too slow, README); rank 3 healed within 5 % of the base run (-0.8 %) and of the
# mean of the three (+0.1 %)
grid_table r "$ds/pytorch-grid-r" "w0-,w1-x1-,w2-x1-,w2-x0.5-p2" 7 "" 7
# grid S (the fourteenth, 5 ranks, recorded after every model change: batch 24, 2.5 ms
# storage and 0.5 ms CPU per sample, 28 ms step; the cores 80-88 % busy, the three base runs
# 10 % apart, the committed one the slowest): the 1-worker and 2-worker points at full
# latency and synchronous loading at half the latency within 5 % (4.1 %); the mean within
# 7 % (6.0 %); rank 3 healed within 5 % of the base run (+0.1 %) and 7 % of the mean of the
# three (+6.0 %)
grid_table s "$ds/pytorch-grid-s" "w1-x1-,w2-x1-,w0-x0.5-" 5 "" 7 5 7
# grid T (the default workload of grids A-D recorded again with recorder format 4, after
# every model change, idle): every point within 5 % (the largest miss -4.2 %), the mean
# 1.5 %; rank 3 healed -2.1 % (-1.9 % against the mean of the three)
grid_table t "$ds/pytorch-grid-t" "w" 18 all 2

r=$ds/pytorch-regimes
if [ -e "$r/w2-slow1.h5" ]; then
  printf '[trace]\npath = %s\nwarmup_iterations = 10\n[scenarios]\nmodel = independent, pipeline\nheal = none, 1\n' "$r/w2-slow1.h5" > "$work/rs.ini"
  "$stallsim" run "$work/rs.ini" --out "$work/rs" --quiet || fail "regimes: slow run"
  "$stallsim" compare "$r/w2.h5" "$work/rs" --warmup 10 --csv "$work/rs-healed.csv" >/dev/null || fail "regimes: compare healed"
  for m in "$pipe_base" 'independent_fetch-none_start-none'; do
    expect_within "$work/rs-healed.csv" "${m}_heal-1" "$work/rs-healed.csv" 5 "regimes: ${m%%_*}, rank 1 healed vs the run without it" &&
      ok || fail "regimes: ${m%%_*} healed"
  done
fi
for b in 1 2 4; do
  printf '[trace]\npath = %s\nwarmup_iterations = 10\n[scenarios]\nmodel = pipeline\nworkers = 0, 1, 2, 4\n' "$r/w$b.h5" > "$work/w$b.ini"
  "$stallsim" run "$work/w$b.ini" --out "$work/from$b" --quiet || fail "regimes: run from W=$b"
  for t in 0 1 2 4; do
    [ "$t" = "$b" ] && continue
    "$stallsim" compare "$r/w$t.h5" "$work/from$b" --warmup 10 --csv "$work/c$b-$t.csv" >/dev/null || fail "regimes: compare"
    expect_within "$work/c$b-$t.csv" "pipeline_fetch-none_start-none_w-$t"'_p2_fs1_cs1' "$work/c$b-$t.csv" 5 \
      "regimes: W=$t predicted from the W=$b trace" && ok || fail "regimes: W=$t from W=$b"
  done
done

# the regimes recorded again (regimes-b, an idle machine): the mean |error| over the 12
# predictions of another regime within 5 %, rank 1 healed within 5 % by both models
if [ -e "$ds/pytorch-regimes-b/w2-slow1.h5" ]; then
  "$src/scripts/validation/validate_pytorch.sh" --regimes --dir "$ds/pytorch-regimes-b" > "$work/regimes-b.txt" 2>&1 ||
    fail "regimes-b: validate_pytorch.sh"
  /usr/bin/python3 - "$work/regimes-b.txt" <<'PY' && ok || fail "regimes-b: $(cat "$work/regimes-b.txt")"
import re, sys
text = open(sys.argv[1]).read()
mean = float(re.search(r"mean \|error\| over the 12 predictions of another regime: ([\d.]+) %", text).group(1))
healed = [float(m.group(1)) for m in re.finditer(r"_heal-1\s+\S+\s+healed\*\s+([-+][\d.]+)", text)]
print("regimes-b: mean |error| %.1f %%, rank 1 healed %s %%" % (mean, ", ".join("%+.1f" % h for h in healed)))
assert mean <= 5 and len(healed) == 2 and max(abs(h) for h in healed) <= 5, (mean, healed)
PY
fi

# unseen_workload NAME DATASET MAX_PCT MEAN_PCT SLOW_RANK INDEP_HEAL_PCT PIPE_HEAL_PCT "REAL:PATTERN ..."
# a workload recorded after the model was built: from its 1-worker trace base.h5, the
# pipeline predictions of the real runs REAL.h5 (the scenario whose name holds PATTERN)
# each within MAX_PCT and on average within MEAN_PCT; from slowR.h5, rank R healed against
# base.h5 within INDEP_HEAL_PCT (independent) and PIPE_HEAL_PCT (pipeline)
unseen_workload() {
  local name=$1 dir=$ds/$2 max=$3 mean=$4 slow=$5 htol_i=$6 htol_p=$7 points=$8 pt real
  [ -e "$dir/base.h5" ] || { fail "datasets/$2/base.h5 is missing (committed with the repository)"; return; }
  printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 0, 1, 2, 3, 4, 6\nprefetch = auto\nfetch_scale = 1, 0.5\n' \
    "$dir/base.h5" > "$work/$name.ini"
  "$stallsim" run "$work/$name.ini" --out "$work/$name" --quiet || fail "$name: run"
  for pt in $points; do
    real=${pt%%:*}
    "$stallsim" compare "$dir/$real.h5" "$work/$name" --csv "$work/$name-$real.csv" >/dev/null || fail "$name: compare $real"
  done
  /usr/bin/python3 - "$work" "$name" "$max" "$mean" $points <<'PY' && ok || fail "$name: predictions from the 1-worker trace"
import csv, sys
work, name, tmax, tmean = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
errs = []
for pt in sys.argv[5:]:
    real, pat = pt.split(":")
    rows = list(csv.DictReader(open("%s/%s-%s.csv" % (work, name, real))))
    r = float(rows[0]["iter_time_mean"])
    p = [float(x["iter_time_mean"]) for x in rows[1:] if pat in x["scenario"]][0]
    errs.append(100 * (p - r) / r)
m = sum(abs(e) for e in errs) / len(errs)
print("%s: %s, mean |error| %.1f %%" % (name, " ".join("%+.1f" % e for e in errs), m))
assert max(abs(e) for e in errs) <= tmax and m <= tmean, errs
PY
  printf '[trace]\npath = %s\n[scenarios]\nmodel = independent, pipeline\nprefetch = auto\nheal = %s\n' \
    "$dir/slow$slow.h5" "$slow" > "$work/$name-heal.ini"
  "$stallsim" run "$work/$name-heal.ini" --out "$work/$name-heal" --quiet || fail "$name: heal run"
  "$stallsim" compare "$dir/base.h5" "$work/$name-heal" --csv "$work/$name-heal.csv" >/dev/null || fail "$name: heal compare"
  expect_within "$work/$name-heal.csv" "^independent_.*_heal-$slow\$" "$work/$name-heal.csv" "$htol_i" \
    "$name: independent, rank $slow healed" && ok || fail "$name: independent heal"
  expect_within "$work/$name-heal.csv" "^pipeline_.*_heal-$slow\$" "$work/$name-heal.csv" "$htol_p" \
    "$name: pipeline, rank $slow healed" && ok || fail "$name: pipeline heal"
}

# storage twice as fast with CPU work in every fetch (datasets/pytorch-storage, 1 worker):
# the x1 trace predicts the x0.5 run within 5 % when only the storage part scales (the
# recorded fetch CPU time stays), and misses it by more than 15 % when the whole fetch does
st=$ds/pytorch-storage
if [ -e "$st/w1-x1.h5" ] && [ -e "$st/w1-x0.5.h5" ]; then
  for cpu in auto 0; do
    printf '[trace]\npath = %s\nwarmup_iterations = 10\n[scenarios]\nmodel = pipeline\nfetch_scale = 0.5\n[pipeline]\nfetch_cpu = %s\n' \
      "$st/w1-x1.h5" "$cpu" > "$work/st-$cpu.ini"
    "$stallsim" run "$work/st-$cpu.ini" --out "$work/st-$cpu" --quiet || fail "storage: run fetch_cpu = $cpu"
    "$stallsim" compare "$st/w1-x0.5.h5" "$work/st-$cpu" --warmup 10 --csv "$work/st-$cpu.csv" >/dev/null ||
      fail "storage: compare fetch_cpu = $cpu"
  done
  expect_within "$work/st-auto.csv" 'pipeline_.*_fs0.5_cs1' "$work/st-auto.csv" 5 \
    "storage x0.5, 1 worker: storage part scaled (fetch_cpu = auto)" && ok || fail "storage: fetch_cpu = auto"
  expect_within "$work/st-0.csv" 'pipeline_.*_fs0.5_cs1' "$work/st-0.csv" 15 \
    "storage x0.5, 1 worker: whole fetch scaled (fetch_cpu = 0), must miss" && fail "storage: the whole fetch scaled is within 15 %" || ok
  # CPU sharing (MODELS-pipeline.md): with 2 workers per rank the workers' decoding keeps
  # most of the 2 cores busy; from the 2-worker trace, storage x0.5 and 4 workers are
  # within 10 % of the real runs with CPU sharing, and more than 12 % optimistic without
  # it (the measured wait of the fetches' CPU work kept as it was)
  for share in true false; do
    printf '[trace]\npath = %s\nwarmup_iterations = 10\n[scenarios]\nmodel = pipeline\nworkers = auto, 4\nfetch_scale = 1, 0.5\n[pipeline]\ncpu_sharing = %s\n' \
      "$st/w2-x1.h5" "$share" > "$work/st2-$share.ini"
    "$stallsim" run "$work/st2-$share.ini" --out "$work/st2-$share" --quiet || fail "storage: run from w2-x1 (cpu_sharing = $share)"
    for real in w2-x0.5 w4-x1; do
      "$stallsim" compare "$st/$real.h5" "$work/st2-$share" --warmup 10 --csv "$work/st2-$share-$real.csv" >/dev/null ||
        fail "storage: compare $real (cpu_sharing = $share)"
    done
  done
  expect_within "$work/st2-true-w2-x0.5.csv" 'pipeline_.*_w-auto_p2_fs0.5_cs1' "$work/st2-true-w2-x0.5.csv" 10 \
    "storage x0.5, 2 workers, CPU sharing" && ok || fail "storage: 2 workers x0.5 with CPU sharing"
  expect_within "$work/st2-true-w4-x1.csv" 'pipeline_.*_w-4_p2_fs1_cs1' "$work/st2-true-w4-x1.csv" 10 \
    "storage 4 workers from 2, CPU sharing" && ok || fail "storage: 4 workers with CPU sharing"
  expect_within "$work/st2-false-w2-x0.5.csv" 'pipeline_.*_w-auto_p2_fs0.5_cs1' "$work/st2-false-w2-x0.5.csv" 12 \
    "storage x0.5, 2 workers, no CPU sharing, must miss" && fail "storage: without CPU sharing within 12 %" || ok
  expect_within "$work/st2-false-w4-x1.csv" 'pipeline_.*_w-4_p2_fs1_cs1' "$work/st2-false-w4-x1.csv" 12 \
    "storage 4 workers from 2, no CPU sharing, must miss" && fail "storage: without CPU sharing within 12 %" || ok
  # a second workload (datasets/pytorch-cnn: a CNN trained on the CPU, numpy work in the
  # loader): from the 1-worker trace, 0, 2 and 4 workers and half the latency (1 and 2
  # workers) within 12 % each and 8 % on average with CPU sharing; without it 24 % on average
  cn=$ds/pytorch-cnn
  if [ -e "$cn/w1-x1.h5" ]; then
    for share in true false; do
      printf '[trace]\npath = %s\nwarmup_iterations = 10\n[scenarios]\nmodel = pipeline\nworkers = 0, 1, 2, 4\nfetch_scale = 1, 0.5\n[pipeline]\ncpu_sharing = %s\n' \
        "$cn/w1-x1.h5" "$share" > "$work/cn-$share.ini"
      "$stallsim" run "$work/cn-$share.ini" --out "$work/cn-$share" --quiet || fail "cnn: run (cpu_sharing = $share)"
      for real in w0-x1 w2-x1 w4-x1 w1-x0.5 w2-x0.5; do
        "$stallsim" compare "$cn/$real.h5" "$work/cn-$share" --warmup 10 --csv "$work/cn-$share-$real.csv" >/dev/null ||
          fail "cnn: compare $real"
      done
    done
    # the baseline replays bit for bit as without CPU sharing; a sweep that gives every loader
    # setting still gets CPU sharing (it calibrates for it)
    for share in true false; do
      printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\n[pipeline]\ncpu_sharing = %s\n' "$cn/w1-x1.h5" "$share" > "$work/cnb-$share.ini"
      "$stallsim" run "$work/cnb-$share.ini" --out "$work/cnb-$share" --quiet || fail "cnn: baseline run (cpu_sharing = $share)"
      printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = 4\n[pipeline]\nworker_gap = 0\nrefill_gap = 0\ndelivery = 0.0015\ncpu_sharing = %s\n' \
        "$cn/w1-x1.h5" "$share" > "$work/cnn-$share.ini"
      "$stallsim" run "$work/cnn-$share.ini" --out "$work/cnn-$share" --quiet || fail "cnn: numeric run (cpu_sharing = $share)"
    done
    # (all but cpu_stretch, which only the run with CPU sharing has: the trace's own stretch)
    /usr/bin/python3 - "$work/cnb-true/summary.csv" "$work/cnb-false/summary.csv" <<'PY' && ok || fail "cnn baseline with and without CPU sharing differ"
import csv, sys
on, off = (list(csv.DictReader(open(f))) for f in sys.argv[1:])
assert len(on) == len(off) == 2 and off[1]["cpu_stretch"] == "" and float(on[1]["cpu_stretch"]) > 1, (on, off)
for a, b in zip(on, off):
    a.pop("cpu_stretch"), b.pop("cpu_stretch")
    assert a == b, (a, b)
PY
    cmp -s "$work/cnn-true/summary.csv" "$work/cnn-false/summary.csv" && fail "cnn: a sweep of given loader settings got no CPU sharing" || ok
    # the same on 2 and 3 ranks (the calibration, with its CPU-sharing statistics, is split over them)
    if [ "$have_mpi" = 1 ]; then
      for np in 2 3; do
        mpirun_t $np "$stallsim" run "$work/cn-true.ini" --out "$work/cn-np$np" --quiet || fail "cnn: np=$np exit status"
        same_file "$work/cn-true/summary.csv" "$work/cn-np$np/summary.csv" "cnn with CPU sharing on $np ranks"
      done
    fi
    /usr/bin/python3 - "$work" <<'PY' && ok || fail "cnn: CPU sharing"
import csv, sys
work = sys.argv[1]
points = [("w0-x1", "_w-0_p2_fs1_"), ("w2-x1", "_w-2_p2_fs1_"), ("w4-x1", "_w-4_p2_fs1_"), ("w1-x0.5", "_w-1_p2_fs0.5_"),
          ("w2-x0.5", "_w-2_p2_fs0.5_")]
mean = {}
for share in ("true", "false"):
    errs = []
    for real, pat in points:
        rows = list(csv.DictReader(open("%s/cn-%s-%s.csv" % (work, share, real))))
        r = float(rows[0]["iter_time_mean"])
        p = [float(x["iter_time_mean"]) for x in rows[1:] if pat in x["scenario"]][0]
        errs.append(100 * (p - r) / r)
    mean[share] = sum(abs(e) for e in errs) / len(errs)
    print("cnn, cpu_sharing = %s: %s, mean |error| %.1f %%" % (share, " ".join("%+.1f" % e for e in errs), mean[share]))
    if share == "true":
        assert max(abs(e) for e in errs) <= 12 and mean[share] <= 8, errs
assert mean["false"] >= 20, mean
PY
  else
    fail "datasets/pytorch-cnn/w1-x1.h5 is missing (committed with the repository)"
  fi
  # a third workload, recorded after CPU sharing was built (datasets/pytorch-zlib: 3 ranks,
  # zlib decoding): from the 1-worker trace, 0, 2, 3 workers and half the latency within 20 %
  # each and 10 % on average; rank 2 healed from the slow-rank trace within 5 % (both models)
  unseen_workload zlib pytorch-zlib 20 10 2 5 5 "w0:_w-0_pauto_fs1_ w2:_w-2_pauto_fs1_ w3:_w-3_pauto_fs1_ \
    w1-x0.5:_w-auto_pauto_fs0.5_ w2-x0.5:_w-2_pauto_fs0.5_"
  # a fourth, recorded after CPU sharing too (datasets/pytorch-bigbatch: 4 ranks, batch 64):
  # from the 1-worker trace, 0, 2, 3 workers and half the latency within 25 % each and 12 %
  # on average (3 workers, at 104 % load, is the large miss); rank 3 healed within 5 %
  # (pipeline) and 6 % (independent: -5.0 %)
  unseen_workload bigbatch pytorch-bigbatch 25 12 3 6 5 "w0:_w-0_pauto_fs1_ w2:_w-2_pauto_fs1_ w3:_w-3_pauto_fs1_ \
    half:_w-auto_pauto_fs0.5_"
  # the same workload recorded again with the recorder's format 3 (datasets/pytorch-bigbatch-b,
  # the waits for a core measured), on another machine: from the 1-worker trace within 30 %
  # each (3 workers, at 103 % load: -26.5 %) and 12 % on average; rank 3 healed within 8 %
  # (independent: -7.5 %) and 5 % (pipeline)
  unseen_workload bigbatch-b pytorch-bigbatch-b 30 12 3 8 5 "w0:_w-0_pauto_fs1_ w2:_w-2_pauto_fs1_ w3:_w-3_pauto_fs1_ \
    half:_w-auto_pauto_fs0.5_"
  # a fifth workload, a helper's own (datasets/pytorch-text: 2 ranks, persistent workers,
  # prefetch 4, tokenization in Python; format 3), loader-bound at every setting: from the
  # 1-worker trace within 8 % each (4 workers: +6.4 %) and 5 % on average; rank 1 healed
  # within 5 % by both models. Its "storage twice as fast" was +57 % before the refill gap
  # needed more than noise to be fitted (calibration)
  unseen_workload text pytorch-text 8 5 1 5 5 "w0:_w-0_pauto_fs1_ w2:_w-2_pauto_fs1_ w4:_w-4_pauto_fs1_ \
    half:_w-auto_pauto_fs0.5_"
  # a sixth, a helper's (datasets/pytorch-tail: 3 ranks, heavy-tailed storage latency, a
  # short last batch, compute-heavy steps; format 3): step-bound at 2+ workers with the cores
  # ~80 % busy: from the 1-worker trace (loader-bound, its steps mostly apart) within 25 %
  # each (4 workers -20.9 %; -27.4 % when the model took the steps as always together) and
  # 15 % on average, and run counts those scenarios above 85 % of the cores and marks them;
  # rank 2 healed within 10 % (independent -8.8 %: the other two GPUs' median per iteration
  # is never the largest of a heavy-tailed fetch) and 7 % (pipeline -5.4 %)
  unseen_workload tail pytorch-tail 25 15 2 10 7 "w0:_w-0_pauto_fs1_ w2:_w-2_pauto_fs1_ w4:_w-4_pauto_fs1_ \
    half:_w-auto_pauto_fs0.5_ w2-half:_w-2_pauto_fs0.5_"
  tl=$ds/pytorch-tail
  printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 2, 4\nprefetch = auto\n' "$tl/base.h5" > "$work/tl.ini"
  "$stallsim" run "$work/tl.ini" --out "$work/tl" > "$work/tl.out" 2>&1 || fail "tail: run"
  grep -q "2 scenarios would keep more than 85% of them busy, where real runs came out up to 21% slower" "$work/tl.out" &&
    grep -q "pipe W=4 .*of the cores: likely optimistic" "$work/tl.out" &&
    ok || fail "tail: the warnings of a near-saturated sweep: $(grep -i "optimistic" "$work/tl.out")"
  # the worker gap of a window-bound trace: from the 4-worker trace, 1 worker within 15 % (a
  # 4.2 ms gap fitted to the window's noise made it +25.2 %)
  one_prediction tl4 "$tl/w4.h5" 1 "$tl/base.h5"
  expect_within "$work/tl4.csv" 'pipeline_.*_w-1_.*' "$work/tl4.csv" 15 "tail: 1 worker from the 4-worker trace" &&
    ok || fail "tail: 1 worker from the 4-worker trace"
  # a seventh, a helper's (datasets/pytorch-seq: 2 ranks, variable-length batches, a rank
  # slow in its reads and one slow in its training step): from the loader-bound 1-worker
  # trace within 15 % each (2 workers -13.6 %: the step of the last rank to get its batch)
  # and 10 % on average; rank 1 healed within 5 % by both models
  unseen_workload seq pytorch-seq 15 10 1 5 5 "w0:_w-0_pauto_fs1_ w2:_w-2_pauto_fs1_ w3:_w-3_pauto_fs1_ \
    half:_w-auto_pauto_fs0.5_"
  # the rank slow in its training step: no heal is ranked as a fix (the pipeline model's list,
  # the independent model's left to --json), and run says that the stalls hardly limit the run
  printf '[trace]\npath = %s\n[scenarios]\nmodel = independent, pipeline\nprefetch = auto\nheal = none, each\n' \
    "$ds/pytorch-seq/cslow1.h5" > "$work/cs.ini"
  "$stallsim" run "$work/cs.ini" --out "$work/cs" > "$work/cs.out" 2>&1 || fail "seq: run on the compute-slow trace"
  grep -q "the largest stall is 4.0% of the iteration time: data loading hardly limits this run" "$work/cs.out" &&
    [ "$(grep -c '^  none stands out; 2 GPUs gain less than the error, or lose' "$work/cs.out")" = 1 ] &&
    grep -q "^  (the independent model's gains per GPU are not listed beside the pipeline model's" "$work/cs.out" &&
    ok || fail "seq: the compute-slow rank: $(grep -A2 'slowest loader\|GPUs to fix' "$work/cs.out")"
  # a tenth, a helper's (datasets/pytorch-vision: 4 ranks, JPEG decoding with PIL in the
  # loader, a 30 ms emulated accelerator step, persistent workers): from the 2-worker trace
  # within 7 % each (1 worker -6.3 %: -2.8 % while the calibration read a 1.6 ms worker gap
  # off the start-up rows of this window-bound trace, where its 1-worker runs measure
  # 0.3 ms; the 1-worker prediction leaned on it) and 4 % on average; rank 2 healed within
  # 10 % (independent -6.6 %) and 5 % (pipeline +2.3 %; +6.8 % when only the rows with
  # every step start together counted)
  unseen_workload vision pytorch-vision 7 4 2 10 5 "w0:_w-0_pauto_fs1_ w1:_w-1_pauto_fs1_ w4:_w-4_pauto_fs1_ \
    half:_w-auto_pauto_fs0.5_"
  # its run with rank 0 on 1 worker and the others on 2: every rank with 2 workers within
  # 6 % of the base run (-4.6 %; -7.7 % when the model took the steps as always together;
  # the base's four repeats spread 13 %, this against the first)
  vi=$ds/pytorch-vision
  one_prediction vi "$vi/uneven.h5" 2 "$vi/base.h5"
  expect_within "$work/vi.csv" 'pipeline_.*_w-2_.*' "$work/vi.csv" 6 "vision: every rank with 2 workers, from the uneven run" &&
    ok || fail "vision: every rank with 2 workers from the uneven run"
  # an eleventh, a helper's, recorded after the alignment was built (datasets/pytorch-spectra:
  # 3 ranks, CPU work in the loader and 5 ms of it in each step, the cores 62-85 % busy):
  # from the 2-worker trace within 10 % each (1 worker at half the latency -2.7 %) and 6 % on
  # average; rank 1 healed within 5 % (pipeline -4.0 %) and 25 % (independent -22.8 %: it keeps
  # the slow run's steps, which waited less for the cores than the base run's)
  unseen_workload spectra pytorch-spectra 10 6 1 25 5 "w0:_w-0_pauto_fs1_ w1:_w-1_pauto_fs1_ w3:_w-3_pauto_fs1_ \
    w4:_w-4_pauto_fs1_ half:_w-auto_pauto_fs0.5_ w1-x0.5:_w-1_pauto_fs0.5_"
  # an eighth, a helper's (datasets/pytorch-epochs: 4 ranks, 4 epochs whose reads get 3x
  # faster after the first, prefetch factor 1, a sleep as the accelerator): from the 2-worker
  # trace within 10 % each and 6 % on average; rank 3 healed within 5 % by both models
  unseen_workload epochs pytorch-epochs 10 6 3 5 5 "w1:_w-1_pauto_fs1_ w4:_w-4_pauto_fs1_ w6:_w-6_pauto_fs1_ \
    half:_w-auto_pauto_fs0.5_"
  # with prefetch factor 1 the worker gap of a window-bound trace cannot be told from the
  # refill gap: from the 6-worker trace, 1 worker within 10 % (a 32 ms worker gap fitted to
  # the window made it +74 %)
  ep=$ds/pytorch-epochs
  one_prediction ep6 "$ep/w6.h5" 1 "$ep/w1.h5"
  expect_within "$work/ep6.csv" 'pipeline_.*_w-1_.*' "$work/ep6.csv" 10 "epochs: 1 worker from the 6-worker trace (P = 1)" &&
    ok || fail "epochs: 1 worker from the 6-worker trace"
  # a ninth, a helper's (datasets/pytorch-sync: 6 ranks on 2 cores, a synchronous base):
  # storage twice as fast from the synchronous trace within 5 %; run says that a synchronous
  # trace cannot show the delivery cost and that the model's contention is far from the
  # measured one; rank 5 healed within 10 % of the first base run (the three base runs
  # spread 14 %) by both models
  sy=$ds/pytorch-sync
  printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 1\nprefetch = auto\nfetch_scale = 1, 0.5\n' "$sy/w0.h5" > "$work/sy.ini"
  "$stallsim" run "$work/sy.ini" --out "$work/sy" > "$work/sy.out" 2>&1 || fail "sync: run"
  "$stallsim" compare "$sy/half0.h5" "$work/sy" --csv "$work/sy.csv" >/dev/null || fail "sync: compare"
  expect_within "$work/sy.csv" 'pipeline_.*_w-auto_.*_fs0.5_.*' "$work/sy.csv" 5 "sync: storage twice as fast, synchronous" &&
    ok || fail "sync: storage twice as fast"
  grep -q "^note: every GPU loads synchronously in the trace (W = 0), so the trace cannot show the delivery cost" "$work/sy.out" &&
    grep -q "^note: the trace's fetches took 1.37x .* CPU sharing's model puts the contention at 2.72x" "$work/sy.out" &&
    ok || fail "sync: the notes: $(grep '^note' "$work/sy.out")"
  printf '[trace]\npath = %s\n[scenarios]\nmodel = independent, pipeline\nprefetch = auto\nheal = 5\n' "$sy/slow5.h5" > "$work/sy5.ini"
  "$stallsim" run "$work/sy5.ini" --out "$work/sy5" --quiet || fail "sync: heal run"
  "$stallsim" compare "$sy/w0.h5" "$work/sy5" --csv "$work/sy5.csv" >/dev/null || fail "sync: heal compare"
  for mdl in independent pipeline; do
    expect_within "$work/sy5.csv" "^$mdl.*_heal-5\$" "$work/sy5.csv" 10 "sync: $mdl, rank 5 healed" && ok || fail "sync: $mdl heal"
  done
  # the same fault on grid D: its 1-worker trace predicting the 1-worker run at half the
  # latency within 5 % (+45.8 % with the refill gap of 0.075 s once fitted on GPU 3)
  gd=$ds/pytorch-grid-d
  printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nfetch_scale = 0.5\n' "$gd/w1-x1-p2.h5" > "$work/gd-half.ini"
  "$stallsim" run "$work/gd-half.ini" --out "$work/gd-half" --quiet || fail "grid D: run from w1-x1-p2"
  "$stallsim" compare "$gd/w1-x0.5-p2.h5" "$work/gd-half" --csv "$work/gd-half.csv" >/dev/null || fail "grid D: compare"
  expect_within "$work/gd-half.csv" 'pipeline_.*_fs0.5_.*' "$work/gd-half.csv" 5 \
    "grid D: storage twice as fast from the 1-worker trace" && ok || fail "grid D: half the latency from w1-x1-p2"
  # the measured waits at work: from the busy 3-worker trace, 1 worker comes out closer to the
  # real run with them than from the same trace without them (the waits then count as
  # storage), and the calibration prints the measured stretch beside the model's, with a note
  bb=$ds/pytorch-bigbatch-b
  /usr/bin/python3 - "$bb/w3.h5" "$work/w3-nowait.h5" <<'PY' || fail "bigbatch-b: copy without waits"
import h5py, shutil, sys
shutil.copy(sys.argv[1], sys.argv[2])
f = h5py.File(sys.argv[2], "a")
del f["fetch_wait_time"], f["loop_wait_time"]
if "fetch_wait_start_time" in f:  # only with the waits
    del f["fetch_wait_start_time"]
PY
  one_prediction bbw-wait "$bb/w3.h5" 1 "$bb/base.h5"
  one_prediction bbw-nowait "$work/w3-nowait.h5" 1 "$bb/base.h5"
  /usr/bin/python3 - "$work/bbw-wait.csv" "$work/bbw-nowait.csv" <<'PY' && ok || fail "bigbatch-b: the measured waits do not bring 1 worker from the 3-worker trace closer"
import csv, sys
def err(path):
    rows = list(csv.DictReader(open(path)))
    p = [float(x["iter_time_mean"]) for x in rows[1:] if "_w-1_" in x["scenario"]][0]
    return 100 * (p / float(rows[0]["iter_time_mean"]) - 1)
w, n = err(sys.argv[1]), err(sys.argv[2])
print("bigbatch-b: 1 worker from the 3-worker trace %+.1f %% with the measured waits, %+.1f %% without" % (w, n))
assert abs(w) + 10 < abs(n), (w, n)
PY
  grep -q "measured stretch ((CPU time + wait for a core) / CPU time, from /fetch_wait_time and /loop_wait_time): fetches 5.73," "$work/bbw-wait.out" &&
    grep -q "^note: the trace's fetches took 5.73x their CPU time" "$work/bbw-wait.out" &&
    ! grep -q "measured stretch" "$work/bbw-nowait.out" && ok || fail "bigbatch-b: the measured stretch is not printed"
  # the tables of README's workloads come from validate_pytorch.sh --workloads: it runs and
  # prints the thirty of them, with the zlib base's mean as cli_real_runs computes it above
  if "$src/scripts/validation/validate_pytorch.sh" --workloads > "$work/workloads.txt" 2>&1; then ok; else fail "validate_pytorch.sh --workloads: $(tail -3 "$work/workloads.txt")"; fi
  [ "$(grep -c '^  mean |error| with CPU sharing' "$work/workloads.txt")" = 30 ] && ok || fail "validate_pytorch.sh --workloads: not thirty tables"
  grep -A8 '^zlib, from base:' "$work/workloads.txt" | grep -q 'mean |error| with CPU sharing: 9.6 %' && ok ||
    fail "validate_pytorch.sh --workloads: the zlib mean differs from cli_real_runs' 9.6 %"
  # the loader's start-up: bigbatch's workers (spawned, not persistent) start again every
  # epoch, seconds after the loop asks: run says so for a scenario with other workers, with
  # the mean over the calibration's epochs of each epoch's first row's largest stall
  # (recomputed here); grid D's forked workers start in milliseconds: no such note
  bb=$ds/pytorch-bigbatch/base.h5
  if [ -e "$bb" ] && [ -e "$ds/pytorch-grid-d/w2-x1-p2.h5" ]; then
    for t in "$bb" "$ds/pytorch-grid-d/w2-x1-p2.h5"; do
      printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, auto*2\n[output]\ndir = %s\n' \
        "$t" "$work/startup" > "$work/startup.ini"
      rm -rf "$work/startup"
      "$stallsim" run "$work/startup.ini" > "$work/startup-$(basename "$(dirname "$t")").out" 2>&1 || fail "startup: run $t"
    done
    /usr/bin/python3 - "$bb" "$work/startup-pytorch-bigbatch.out" "$work/startup-pytorch-grid-d.out" <<'PY' && ok ||
import re, sys
import h5py, numpy as np
text = open(sys.argv[2]).read()
m = re.search(r"^note: each epoch's first batch came ([\d.]+) s after the loop asked for it \(mean over the (\d+) epochs? the calibration read", text, re.M)
rows = int(re.search(r"calibration: \d+ GPUs, from the first (\d+) iterations", text).group(1))
t = h5py.File(sys.argv[1], "r")["timeline"]
ep, st = t["epoch"][:rows], t["stall_time"][:rows]
firsts = [k for k in range(rows) if k == 0 or ep[k] != ep[k - 1]]
want = float(np.mean([st[k].max() for k in firsts]))
print("bigbatch start-up: printed %s s over %s epochs, recomputed %.4f s over %d" % (m.group(1), m.group(2), want, len(firsts)))
assert abs(float(m.group(1)) - want) < 0.006 and int(m.group(2)) == len(firsts) and want > 0.5, (m.groups(), want)
assert "each epoch's first batch came" not in open(sys.argv[3]).read()
PY
      fail "the loader's start-up note: $(grep "first batch came" "$work"/startup-*.out)"
  fi
  # a streaming IterableDataset (datasets/pytorch-stream): from each 1-worker run every other
  # even-sharded run within 7 % and the table's mean within 4 % (2.2, 3.3 %); its uneven
  # shards (the short worker runs out at batch 66 of 101): run notes the baseline replay
  # (27.5 % off); its 4 workers with 2 shards: the trace keeps the 2 that delivered, prefetch
  # 4, and "2 workers" from it is the real 2-worker run with 2 shards within 2 % (+0.1 %;
  # +95 % when the trace said 4 workers)
  st=$ds/pytorch-stream
  if [ -e "$st/base.h5" ]; then
    for b in base base2; do
      grep -A18 "^stream, from $b:" "$work/workloads.txt" > "$work/stream-$b.txt"
      /usr/bin/python3 - "$work/stream-$b.txt" <<'PY' && ok || fail "stream from $b: $(cat "$work/stream-$b.txt")"
import re, sys
text = open(sys.argv[1]).read()
errs = [float(m.group(1)) for m in re.finditer(r"^  \S+\s+\S+\s+\S+\s+([-+][\d.]+)", text, re.M)]
mean = float(re.search(r"mean \|error\| with CPU sharing: ([\d.]+) %", text).group(1))
print("stream: %d predictions, worst %.1f %%, mean %.1f %%" % (len(errs), max(map(abs, errs)), mean))
assert len(errs) == 15 and max(map(abs, errs)) <= 7 and mean <= 4, (errs, mean)
PY
    done
    printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 2\n[output]\ndir = %s\n' \
      "$st/uneven-w2.h5" "$work/st-uneven" > "$work/st-uneven.ini"
    "$stallsim" run "$work/st-uneven.ini" > "$work/st-uneven.out" 2>&1 &&
      grep -q "^note: that baseline replay is [0-9.]*% off the measured run" "$work/st-uneven.out" && ok ||
      fail "stream, uneven shards: no note on the baseline: $(grep -A1 fidelity "$work/st-uneven.out")"
    /usr/bin/python3 -c "
import sys, h5py; a = h5py.File(sys.argv[1], 'r').attrs
assert list(a['loader_workers']) == [2, 2] and a['prefetch_factor'] == 4, dict(a)" "$st/shards2-w4.h5" && ok ||
      fail "stream, 2 shards for 4 workers: the trace's workers"
    printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = 2\n[output]\ndir = %s\n' \
      "$st/shards2-w4.h5" "$work/st-shards" > "$work/st-shards.ini"
    "$stallsim" run "$work/st-shards.ini" --quiet && "$stallsim" compare "$st/shards2-w2.h5" "$work/st-shards" \
      --csv "$work/st-shards.csv" > /dev/null &&
      expect_within "$work/st-shards.csv" "pipeline_.*_w-2_.*" "$work/st-shards.csv" 2 "stream: 2 workers from 4 with 2 shards" &&
      ok || fail "stream, 2 shards for 4 workers: 2 workers from it"
  fi
  # the start-up crush (grid E's 8 workers x prefetch 4: each epoch's first 32 fetches per
  # rank waited ~100 ms for a core): 1 worker from that trace within 10 % of the real run
  # with /fetch_wait_start_time, and more than 25 % too slow from the same trace without it
  # start_pair NAME TRACE "WORKERS" PREFETCH REAL...: sweeps of TRACE with and without its
  # /fetch_wait_start_time (NAME-start, NAME-nostart; their output in NAME-*.out), each set
  # against every REAL run (NAME-start-<real>.csv, NAME-nostart-<real>.csv; warm-up 10)
  start_pair() {
    local name=$1 trace=$2 workers=$3 prefetch=$4 v t r
    shift 4
    /usr/bin/python3 - "$trace" "$work/$name-nostart.h5" <<'PY' || fail "$name: copy without the start waits"
import h5py, shutil, sys
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "a") as f:
    del f["fetch_wait_start_time"]
PY
    for v in start nostart; do
      t=$trace; [ $v = nostart ] && t=$work/$name-nostart.h5
      printf '[trace]\npath = %s\nwarmup_iterations = 10\n[scenarios]\nmodel = pipeline\nworkers = %s\nprefetch = %s\n' \
        "$t" "$workers" "$prefetch" > "$work/$name-$v.ini"
      "$stallsim" run "$work/$name-$v.ini" --out "$work/$name-$v" > "$work/$name-$v.out" 2>&1 || fail "$name: run ($v)"
      for r in "$@"; do
        "$stallsim" compare "$r" "$work/$name-$v" --warmup 10 --csv "$work/$name-$v-$(basename "$r" .h5).csv" >/dev/null ||
          fail "$name: compare $r ($v)"
      done
    done
  }
  ge=$ds/pytorch-grid-e
  if [ -e "$ge/w8-x0.5-p4.h5" ]; then
    start_pair e8 "$ge/w8-x0.5-p4.h5" 1 4 "$ge/w1-x0.5-p4.h5"
    expect_within "$work/e8-start-w1-x0.5-p4.csv" 'pipeline_.*_w-1_.*' "$work/e8-start-w1-x0.5-p4.csv" 10 \
      "grid E: 1 worker from the 8-worker trace (start-up waits)" && ok || fail "grid E: 1 worker from w8 with the start waits"
    ! expect_within "$work/e8-nostart-w1-x0.5-p4.csv" 'pipeline_.*_w-1_.*' "$work/e8-nostart-w1-x0.5-p4.csv" 25 \
      "grid E: the same without /fetch_wait_start_time" && ok || fail "grid E: without the start waits it was not worse"
    # and run says what is missing there (only there)
    grep -q "^note: the trace has the waits for a core but not /fetch_wait_start_time" "$work/e8-nostart.out" &&
      ! grep -q "fetch_wait_start_time" "$work/e8-start.out" && ok || fail "grid E: the note on a trace without the start waits"
  fi
  # grid E's all pairs (validate_pytorch.sh --pairs): mean |error| within 5 % (4.24 %; 6.05 %
  # before the first window of an epoch), and at least 190 of the 306 within 5 % (208)
  if [ -e "$ge/w8-x0.5-p4.h5" ]; then
    "$src/scripts/validation/validate_pytorch.sh" --pairs --dir "$ge" > "$work/pairs-e.txt" 2>&1 || fail "validate_pytorch.sh --pairs: $(tail -3 "$work/pairs-e.txt")"
    /usr/bin/python3 - "$work/pairs-e.txt" <<'PY' && ok || fail "grid E all pairs: $(cat "$work/pairs-e.txt")"
import re, sys
text = open(sys.argv[1]).read()
n = int(re.search(r"(\d+) predictions", text).group(1))
m = re.search(r"mean \|error\| of the iteration time ([\d.]+) %, (\d+) within 5 %", text)
print("grid E, all pairs: %d predictions, mean |error| %s %%, %s within 5 %%" % (n, m.group(1), m.group(2)))
assert n == 306 and float(m.group(1)) <= 5.0 and int(m.group(2)) >= 190, (n, m.groups())
PY
  fi
  # the prefetch factor on a new user's bursty storage (datasets/pytorch-bursty: 5 % of the
  # samples 30-60 ms): from the prefetch-2 trace, prefetch 1 within 2 % (+0.3 %), 4 and 8
  # within 4 % (-2.6, -1.5 %), and its table's mean within 2 % (1.1 %)
  grep -A7 '^bursty, from w2p2:' "$work/workloads.txt" > "$work/bursty.txt"
  /usr/bin/python3 - "$work/bursty.txt" <<'PY' && ok || fail "bursty: prefetch from the prefetch-2 trace: $(cat "$work/bursty.txt")"
import re, sys
text = open(sys.argv[1]).read()
err = {m.group(1): float(m.group(2)) for m in re.finditer(r"^  (w\d+p\d+b?)\s+\S+\s+\S+\s+([-+][\d.]+)", text, re.M)}
mean = float(re.search(r"mean \|error\| with CPU sharing: ([\d.]+) %", text).group(1))
print("bursty, from w2p2: %s, mean %.1f %%" % (err, mean))
assert abs(err["w2p1"]) <= 2 and abs(err["w2p4"]) <= 4 and abs(err["w2p8"]) <= 4 and mean <= 2, (err, mean)
PY
  # the same on a new user's workload it was not built on (datasets/pytorch-wave: numpy FFTs
  # in the loader, 8 workers x prefetch 4 on 2 cores): 1 and 2 workers from the 8-worker
  # trace within 10 % (-1.1, +7.4 % with warm-up 10); without /fetch_wait_start_time more
  # than 20 % slow (+32.2, +22.2 %)
  wv=$ds/pytorch-wave
  if [ -e "$wv/w8p4.h5" ]; then
    start_pair wv "$wv/w8p4.h5" "1, 2" 2 "$wv/w1p2.h5" "$wv/w2p2.h5"
    for w in 1 2; do
      expect_within "$work/wv-start-w${w}p2.csv" "pipeline_.*_w-${w}_.*" "$work/wv-start-w${w}p2.csv" 10 \
        "wave: $w worker(s) from the 8-worker trace" && ok || fail "wave: $w worker(s) from w8p4"
      ! expect_within "$work/wv-nostart-w${w}p2.csv" "pipeline_.*_w-${w}_.*" "$work/wv-nostart-w${w}p2.csv" 20 \
        "wave: the same without /fetch_wait_start_time" && ok || fail "wave: without the start waits $w worker(s) was not worse"
    done
  fi
  # training on the CPU (datasets/pytorch-cputrain): 4 workers from the 1-worker trace within
  # 5 % of the real run, at a high load that stays under all of the cores (not flagged)
  ct=$ds/pytorch-cputrain
  printf '[trace]\npath = %s\nwarmup_iterations = 10\n[scenarios]\nmodel = pipeline\nworkers = 4\n' "$ct/w1.h5" > "$work/ct.ini"
  "$stallsim" run "$work/ct.ini" --out "$work/ct" --quiet || fail "cputrain: run"
  "$stallsim" compare "$ct/w4.h5" "$work/ct" --warmup 10 --csv "$work/ct.csv" >/dev/null || fail "cputrain: compare"
  expect_within "$work/ct.csv" 'pipeline_.*_w-4_.*' "$work/ct.csv" 5 "training on the CPU: 4 workers from the 1-worker trace" &&
    ok || fail "cputrain: 4 workers"
  /usr/bin/python3 - "$work/ct/summary.csv" <<'PY' && ok || fail "cputrain: cpu_load_pct not between 50 and 100 %"
import csv, sys
load = [float(r["cpu_load_pct"]) for r in csv.DictReader(open(sys.argv[1])) if "_w-4_" in r["scenario"]][0]
print("training on the CPU: cpu_load_pct of the 4-worker prediction %.0f %%" % load)
assert 50 < load < 100, load
PY
  # two faults (datasets/pytorch-twofaults): from the base run, the pipeline model ranks rank 1
  # (slow storage) before rank 3 (a CPU-heavy loader, which no stall shows), and predicts each
  # fixed run within 7 % of its first recording (storage +6.3, CPU +3.2 %; the recordings of
  # each differ by up to 1.7 %); run names the CPU-heavy loader; both fixed together
  # (heal = 1+3) within 10 % of the first real run without either fault (+5.1 %; the two real
  # runs without them differ by 9 %)
  tf=$ds/pytorch-twofaults
  printf '[trace]\npath = %s\nwarmup_iterations = 10\n[scenarios]\nmodel = pipeline\nheal = none, each, 1+3\n' "$tf/base.h5" > "$work/tf.ini"
  "$stallsim" run "$work/tf.ini" --out "$work/tf" --json > "$work/tf.json" 2>/dev/null || fail "twofaults: run"
  "$stallsim" run "$work/tf.ini" --out "$work/tf" > "$work/tf.txt" 2>&1 || fail "twofaults: run"
  /usr/bin/python3 -c "
import json; h = [x for x in json.load(open('$work/tf.json'))['ranking']['heal'] if x['ranked']]
assert [x['gpu'] for x in h] == [1, 3], h
# each ranked cut's flags as the terminal marks them: optimistic above 100 %, likely above 85 %
top = json.load(open('$work/tf.json'))['ranking']['top']
assert top and all(x['optimistic'] == (x['cpu_load_pct'] > 100) and x['likely_optimistic'] == (x['cpu_load_pct'] > 85)
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
  "$stallsim" run "$work/ts.ini" --out "$work/ts" --quiet || fail "twoslow: run"
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
else
  fail "datasets/pytorch-storage/w1-x1.h5 or w1-x0.5.h5 is missing (committed with the repository)"
fi

# ranks that all-reduce only every 4 steps (datasets/pytorch-accum): run's note on the
# traces whose ranks drift apart (a slow rank), none on the balanced ones or on grid F's base
# (with the pipeline model from the calibration, with the independent one without it)
for t in pytorch-accum/slow:1:pipeline pytorch-accum/w4:1:pipeline pytorch-accum/healthy:0:pipeline \
         pytorch-accum/healthy-w4:0:pipeline pytorch-grid-f/w2-x1-p2:0:pipeline pytorch-accum/slow:1:independent \
         pytorch-accum/healthy:0:independent pytorch-grid-f/w2-x1-p2:0:independent; do
  IFS=: read -r f want model <<<"$t"
  [ -e "$ds/$f.h5" ] || { fail "missing $f.h5"; continue; }
  printf '[trace]\npath = %s\n[scenarios]\nmodel = %s\n' "$ds/$f.h5" "$model" > "$work/lock.ini"
  "$stallsim" run "$work/lock.ini" --out "$work/lock" > "$work/lock.txt" 2>&1 || { fail "run $f (lockstep)"; continue; }
  n=$(grep -c "^note: the GPUs' loops ask for their batches .* the ranks do not step together" "$work/lock.txt")
  [ "$n" = "$want" ] && ok || fail "not-lockstep note on $f ($model): $n, want $want"
done

# with [pipeline] sync_every = 4 the pipeline model replays that job: from the slow trace,
# rank 1 healed, 4 workers and both within 5 % (+3.7, -1.1, -0.1 %; +215, +65, +298 % with
# every step synchronised), the baseline within 1 %
ac=$ds/pytorch-accum
printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 4\nheal = none, 1\n[pipeline]\nsync_every = 4\n' \
  "$ac/slow.h5" > "$work/acc.ini"
if "$stallsim" run "$work/acc.ini" --out "$work/acc" > "$work/acc.txt" 2>&1; then
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
  "$stallsim" run "$work/bl-$b.ini" --out "$work/bl-$b" --quiet 2>/dev/null || { fail "breakloop: run from $b"; continue; }
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
    "$stallsim" run "$work/ff-$b.ini" --out "$work/ff-$b" > "$work/ff-$b.txt" 2>&1 || fail "fixfirst: run from $b"
    grep -A1 "^GPUs to fix first, pipeline model" "$work/ff-$b.txt" | grep -q "^  GPU 2 -[0-9.]*% .*; 3 other GPUs gain less" && ok ||
      fail "fixfirst $b: the ranking: $(grep -A2 'GPUs to fix first' "$work/ff-$b.txt")"
    /usr/bin/python3 - "$work/ff-$b/summary.csv" "$ff" "" "$src/tests" <<'PY' && ok || fail "fixfirst: predictions from $b"
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
    "$stallsim" run "$work/ah-$b.ini" --out "$work/ah-$b" --quiet 2>"$work/ah-$b.err" || fail "ahead: run from $b: $(cat "$work/ah-$b.err")"
    /usr/bin/python3 - "$work/ah-$b/summary.csv" "$ah" "$b" "$src/tests" <<'PY' && ok || fail "ahead: predictions from $b"
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
      "$stallsim" run "$work/dk-$b-$n.ini" --out "$work/dk-$b-$n" --quiet 2>"$work/dk-$b-$n.err" ||
        fail "disk: run from $b, storage_parallel = $n: $(cat "$work/dk-$b-$n.err")"
    done
    /usr/bin/python3 - "$work/dk-$b" "$dk" "$b" "$src/tests" <<'PY' && ok || fail "disk: storage sharing from $b"
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
    "$stallsim" run "$work/sp-$b.ini" --out "$work/sp-$b" --quiet || fail "spread: run from $b"
  done
  (cd "$work" && "$stallsim" compare sp-base1 sp-base2 "$sd"/w1.h5 "$sd"/w1b.h5 "$sd"/w4.h5 "$sd"/w4b.h5 --match --spread) \
    > "$work/sp.txt" || fail "spread: compare"
  /usr/bin/python3 - "$work" "$sd" "$src/tests" <<'PY' && ok || fail "spread: $(cat "$work/sp.txt")"
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
            want = r"%.4f\s+%.4f\s+%s%%\s+sp-%s: pipe f=none s=none W=%d P=2" % (real_t, pb, re.escape("%+.1f" % e), b, w)
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
    "$stallsim" run "$work/fft-$b.ini" --out "$work/fft-$b" > "$work/fft-$b.txt" || fail "fft: run from $b"
  done
  /usr/bin/python3 - "$work" "$fd" "$src/tests" <<'PY' && ok || fail "fft: $(grep -A3 'largest predicted' "$work/fft-base1.txt")"
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
    "$stallsim" run "$work/fi-$b.ini" --out "$work/fi-$b" --quiet || fail "files: run from $b"
  done
  /usr/bin/python3 - "$work" "$fd" "$src/tests" <<'PY' && ok || fail "files: predictions from each base"
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
# a trace without the recorder's CPU and wait datasets (as another recorder's or an
# importer's): run notes that CPU sharing is off where a scenario changes the load, not
# for the baseline alone nor on the full trace; grid H so stripped predicts as README says
# (mean 5.0 % where the full traces give 2.7 %, the slow rank healed -18.5 %)
gh=$ds/pytorch-grid-h
if [ -e "$gh/w2-x1-p2.h5" ]; then
  mkdir -p "$work/strip"
  cp "$gh"/w*.h5 "$work/strip/"
  /usr/bin/python3 - "$work/strip" <<'PY' || fail "strip grid H"
import glob, sys
import h5py
for p in glob.glob(sys.argv[1] + "/*.h5"):
    with h5py.File(p, "a") as f:
        for k in list(f.keys()):
            if k != "timeline":
                del f[k]
PY
  for t in "$work/strip/w2-x1-p2.h5:1, 2:1" "$work/strip/w2-x1-p2.h5:auto:0" "$gh/w2-x1-p2.h5:1, 2:0"; do
    IFS=: read -r tr w want <<< "$t"
    printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = %s\n' "$tr" "$w" > "$work/nocpu.ini"
    n=$("$stallsim" run "$work/nocpu.ini" --out "$work/nocpu" 2>&1 | grep -c "^note: the trace records no CPU times of its fetches and training loops" || true)
    [ "$n" -eq "$want" ] && ok || fail "no-CPU note on $tr, workers = $w: $n lines, want $want"
  done
  "$src/scripts/validation/validate_pytorch.sh" --dir "$work/strip" > "$work/strip.txt" 2>&1 || fail "grid H stripped: validate"
  /usr/bin/python3 - "$work/strip.txt" <<'PY' && ok || fail "grid H stripped: $(cat "$work/strip.txt")"
import re, sys
text = open(sys.argv[1]).read()
mean = float(re.search(r"mean \|error\| of the iteration time over the 17 other points: ([\d.]+) %", text).group(1))
healed = [float(m.group(1)) for m in re.finditer(r"^  pipeline\S+_heal-3\s+\S+\s+healed\*\s+([-+][\d.]+)", text, re.M)]
print("grid H without CPU datasets: mean |error| %.1f %%, healed %s %%" % (mean, healed))
assert mean == 5.0 and healed == [-18.5, -18.5], (mean, healed)
PY
fi
finish
