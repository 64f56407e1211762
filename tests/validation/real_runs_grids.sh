#!/usr/bin/env bash
# real_runs_grids.sh - the models against the committed grids of real PyTorch runs
# (datasets/pytorch-grid-*: scripts/workloads/pytorch_bench.py's workloads, every loader
# setting of each): the calibrated pipeline baseline within 1 % of the measured mean, the
# slow rank healed within 5 % of the real run without it (grids B, C and D), each grid's
# predictions from its base trace (validate_pytorch.sh), the training processes' alignment,
# the "loaders now ahead" marks, the start-up waits (grid E) and a trace without the
# recorder's CPU datasets (grid H).
. "$(dirname "$0")/../lib/lib_real_runs.sh" "$@"
for g in b c d; do
  d=$ds/pytorch-grid-$g
  [ -e "$d/w2-x1-p2-slow3.h5" ] || continue
  for t in w2-x1-p2 w2-x1-p2-slow3; do
    printf '[trace]\npath = %s\nwarmup_iterations = 10\n[scenarios]\nmodel = independent, pipeline\nheal = none, 3\n' "$d/$t.h5" > "$work/$g-$t.ini"
    "$stallsim" run --explain --verbose "$work/$g-$t.ini" --out "$work/$g-$t" --quiet || fail "grid $g: run $t"
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
  "$stallsim" info --verbose "$ds/$t.h5" > "$work/align.txt" 2>&1 || fail "info $t"
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
  "$stallsim" run --explain --verbose "$work/ahead.ini" --out "$work/ahead" > "$work/ahead.txt" 2>&1 &&
    "$stallsim" run --explain --verbose "$work/ahead.ini" --out "$work/ahead-json" --json > "$work/ahead.json" 2>/dev/null ||
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
    for end in ("change_lo_pct", "change_hi_pct"):  # the interval in results.h5 is the JSON's
        j5, jj = float(h5top[end][k]), jtop[k][end]
        assert (np.isnan(j5) and jj is None) or abs(j5 - jj) < 1e-6 * max(1.0, abs(jj)), (end, j5, jj)
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
# the same fault on grid D: its 1-worker trace predicting the 1-worker run at half the
# latency within 5 % (+45.8 % with the refill gap of 0.075 s once fitted on GPU 3)
gd=$ds/pytorch-grid-d
printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nfetch_scale = 0.5\n' "$gd/w1-x1-p2.h5" > "$work/gd-half.ini"
"$stallsim" run --explain --verbose "$work/gd-half.ini" --out "$work/gd-half" --quiet || fail "grid D: run from w1-x1-p2"
"$stallsim" compare "$gd/w1-x0.5-p2.h5" "$work/gd-half" --csv "$work/gd-half.csv" >/dev/null || fail "grid D: compare"
expect_within "$work/gd-half.csv" 'pipeline_.*_fs0.5_.*' "$work/gd-half.csv" 5 \
  "grid D: storage twice as fast from the 1-worker trace" && ok || fail "grid D: half the latency from w1-x1-p2"
# the start-up crush (grid E's 8 workers x prefetch 4: each epoch's first 32 fetches per
# rank waited ~100 ms for a core): 1 worker from that trace within 10 % of the real run
# with /fetch_wait_start_time, and more than 25 % too slow from the same trace without it
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
    n=$("$stallsim" run --explain --verbose "$work/nocpu.ini" --out "$work/nocpu" 2>&1 | grep -c "^note: the trace records no CPU times of its fetches and training loops" || true)
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
