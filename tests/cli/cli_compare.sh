#!/usr/bin/env bash
# cli_compare.sh - `stallsim compare` and `run --json`: the FusionFlow measured trace
# against its 9-scenario sweep gives the published numbers and their differences; a trace
# compared with itself gives zero differences; mismatched inputs give clear errors.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3
ref=$shared/reference/fusionflow-4gpu
prefix=$ref/fsNprepNloadNtrain_openimage_randaugment_resnet50_epoch2_b2048_worker12_thread0
have_ref=1
if [ -e "$prefix.csv" ]; then
  "$stallsim" import dsanalyzer "$prefix" -o "$work/ff.h5" >/dev/null || fail "import"
else
  echo "note: no reference trace at $ref: published-number checks skipped, the rest runs on a generated trace"
  have_ref=0
  "$stallsim" gen -o "$work/ff.h5" --gpus 4 --iterations 300 --seed 8 >/dev/null || fail "gen"
fi
cat > "$work/ff.ini" <<INI
[trace]
path = ff.h5
[scenarios]
fetch_align = none, avg, min
start_align = none, avg, min
INI
"$stallsim" run "$work/ff.ini" --out "$work/sweep" --quiet || fail "sweep"
"$stallsim" compare "$work/ff.h5" "$work/sweep" --csv "$work/cmp.csv" > "$work/cmp.txt" || fail "compare"
# the terminal table labels every scenario as run's table does (its model and the settings
# that not every scenario of its source has; those are said once under the table): each
# full label of the CSV comes back from one row and that line, and no two rows look alike
printf '[trace]\npath = ff.h5\n[scenarios]\nmodel = pipeline\nworkers = auto, auto*2\n' > "$work/long.ini"
"$stallsim" run "$work/long.ini" --out "$work/long" --quiet || fail "pipeline sweep"
"$stallsim" compare "$work/ff.h5" "$work/long" --csv "$work/long.csv" > "$work/long.txt" || fail "compare long names"
$py - "$work/long.csv" "$work/long.txt" <<'PY' && ok || fail "compare table's scenario labels: $(cat "$work/long.txt")"
import csv, re, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["source"].endswith("long") and r["scenario"] != "measured"]
full = [r["label"] for r in rows]
text = open(sys.argv[2]).read()
shown = [m.group(1) for m in re.finditer(r"^long\s+(.+?)\s+\d+\s+\d+\.\d+", text, re.M) if m.group(1) != "measured"]
common = re.search(r"^every pipe row of long has (.+) \(not repeated in its label", text, re.M).group(1).split()
assert len(full) == 2 and len(shown) == 2 and len(set(shown)) == 2, (full, shown)
for f, n in zip(full, shown):
    parts = f.split()
    assert parts[0] == "pipe" and n.split() == [parts[0]] + [p for p in parts[1:] if p not in common], (f, n, common)
    assert sorted(parts[1:]) == sorted(n.split()[1:] + common), (f, common)
# each abbreviation of the labels is defined once, under the table, by the model's legend
legends = re.findall(r"^pipe: (.+)$", text, re.M)
assert len(legends) == 1, legends
for part in [p for f in full for p in f.split()[1:]]:
    key = part.split("=")[0]
    assert re.search(r"(^|[ ;,]) ?%s= \w" % re.escape(key), legends[0]), (key, legends[0])
PY
# values that differ only past 6 digits are labelled apart, as they are named apart
"$stallsim" run "$work/long.ini" --set scenarios.workers=auto --set scenarios.fetch_scale=0.1,0.1000000001 --out "$work/close" --quiet &&
  $py -c "
import csv; rows = list(csv.DictReader(open('$work/close/summary.csv')))[1:]
assert len({r['label'] for r in rows}) == 2 and rows[1]['label'].endswith('fs=0.1000000001 cs=1'), rows" && ok ||
  fail "labels of close values"
# a results.h5 of an older stallsim, without labels: the names stand for them, shortened alike
rm -rf "$work/old" && cp -r "$work/long" "$work/old"
$py -c "
import h5py, numpy.lib.recfunctions as rf
f = h5py.File('$work/old/results.h5', 'r+'); d = rf.drop_fields(f['summary'][()], ['label'])
del f['summary']; f.create_dataset('summary', data=d)" || fail "python edits"
"$stallsim" compare "$work/ff.h5" "$work/old" > "$work/old.txt" &&
  grep -q "^every pipeline scenario of old also has .* in its name (summary.csv: the full names)" "$work/old.txt" &&
  grep -q "^old *pipeline_w-" "$work/old.txt" && ! grep -q "^pipe: " "$work/old.txt" && ok || fail "compare, no labels: $(cat "$work/old.txt")"

# every published mean (4 decimals) appears in the compare CSV, with its difference
# against the measured trace; the columns are looked up by name
[ $have_ref -eq 1 ] && { $py - "$work/cmp.csv" "$ref/total_summary.csv" <<'PY' && ok || fail "compare vs published numbers"; }
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
pub = list(csv.DictReader(open(sys.argv[2])))
assert rows[0]["source"].endswith("ff.h5") and rows[0]["scenario"] == "measured", rows[0]
base = {k: float(rows[0][k]) for k in ("iter_time_mean", "stall_mean", "delay_mean", "effective_delay_pct")}
name = {"False": "none", "avg": "avg", "min": "min"}
by = {r["scenario"]: r for r in rows[1:]}
pairs = {"iter_time_mean": "Avg iteration time (sec)", "stall_mean": "Avg training stall time (sec)",
         "delay_mean": "Avg delay time (sec)"}
for p in pub:
    fa, sa = p["Align"].replace("FETCH_ALIGN_", "").split("_START_ALIGN_")
    r = by["independent_fetch-%s_start-%s" % (name[fa], name[sa])]
    for col, pcol in pairs.items():
        mean = float(p[pcol].split("\u00b1")[0])
        got = float(r[col])
        assert abs(got - mean) <= 0.5e-4 + 1e-12, (col, got, mean)
        diff = float(r[col.replace("_mean", "_diff")])
        assert abs(diff - (got - base[col])) < 1e-12, (col, diff)
        pct = float(r[col.replace("_mean", "_diff_pct")])
        assert abs(pct - 100 * (got / base[col] - 1)) < 1e-9, (col, pct)
    assert abs(float(r["effective_delay_pct"]) - float(p["Effective Delay time (%)"])) < 1e-9
# the measured trace and the sweep's measured and baseline rows agree exactly
for k in ("measured", "independent_fetch-none_start-none"):
    for col in ("iter_time_diff", "stall_diff", "delay_diff", "effective_delay_pct_diff"):
        assert float(by[k][col]) == 0.0, (k, col, by[k][col])
PY

# a trace compared with itself: every difference is zero
"$stallsim" compare "$work/ff.h5" "$work/ff.h5" --csv "$work/self.csv" >/dev/null || fail "self compare"
$py - "$work/self.csv" <<'PY' && ok || fail "self compare differences"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 2
for r in rows:
    for k, v in r.items():
        if k.endswith("_diff") or k.endswith("_diff_pct") or k.endswith("pct_diff"):
            if v == "" and k.endswith("_diff_pct"):
                continue  # a percentage of a zero mean is not defined
            if v == "" and r[k[:-len("_diff")]] == "":
                continue  # a value the trace does not record (cpu_load_pct)
            assert float(v) == 0.0, (k, v)
PY
grep -q "differences are against the first row" "$work/cmp.txt" && ok || fail "table footer"
# a CSV whose folder does not exist is refused before the table is printed
"$stallsim" compare "$work/ff.h5" --csv "$work/nodir/x.csv" > "$work/nd.txt" 2> "$work/nd.err"; rc=$?
[ "$rc" -eq 1 ] && [ ! -s "$work/nd.txt" ] && grep -q "nodir/x.csv: cannot write: the folder .*nodir does not exist" "$work/nd.err" &&
  ok || fail "--csv into a missing folder: status $rc, $(cat "$work/nd.err")"

# --json: the same numbers as summary.csv
"$stallsim" run "$work/ff.ini" --out "$work/sweep-json" --json > "$work/s.json" || fail "run --json"
$py - "$work/s.json" "$work/sweep/summary.csv" <<'PY' && ok || fail "--json differs from summary.csv"
import csv, json, sys
doc = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
assert doc["gpus"] == 4 and len(doc["scenarios"]) == len(rows) == 10
for j, r in zip(doc["scenarios"], rows):
    assert j["scenario"] == r["scenario"]
    for k in ("iter_time_mean", "stall_std", "delay_mean", "effective_delay_pct"):
        assert float(r[k]) == j[k], (k, r[k], j[k])
PY

# a trace of zero durations: the changes against its zero mean are undefined, null in the
# JSON (which has no inf), empty in summary.csv
"$stallsim" gen -o "$work/z.h5" --gpus 2 --iterations 30 --workers 1 --fetch-mean 0.05 --compute-mean 0.02 >/dev/null
$py -c "
import h5py; f = h5py.File('$work/z.h5', 'r+')
for c in ('fetch_time', 'iteration_time', 'stall_time'): f['timeline/' + c][...] = 0.0" || fail "python edits"
printf '[trace]\npath = %s\nwarmup_iterations = 0\n[scenarios]\nmodel = pipeline\n' "$work/z.h5" > "$work/z.ini"
"$stallsim" run "$work/z.ini" --out "$work/z" --json > "$work/z.json" 2>/dev/null || fail "run --json, zero durations"
$py - "$work/z.json" "$work/z/summary.csv" <<'PY' && ok || fail "zero durations: JSON or CSV"
import csv, json, sys
def refuse(c):
    raise ValueError(c)
j = json.loads(open(sys.argv[1]).read(), parse_constant=refuse)
assert j["scenarios"][1]["iter_time_change_pct"] is None, j["scenarios"][1]
rows = list(csv.DictReader(open(sys.argv[2])))
assert rows[1]["iter_time_change_pct"] == "" and "inf" not in open(sys.argv[2]).read(), rows
PY

# a difference in % against 0 (the delay of a 1-GPU trace is always 0) is shown as -, not nan
"$stallsim" gen -o "$work/one.h5" --gpus 1 --iterations 40 >/dev/null
printf '[trace]\npath = %s\n[scenarios]\nfetch_align = none\n' "$work/one.h5" > "$work/one.ini"
"$stallsim" run "$work/one.ini" --out "$work/one" --quiet && "$stallsim" compare "$work/one.h5" "$work/one" > "$work/one.txt" &&
  ! grep -qi "nan" "$work/one.txt" && grep -q "0.0000        -" "$work/one.txt" && ok || fail "diff% against 0: $(cat "$work/one.txt")"

# h5dump reads what stallsim writes
if command -v h5dump >/dev/null; then
  h5dump -H "$work/ff.h5" > /dev/null && ok || fail "h5dump cannot read a trace"
  h5dump -d /summary "$work/sweep/results.h5" > /dev/null && ok || fail "h5dump cannot read results.h5"
fi

# errors: different GPU counts, a missing folder, a folder without results, bad options
"$stallsim" gen -o "$work/g2.h5" --gpus 2 --iterations 40 --seed 1 >/dev/null
"$stallsim" compare "$work/ff.h5" "$work/g2.h5" 2> "$work/err"; rc=$?
[ $rc -eq 1 ] && grep -q "has 2 GPUs but" "$work/err" && ok || fail "GPU mismatch: rc=$rc $(cat "$work/err")"
"$stallsim" compare "$work/ff.h5" "$work/nothere" 2> "$work/err"; rc=$?
[ $rc -eq 1 ] && grep -q "nothere: no such file or folder" "$work/err" && ok || fail "missing folder: rc=$rc"
mkdir -p "$work/empty"
"$stallsim" compare "$work/empty" 2> "$work/err"; rc=$?
[ $rc -eq 1 ] && grep -q "empty: folder holds no results.h5" "$work/err" && ok || fail "empty folder: rc=$rc"
# a results.h5 whose /summary lacks a column (an older stallsim's, or damaged): a number it
# lacks is shown as - (was 0, with a difference made from it); a name it lacks is an error
for col in cpu_load_pct scenario; do
  rm -rf "$work/lack" && cp -r "$work/sweep" "$work/lack"
  $py -c "
import h5py, numpy.lib.recfunctions as rf
f = h5py.File('$work/lack/results.h5', 'r+'); d = rf.drop_fields(f['summary'][()], ['$col'])
del f['summary']; f.create_dataset('summary', data=d)" || fail "python edits"
  "$stallsim" compare "$work/lack" --csv "$work/lack.csv" > "$work/out" 2> "$work/err"; rc=$?
  if [ $col = scenario ]; then
    [ $rc -eq 1 ] && grep -q "lack/results.h5: /summary has no column 'scenario'" "$work/err" && ok || fail "no scenario column: rc=$rc $(cat "$work/err")"
  else
    [ $rc -eq 0 ] && $py -c "
import csv; rows = list(csv.DictReader(open('$work/lack.csv')))
assert rows and all(r['cpu_load_pct'] == '' for r in rows), rows" && ok || fail "no cpu_load_pct column: rc=$rc $(cat "$work/err")"
  fi
done
"$stallsim" compare "$work/ff.h5" --warmup x 2> "$work/err"; rc=$?
[ $rc -eq 2 ] && grep -q "compare: --warmup .x. must be a whole number" "$work/err" && ok || fail "bad --warmup: rc=$rc $(cat "$work/err")"
"$stallsim" compare "$work/ff.h5" --warmup 99999999999999999999 2> "$work/err"; rc=$?
[ $rc -eq 2 ] && grep -q "compare: --warmup .99999999999999999999. is out of range (a whole number of at most 18 digits)" "$work/err" && ok ||
  fail "a --warmup too large for a long: rc=$rc $(cat "$work/err")"
"$stallsim" compare "$work/ff.h5" --warmup 900 2> "$work/err"; rc=$?
[ $rc -eq 2 ] && grep -q "stallsim: --warmup 900: no iteration of the trace $work/ff.h5 has an index that high: nothing to summarise (the epochs are shorter than the warm-up left out; set --warmup lower" "$work/err" && ok ||
  fail "empty selection: rc=$rc $(cat "$work/err")"
"$stallsim" compare "$work/ff.h5" --epoch 7 2> "$work/err"; rc=$?
[ $rc -eq 2 ] && grep -q "stallsim: --epoch 7: the trace $work/ff.h5 has no epoch 7 (its epochs: " "$work/err" && ok || fail "a missing epoch: rc=$rc $(cat "$work/err")"
# like with like: a trace beside a sweep summarised with other settings is summarised as
# that sweep was; sweeps with different settings are refused
"$stallsim" gen -o "$work/w.h5" --gpus 3 --iterations 200 --seed 3 >/dev/null || fail "gen w"
printf '[trace]\npath = w.h5\nwarmup_iterations = 40\nepoch = 1\n[summary]\neffective_delay_threshold = 0.01\n' > "$work/w.ini"
"$stallsim" run "$work/w.ini" --out "$work/w40" --quiet || fail "sweep w40"
"$stallsim" compare "$work/w.h5" "$work/w40" --csv "$work/w.csv" >/dev/null || fail "compare w"
$py - "$work/w.csv" <<'PY' && ok || fail "trace summarised as its sweep"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows[0]["iterations"] == rows[1]["iterations"] == "160", rows[:2]
for col in ("iter_time_diff", "stall_diff", "delay_diff", "effective_delay_pct_diff"):
    assert float(rows[1][col]) == 0.0, (col, rows[1][col])
PY
"$stallsim" run "$work/w.ini" --set trace.warmup_iterations=11 --out "$work/w11" --quiet || fail "sweep w11"
"$stallsim" compare "$work/w40" "$work/w11" >/dev/null 2>"$work/err"; rc=$?
[ $rc -eq 1 ] && grep -q "not comparable" "$work/err" && ok || fail "different settings: rc=$rc $(cat "$work/err")"
"$stallsim" compare "$work/w.h5" "$work/w40" --warmup 11 >/dev/null 2>"$work/err" || fail "explicit warmup"
grep -q "warning: traces are summarised with --warmup 11, but" "$work/err" && ok || fail "explicit warmup warning"

# traces named alike in different folders: the table names each by as many folders as
# tell them apart (the first row's full path in the footer)
mkdir -p "$work/a/run" "$work/b/run"
cp "$work/w.h5" "$work/a/run/t.h5"
"$stallsim" gen -o "$work/b/run/t.h5" --gpus 3 --iterations 200 --seed 4 >/dev/null || fail "gen b"
"$stallsim" compare "$work/a/run/t.h5" "$work/b/run/t.h5" "$work/w.h5" > "$work/alike.txt" 2>&1 || fail "compare alike"
grep -q '^a/run/t\.h5 ' "$work/alike.txt" && grep -q '^b/run/t\.h5 ' "$work/alike.txt" && grep -q '^w\.h5 ' "$work/alike.txt" &&
  ok || fail "traces named alike: $(cat "$work/alike.txt")"

# before, the sweep, after (a real run): each prediction's error against the last row is
# printed, (predicted / real - 1) in %, recomputed here from the CSV's iteration times
"$stallsim" compare "$work/w.h5" "$work/w40" "$work/b/run/t.h5" --warmup 40 --epoch 1 --csv "$work/pred.csv" \
  > "$work/pred.txt" 2>/dev/null || fail "compare before results after"
$py - "$work/pred.csv" "$work/pred.txt" <<'PY' && ok || fail "errors against the last row: $(tail -3 "$work/pred.txt")"
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
text = open(sys.argv[2]).read().splitlines()
at = [i for i, l in enumerate(text) if l.startswith("each prediction against the last row")]
assert len(at) == 1 and text[at[0]].endswith("mean iteration time, whole run:"), at
lines = []
for l in text[at[0] + 1:]:  # one line a prediction, two spaces in
    if not l.startswith("  "):
        break
    lines.append(l)
real, real_run = float(rows[-1]["iter_time_mean"]), float(rows[-1]["run_time"])
preds = [r for r in rows[1:-1] if r["scenario"] != "measured"]
m = [re.fullmatch(r"  \S.*\S +([-+][0-9.]+) % +([-+][0-9.]+ %|-)", l) for l in lines]
got = [float(x.group(1)) for x in m]
exp = [100 * (float(r["iter_time_mean"]) / real - 1) for r in preds]
assert len(got) == len(exp) and all(abs(a - b) < 0.051 for a, b in zip(got, exp)), (got, exp)
# the whole run's, where the row has the real run's iterations; else "-"
for x, r in zip(m, preds):
    if r["iterations"] == rows[-1]["iterations"]:
        assert abs(float(x.group(2)[:-2]) - 100 * (float(r["run_time"]) / real_run - 1)) < 0.051, (x.group(0), r["run_time"])
    else:
        assert x.group(2) == "-", x.group(0)
PY
"$stallsim" compare "$work/w.h5" "$work/w40" --warmup 40 --epoch 1 2>/dev/null | grep -q "each prediction against" &&
  fail "a prediction line without a real run last" || ok
# two real runs after the predictions: no error lines (which run would they be against?),
# and a line that says so and what to do
"$stallsim" gen -o "$work/c.h5" --gpus 3 --iterations 200 --seed 5 >/dev/null || fail "gen c"
"$stallsim" compare "$work/w40" "$work/b/run/t.h5" "$work/c.h5" --warmup 40 --epoch 1 > "$work/two.txt" 2>/dev/null &&
  ! grep -q "each prediction against" "$work/two.txt" &&
  grep -q "^no prediction errors: a real run stands between the first input and the last (give one real run last and none between, or --match" \
    "$work/two.txt" && ok || fail "two real runs after the predictions: $(tail -3 "$work/two.txt")"

# results.h5's /summary holds the columns of summary.csv, with NaN where a cell is empty
printf '[trace]\npath = w.h5\n[scenarios]\nmodel = independent, pipeline\nworkers = auto, 2\n' > "$work/both.ini"
"$stallsim" run "$work/both.ini" --out "$work/both" --quiet || fail "sweep both"
$py - "$work/both/summary.csv" "$work/both/results.h5" <<'PY' && ok || fail "/summary vs summary.csv"
import csv, math, sys
import h5py
rows = list(csv.DictReader(open(sys.argv[1])))
t = h5py.File(sys.argv[2], "r")["summary"][:]
assert len(rows) == len(t)
for r, h in zip(rows, t):
    for k, v in r.items():
        if k.startswith("straggler_share_gpu"):
            x = h["straggler_share"][int(k[len("straggler_share_gpu"):])]
        else:
            x = h[k]
        if isinstance(x, bytes):
            assert x.decode() == v, (k, x, v)
        elif v == "":
            assert math.isnan(x), (k, x)
        else:
            assert float(v) == float(x), (k, v, x)
PY

# --match: each real run beside the prediction of its recorded loader. Generated traces of
# 1, 2 and 8 workers (the same fetch times), a sweep from the 1-worker one with workers 1,
# 2, 4 and one scaled row: the 1- and 2-worker runs are set beside the plain W=1 and W=2
# rows (the scaled one is not taken, but named as one the run may be), with their numbers
# and errors; the 8-worker run has
# no prediction; the 1-worker run is the base's own loader (its row the baseline replay,
# marked and left out of the mean, with a line saying what to do where it is not a
# repeat of the base); the mean over the other matched one
for w in 1 2 8; do
  "$stallsim" gen -o "$work/m$w.h5" --gpus 2 --iterations 200 --workers $w --seed 4 >/dev/null || fail "gen m$w"
done
printf '[trace]\npath = m1.h5\n[scenarios]\nmodel = pipeline\nworkers = 1, 2, 4\nfetch_scale = 1, 0.5\n' > "$work/m.ini"
"$stallsim" run "$work/m.ini" --out "$work/mres" --quiet || fail "run m"
"$stallsim" compare "$work/mres" "$work/m1.h5" "$work/m2.h5" "$work/m8.h5" --match > "$work/match.txt" || fail "compare --match"
"$stallsim" compare "$work/m2.h5" "$work/m1.h5" --csv "$work/mreal.csv" >/dev/null || fail "compare real means"
$py - "$work/match.txt" "$work/mres/summary.csv" "$work/mreal.csv" <<'PY' && ok || fail "compare --match: $(cat "$work/match.txt")"
import csv, re, sys
raw = open(sys.argv[1]).read()
# a judged interval's bounds follow the prediction's label: checked here, then set aside
BOUNDS = re.compile(r" \(90%: ([0-9.]+) … ([0-9.]+)\)")
parts = BOUNDS.sub("", raw).split("each real run beside the prediction of its recorded loader")
rawlines = {l.split()[0]: l for l in raw.split("each real run beside the prediction of its recorded loader")[1].splitlines()
            if l.startswith("m")}
# two tables: the mean iteration time, then the whole run's time (run_time)
assert len(parts) == 3 and parts[1].split("\n")[0].endswith("mean iteration time:") and \
    parts[2].split("\n")[0].endswith("the whole run's time (run_time):"), parts
text = "".join(parts[1:]).splitlines()
for part, col in ((parts[1], "iter_time_mean"), (parts[2], "run_time")):
    rows = {r["label"]: r for r in csv.DictReader(open(sys.argv[2]))}
    real = {r["source"].split("/")[-1]: float(r[col]) for r in csv.DictReader(open(sys.argv[3]))}
    lines = {l.split()[0]: l for l in part.splitlines() if l.startswith("m")}
    errs = []
    lo_hi = ("iter_time_lo", "iter_time_hi") if col == "iter_time_mean" else ("run_time_lo", "run_time_hi")
    for name, w in (("m1.h5", 1), ("m2.h5", 2)):
        r = rows["pipe f=none s=none W=%d P=2 fs=1 cs=1" % w]
        p = float(r[col])
        e = 100 * (p / real[name] - 1)
        # inside the prediction's 90 % interval: yes or no, "-" without one
        lo, hi = r[lo_hi[0]], r[lo_hi[1]]
        inside = "-" if not lo or not hi else "yes" if float(lo) <= real[name] <= float(hi) else "no"
        if w == 1:
            inside = "-"  # the baseline replay: its interval is of its own trace, not of another run
        want = "%.4f %10.4f %+7.1f%% %6s  mres: pipe f=none s=none W=%d P=2 fs=1 cs=1" % (real[name], p, e, inside, w)
        assert want in lines[name], (want, lines[name])
        if col == "iter_time_mean":  # the bounds of the interval judged, beside it
            b = BOUNDS.search(rawlines[name])
            assert (b is not None) == (inside != "-"), rawlines[name]
            assert b is None or (b.group(1), b.group(2)) == ("%.4f" % float(lo), "%.4f" % float(hi)), (b.groups(), lo, hi)
        errs.append(abs(e))
    mean = [l for l in part.splitlines() if l.startswith("mean |error| over the 1 matched real run: ")]
    assert mean and mean[0].endswith("%.1f %%" % errs[1]), (mean, errs)
lines = {l.split()[0]: l for l in parts[1].splitlines() if l.startswith("m")}
assert "W=8 P=2" in lines["m8.h5"] and "no such prediction among the inputs" in lines["m8.h5"], lines["m8.h5"]
assert lines["m2.h5"].split()[6] == "yes", lines["m2.h5"]
# (each loader also has its fs=0.5 row in the folder, which a real run's trace cannot show: marked)
assert lines["m1.h5"].endswith("(the base's own loader: the baseline replay, not in the mean) [+1 fs/cs/heal]"), lines["m1.h5"]
assert lines["m2.h5"].endswith("cs=1 [+1 fs/cs/heal]"), lines["m2.h5"]
assert any(l.startswith("[+N fs/cs/heal]: the results folder also predicts that loader with other storage (fs)") for l in text), text
assert any(l.startswith("a real run with its base trace's own loader settings is set beside the baseline replay") for l in text), text
PY
# --match with --csv: the match tables as rows of FILE-match.csv, each number the text's
# and the error recomputed from the pair; the interval only where it is judged
"$stallsim" compare "$work/mres" "$work/m1.h5" "$work/m2.h5" "$work/m8.h5" --match --csv "$work/mc.csv" \
  > "$work/matchc.txt" || fail "compare --match --csv"
$py - "$work/mc-match.csv" "$work/mres/summary.csv" "$work/mreal.csv" "$work/matchc.txt" <<'PY' && ok || fail "compare --match --csv: $(cat "$work/mc-match.csv")"
import csv, sys
got = list(csv.DictReader(open(sys.argv[1])))
rows = {r["label"]: r for r in csv.DictReader(open(sys.argv[2]))}
assert [(r["real_run"], r["measure"]) for r in got] == [(n, m) for m in ("steady", "run")
                                                       for n in ("m1.h5", "m2.h5", "m8.h5")], got
for r in got:
    col = {"steady": "iter_time_mean", "run": "run_time"}[r["measure"]]
    if r["real_run"] == "m8.h5":
        assert r["predicted"] == r["error_pct"] == r["in_90"] == "" and r["note"] == "no such prediction among the inputs", r
        continue
    w = int(r["real_run"][1])
    p = rows["pipe f=none s=none W=%d P=2 fs=1 cs=1" % w]
    assert float(r["predicted"]) == float(p[col]) and r["loader"] == "W=%d P=2" % w, r
    assert abs(float(r["error_pct"]) - 100 * (float(r["predicted"]) / float(r["real"]) - 1)) < 1e-9, r
    assert r["baseline_replay"] == ("1" if w == 1 else "0"), r
    if w == 1:  # the baseline replay: no interval judged
        assert r["in_90"] == r["lo"] == r["hi"] == "", r
    else:
        lo, hi = float(r["lo"]), float(r["hi"])
        assert (lo, hi) == (float(p[col.replace("_mean", "") + "_lo"]), float(p[col.replace("_mean", "") + "_hi"])), r
        assert r["in_90"] == ("yes" if lo <= float(r["real"]) <= hi else "no"), r
assert "wrote %s (the match tables" % sys.argv[1] in open(sys.argv[4]).read()
PY
# persistent_workers as recorded: a real run whose workers persisted is not set beside a
# prediction of workers started anew, and is beside one of persistent_workers = true
$py - "$work" <<'PY' || fail "python edits (persistent_workers)"
import shutil, sys, h5py
w = sys.argv[1]
for src, dst, pw in (("m1.h5", "p1.h5", 0), ("m2.h5", "p2.h5", 1)):
    shutil.copy("%s/%s" % (w, src), "%s/%s" % (w, dst))
    with h5py.File("%s/%s" % (w, dst), "r+") as f:
        f.attrs["persistent_workers"] = pw
PY
printf '[trace]\npath = p1.h5\n[scenarios]\nmodel = pipeline\nworkers = 2\n' > "$work/p.ini"
"$stallsim" run "$work/p.ini" --out "$work/pres" --quiet || fail "run p"
"$stallsim" compare "$work/pres" "$work/p2.h5" --match > "$work/pmatch.txt" 2>&1 &&
  grep -q "^p2.h5 *W=2 P=2 pw .*no such prediction among the inputs" "$work/pmatch.txt" && ok ||
  fail "compare --match, persistent workers against workers started anew: $(cat "$work/pmatch.txt")"
"$stallsim" run "$work/p.ini" --set scenarios.persistent_workers=auto,true --out "$work/pres2" --quiet || fail "run p, persistent"
"$stallsim" compare "$work/pres2" "$work/p2.h5" --match > "$work/pmatch2.txt" 2>&1 &&
  grep -q "^p2.h5 *W=2 P=2 pw .*pres2: pipe f=none s=none W=2 P=2 fs=1 cs=1 pw=true\( (90%: [0-9.]* … [0-9.]*)\)\{0,1\}$" "$work/pmatch2.txt" && ok ||
  fail "compare --match, persistent workers: $(cat "$work/pmatch2.txt")"
# a real run of another batch size than the base run is named in a warning; one of the
# base's own batch size is not
$py - "$work" <<'PY' || fail "python edits (batch_size)"
import shutil, sys, h5py
w = sys.argv[1]
for src, dst, b in (("m1.h5", "b1.h5", 8), ("m2.h5", "b2.h5", 16), ("m2.h5", "b2same.h5", 8)):
    shutil.copy("%s/%s" % (w, src), "%s/%s" % (w, dst))
    with h5py.File("%s/%s" % (w, dst), "r+") as f:
        f.attrs["batch_size"] = b
PY
printf '[trace]\npath = b1.h5\n[scenarios]\nmodel = pipeline\nworkers = 1, 2\n' > "$work/b.ini"
"$stallsim" run "$work/b.ini" --out "$work/bres" --quiet || fail "run b"
"$stallsim" compare "$work/bres" "$work/b2.h5" "$work/b2same.h5" --match > "$work/bmatch.txt" 2>&1 &&
  grep -q "^warning: other batch size than the base run of .*bres (8): .*b2.h5 16;" "$work/bmatch.txt" &&
  ! grep -q "b2same.h5 8" "$work/bmatch.txt" && ok || fail "compare --match, another batch size: $(cat "$work/bmatch.txt")"
# the same from another folder, where the base trace's relative path no longer resolves:
# results.h5 keeps the base's batch size
mkdir -p "$work/elsewhere"
(cd "$work/elsewhere" && "$stallsim" compare ../bres ../b2.h5 --match) > "$work/bmatch2.txt" 2>&1 &&
  grep -q "^warning: other batch size than the base run of .*bres (8): .*b2.h5 16;" "$work/bmatch2.txt" && ok ||
  fail "compare --match from another folder, another batch size: $(cat "$work/bmatch2.txt")"
# --match needs a results folder: traces alone are a usage error
"$stallsim" compare "$work/m2.h5" "$work/m1.h5" --match > "$work/nores.txt" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "needs a results folder among the inputs" "$work/nores.txt" && ok ||
  fail "compare --match without results: rc=$rc $(cat "$work/nores.txt")"
# the same from another folder, where the base trace's recorded path no longer resolves:
# results.h5 keeps its persistent_workers
mkdir -p "$work/elsewhere"
(cd "$work/elsewhere" && "$stallsim" compare ../pres ../p2.h5 --match) > "$work/pmatch3.txt" 2>&1 &&
  grep -q "^p2.h5 *W=2 P=2 pw .*no such prediction among the inputs" "$work/pmatch3.txt" && ok ||
  fail "compare --match from another folder: $(cat "$work/pmatch3.txt")"
# a 2-worker real run whose fetches took twice as long: far outside the W=2 prediction's
# interval ("no" in both tables)
"$stallsim" gen -o "$work/m2slow.h5" --gpus 2 --iterations 200 --workers 2 --seed 4 --fetch-mean 2.0 >/dev/null ||
  fail "gen m2slow"
"$stallsim" compare "$work/mres" "$work/m2slow.h5" --match > "$work/mslow.txt" 2>&1 &&
  [ "$(grep -c "^m2slow.h5 .* -[0-9.]*% *no  mres: pipe f=none s=none W=2 P=2 fs=1 cs=1" "$work/mslow.txt")" -eq 2 ] &&
  ok || fail "compare --match, outside the interval: $(cat "$work/mslow.txt")"
# a real run of another length: its whole run is not compared ("-"), its mean iteration time is
"$stallsim" gen -o "$work/m2short.h5" --gpus 2 --iterations 150 --workers 2 --seed 4 >/dev/null || fail "gen m2short"
"$stallsim" compare "$work/mres" "$work/m2short.h5" --match > "$work/mshort.txt" 2>&1 &&
  [ "$(grep -c "^m2short.h5 .* - *- *-  mres: pipe f=none s=none W=2 P=2 fs=1 cs=1 (other iterations: not the same run's length)" "$work/mshort.txt")" -eq 1 ] &&
  grep -q "^m2short.h5 .* [-+][0-9.]*% *\(yes\|no\|-\)  mres: pipe f=none s=none W=2 P=2 fs=1 cs=1" "$work/mshort.txt" && ok ||
  fail "compare --match, a run of another length: $(cat "$work/mshort.txt")"
# --match without a trace, or --scenario with a text no row holds: a usage error (exit 2),
# the message alone
"$stallsim" compare "$work/mres" --match > "$work/mnone.txt" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "^stallsim: compare: --match needs a trace among the inputs" "$work/mnone.txt" &&
  [ "$(wc -l < "$work/mnone.txt")" -eq 1 ] && ok || fail "compare --match without a trace (exit $rc): $(cat "$work/mnone.txt")"
"$stallsim" compare "$work/mres" "$work/m2.h5" --match --scenario zzz > "$work/mnone.txt" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "^stallsim: compare: --scenario zzz: no row of the results holds it" "$work/mnone.txt" &&
  [ "$(wc -l < "$work/mnone.txt")" -eq 1 ] && ok || fail "compare --scenario held by no row (exit $rc): $(cat "$work/mnone.txt")"
# --scenario TEXT: each real run beside its loader's row whose scenario holds TEXT (here the
# storage twice as fast, as if the runs were recorded so): the base's own loader too, which
# is then a prediction like any other, in the mean, with its interval's verdict
"$stallsim" compare "$work/mres" "$work/m1.h5" "$work/m2.h5" "$work/m8.h5" --match --scenario fs0.5 > "$work/mscen.txt" ||
  fail "compare --match --scenario"
$py - "$work/mscen.txt" "$work/mres/summary.csv" "$work/mreal.csv" <<'PY' && ok || fail "compare --match --scenario: $(cat "$work/mscen.txt")"
import csv, re, sys
parts = re.sub(r" \(90%: [0-9.]+ … [0-9.]+\)", "", open(sys.argv[1]).read()).split(
    "each real run beside the prediction of its recorded loader")
assert len(parts) == 3 and "rows without alignment whose scenario holds 'fs0.5')" in parts[1].split("\n")[0], parts
rows = {r["label"]: r for r in csv.DictReader(open(sys.argv[2]))}
real = {r["source"].split("/")[-1]: float(r["iter_time_mean"]) for r in csv.DictReader(open(sys.argv[3]))}
lines = {l.split()[0]: l for l in parts[1].splitlines() if l.startswith("m")}
errs = []
for name, w in (("m1.h5", 1), ("m2.h5", 2)):
    r = rows["pipe f=none s=none W=%d P=2 fs=0.5 cs=1" % w]
    p = float(r["iter_time_mean"])
    e = 100 * (p / real[name] - 1)
    inside = "yes" if float(r["iter_time_lo"]) <= real[name] <= float(r["iter_time_hi"]) else "no"
    want = "%.4f %10.4f %+7.1f%% %6s  mres: pipe f=none s=none W=%d P=2 fs=0.5 cs=1" % (real[name], p, e, inside, w)
    assert lines[name].endswith(want), (want, lines[name])
    errs.append(abs(e))
assert "no prediction of its loader whose scenario holds every text" in lines["m8.h5"], lines["m8.h5"]
mean = [l for l in parts[1].splitlines() if l.startswith("mean |error| over the 2 matched real runs: ")]
assert mean and mean[0].endswith("%.1f %%" % (sum(errs) / 2)), (mean, errs)
assert "[+" not in parts[1] and "the baseline replay" not in parts[1], parts[1]
# several real runs under one --scenario: a line says each should be a run recorded so
assert "--scenario fs0.5 set 2 real runs beside a prediction that holds it" in parts[2], parts[2]
PY
# whole parts only: fs0 is not fs0.5; fs=0.5 (the label's form) is
! "$stallsim" compare "$work/mres" "$work/m2.h5" --match --scenario fs0 > /dev/null 2>&1 &&
  "$stallsim" compare "$work/mres" "$work/m2.h5" --match --scenario fs=0.5 | grep -q "^m2.h5 .*mres: pipe f=none s=none W=2 P=2 fs=0.5 cs=1\( (90%: [0-9.]* … [0-9.]*)\)\{0,1\}$" &&
  ok || fail "compare --match --scenario matches whole parts"
"$stallsim" compare "$work/mres" "$work/m2.h5" --scenario fs0.5 > "$work/mscen2.txt" 2>&1 && fail "--scenario without --match" ||
  { grep -q "give --match too" "$work/mscen2.txt" && ok || fail "--scenario without --match: $(cat "$work/mscen2.txt")"; }
# the sweep's own base trace as the last input: its rows are predicted changes, not errors
"$stallsim" compare "$work/mres" "$work/m1.h5" > "$work/ownbase.txt" || fail "compare with the base trace last"
grep -q "^the last row (.*m1.h5) is the trace mres replays: each row's diff% is a predicted change" "$work/ownbase.txt" &&
  ! grep -q "each prediction against the last row" "$work/ownbase.txt" && ok || fail "compare with the base trace last: $(cat "$work/ownbase.txt")"
# told by the file, not by equal numbers: summarised otherwise (--threshold) it is still the base;
# after a real run first (whose diffs are errors) neither line is printed
"$stallsim" compare "$work/mres" "$work/m1.h5" --threshold 0.01 2>/dev/null | grep -q "^the last row (.*m1.h5) is the trace mres replays" &&
  ! "$stallsim" compare "$work/m2.h5" "$work/mres" "$work/m1.h5" 2>/dev/null | grep -q "the last row" && ok ||
  fail "compare with the base trace last, otherwise summarised or after a real run"
# two real runs of one loader (2 workers, two seeds): the prediction against their mean too
"$stallsim" gen -o "$work/m2b.h5" --gpus 2 --iterations 200 --workers 2 --seed 5 >/dev/null || fail "gen m2b"
"$stallsim" compare "$work/mres" "$work/m2.h5" "$work/m2b.h5" --match > "$work/match3.txt" || fail "compare --match, a loader twice"
"$stallsim" compare "$work/m2.h5" "$work/m2b.h5" --csv "$work/mreal2.csv" >/dev/null || fail "compare real means, twice"
$py - "$work/match3.txt" "$work/mres/summary.csv" "$work/mreal2.csv" <<'PY' && ok || fail "compare --match, a loader twice: $(cat "$work/match3.txt")"
import csv, sys
text = open(sys.argv[1]).read()
p = {r["label"]: float(r["iter_time_mean"]) for r in csv.DictReader(open(sys.argv[2]))}["pipe f=none s=none W=2 P=2 fs=1 cs=1"]
real = [float(r["iter_time_mean"]) for r in csv.DictReader(open(sys.argv[3]))]
mean = sum(real) / 2
want = "W=2 P=2, against the mean of its 2 real runs (%.4f s, %.1f %% apart): mres %+.1f %%" % (
    mean, 100 * (max(real) - min(real)) / mean, 100 * (p / mean - 1))
assert want in text.splitlines(), (want, text)
assert "are they one setting?" not in text, text
PY
# with --scenario the same: the two runs of the base's own loader W=1 are set beside its
# fs=0.5 row, and their mean too; P=2, held by both rows of a loader, takes the one that
# departs least from the plain prediction (fs=1) and counts the other
"$stallsim" gen -o "$work/m1b.h5" --gpus 2 --iterations 200 --workers 1 --seed 5 >/dev/null || fail "gen m1b"
"$stallsim" compare "$work/mres" "$work/m1.h5" "$work/m1b.h5" --match --scenario fs0.5 > "$work/match4.txt" &&
  grep -q "^W=1 P=2, against the mean of its 2 real runs (.*): mres [-+][0-9.]* %$" "$work/match4.txt" &&
  "$stallsim" compare "$work/mres" "$work/m2.h5" --match --scenario P=2 |
  grep -q "^m2.h5 .*mres: pipe f=none s=none W=2 P=2 fs=1 cs=1\( (90%: [0-9.]* … [0-9.]*)\)\{0,1\} (+1 other row of this loader holds 'P=2')$" && ok ||
  fail "compare --match --scenario, repeats and rows alike: $(cat "$work/match4.txt")"
# --scenario twice: a row must hold both texts (P=2 alone takes fs=1, with fs0.5 the fs=0.5
# row); texts that no row holds together are refused, naming them
"$stallsim" compare "$work/mres" "$work/m2.h5" --match --scenario P=2 --scenario fs0.5 > "$work/mtwo.txt" &&
  grep -q "rows without alignment whose scenario holds 'P=2' and 'fs0.5')" "$work/mtwo.txt" &&
  [ "$(grep -c "^m2.h5 .*mres: pipe f=none s=none W=2 P=2 fs=0.5 cs=1\( (90%: [0-9.]* … [0-9.]*)\)\{0,1\}$" "$work/mtwo.txt")" -eq 2 ] && ok ||
  fail "compare --match with two --scenario texts: $(cat "$work/mtwo.txt")"
"$stallsim" compare "$work/mres" "$work/m2.h5" --match --scenario fs0.5 --scenario fs=1 > "$work/mtwo2.txt" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "^stallsim: compare: --scenario fs0.5 and fs=1: no row of the results holds them all" "$work/mtwo2.txt" &&
  ok || fail "compare --scenario texts no row holds together (exit $rc): $(cat "$work/mtwo2.txt")"
# two runs of one loader far apart (the second's fetches 3x as long): the mean line asks
# whether they are one setting, --match pairing by the loader alone
"$stallsim" gen -o "$work/m2slow.h5" --gpus 2 --iterations 200 --workers 2 --seed 5 --fetch-mean 3.0 >/dev/null || fail "gen m2slow"
"$stallsim" compare "$work/mres" "$work/m2.h5" "$work/m2slow.h5" --match |
  grep -q "^W=2 P=2, against the mean of its 2 real runs (.* apart: more than real runs of one setting differ; are they one setting? --match pairs by the loader alone): mres " &&
  ok || fail "compare --match, runs of one loader far apart"
# the same, with the slower run recorded while other processes took 30 % of the cores: the
# mean line says so, rather than asking whether they are one setting
cp "$work/m2slow.h5" "$work/m2busy.h5"
/usr/bin/python3 -c "
import h5py, numpy as np
with h5py.File('$work/m2busy.h5', 'r+') as f:
    g = f['timeline/fetch_time'].shape[1]
    f['host_cpu_busy'] = np.full(g, 0.8)
    f['host_cpu_job'] = np.full(g, 0.5)
" || fail "python edit m2busy"
"$stallsim" compare "$work/mres" "$work/m2.h5" "$work/m2busy.h5" --match > "$work/mbusy.txt" 2>&1 &&
  grep -q "^W=2 P=2, against the mean of its 2 real runs (.* apart: more than real runs of one setting differ; other processes took the cores in some (below)): mres " "$work/mbusy.txt" &&
  grep -q "^busy while recorded .*m2busy.h5 30%" "$work/mbusy.txt" && ok ||
  fail "compare --match, runs of one loader far apart, one busy: $(cat "$work/mbusy.txt")"

# --spread: one scenario file run on three base runs of one setting (generated traces with
# other seeds: other fetch times) and a fourth base run whose file says workers = 2, 8 (its
# W=2 row is the others' auto-resolved W=2: matched by label), and a copy of the first
# folder (the same base run: left out and said so); each scenario held by two or more
# folders gives the least and largest mean iteration time of the summary.csv files and
# (largest - least) / their mean; W=8, in one folder only, is left out and named; the
# median and the largest spread over the predictions
for k in 1 2 3 4; do
  "$stallsim" gen -o "$work/s$k.h5" --gpus 2 --iterations 200 --workers 2 --seed $((10 + k)) >/dev/null || fail "gen s$k"
  w="1, auto, 4"
  [ $k -eq 4 ] && w="2, 8"
  printf '[trace]\npath = s%d.h5\n[scenarios]\nmodel = pipeline\nworkers = %s\n' $k "$w" > "$work/s$k.ini"
  "$stallsim" run "$work/s$k.ini" --out "$work/sres$k" --quiet || fail "run s$k"
done
cp -r "$work/sres1" "$work/sres1-copy"
"$stallsim" compare "$work/sres1" "$work/sres2" "$work/sres3" "$work/sres4" "$work/sres1-copy" --spread > "$work/spread.txt" ||
  fail "compare --spread"
$py - "$work/spread.txt" "$work"/sres{1,2,3,4}/summary.csv <<'PY' && ok || fail "compare --spread: $(cat "$work/spread.txt")"
import csv, statistics, sys
whole = open(sys.argv[1]).read()
assert "sres1-copy replayed the same base run as " in whole and whole.count("left out: run the scenario file") == 1, whole
parts = whole.split("the same scenarios from 4 results folders")
assert len(parts) == 3, whole  # the mean iteration time's table, then the whole run's
for part, col, what in ((parts[1], "iter_time_mean", "mean iteration time"), (parts[2], "run_time", "whole run's time")):
    assert part.startswith(" (each from its own base run), %s:" % what), part
    text = part.strip().splitlines()
    runs = [{r["label"]: float(r[col]) for r in csv.DictReader(open(p))} for p in sys.argv[2:]]
    labels = ["measured"] + ["pipe f=none s=none W=%d P=2 fs=1 cs=1" % w for w in (1, 2, 4)]
    spreads = {}
    for lab in labels:
        v = [r[lab] for r in runs if lab in r]
        sp = 100 * (max(v) - min(v)) / (sum(v) / len(v))
        name = lab + (" (the base runs)" if lab == "measured" else "")
        line = [l for l in text if l.startswith(name + " ")]
        want = "%4d %10.4f %10.4f %7.1f%%" % (len(v), min(v), max(v), sp)
        assert len(line) == 1 and line[0].endswith(want), (col, lab, line, want)
        if lab != "measured":
            spreads[lab] = sp
    assert len([r for r in runs if "pipe f=none s=none W=2 P=2 fs=1 cs=1" in r]) == 4, runs
    worst = max(spreads, key=spreads.get)
    summary = [l for l in text if l.startswith("spread = ")][0]
    want = "over the 3 predictions median %.1f %%, largest %.1f %% (%s)" % (statistics.median(spreads.values()), spreads[worst], worst)
    assert want in summary, (col, want, summary)
    assert text[-1].startswith("left out, in only one results folder (1): pipe f=none s=none W=8 P=2 fs=1 cs=1 ("), text[-1]
PY
# base runs of other lengths (200 and 400 iterations): their whole runs differ by length, so
# the whole run's table leaves them out and says why; the mean iteration time's keeps them
for k in 6 7; do
  "$stallsim" gen -o "$work/s$k.h5" --gpus 2 --iterations $(( (k - 5) * 200 )) --workers 2 --seed $k >/dev/null ||
    fail "gen s$k"
  printf '[trace]\npath = s%d.h5\n[scenarios]\nmodel = pipeline\nworkers = 1, auto\n' $k > "$work/s$k.ini"
  "$stallsim" run "$work/s$k.ini" --out "$work/sres$k" --quiet || fail "run s$k"
done
(cd "$work" && "$stallsim" compare sres6 sres7 --spread) > "$work/sp67.txt" || fail "compare --spread, other lengths"
$py - "$work/sp67.txt" <<'PY' && ok || fail "compare --spread, other lengths: $(cat "$work/sp67.txt")"
import sys
parts = open(sys.argv[1]).read().split("the same scenarios from 2 results folders")
assert len(parts) == 2 and parts[1].startswith(" (each from its own base run), mean iteration time:"), parts
assert "left out, base runs of other lengths (3 scenarios): their whole runs differ by the iterations" in parts[1], parts[1]
assert "no prediction of the whole run's time is in two" not in parts[1], parts[1]
PY
# base runs of other batch sizes (as their traces record them): said to be other jobs; none
# of that where the sizes agree
cp "$work/s1.h5" "$work/s1b.h5" && cp "$work/s2.h5" "$work/s2b.h5" && cp "$work/s3.h5" "$work/s3b.h5" &&
  $py -c "
import h5py
for n, b in (('s1b', 16), ('s2b', 32), ('s3b', 16)):
    with h5py.File('$work/%s.h5' % n, 'r+') as f: f.attrs['batch_size'] = b" || fail "python edits (batch sizes)"
for k in 1b 2b 3b; do
  "$stallsim" run "$work/s1.ini" --set trace.path="$work/s$k.h5" --out "$work/sres$k" --quiet || fail "run s$k"
done
(cd "$work" && "$stallsim" compare sres1b sres2b --spread) > "$work/spb.txt" &&
  grep -q "^--spread: the base runs' batch sizes differ (sres1b: 16, sres2b: 32): runs of other jobs" "$work/spb.txt" &&
  (cd "$work" && "$stallsim" compare sres1b sres3b --spread) > "$work/spb2.txt" && ! grep -q "batch sizes differ" "$work/spb2.txt" &&
  ok || fail "compare --spread, other batch sizes: $(cat "$work/spb.txt")"
# base runs of different loaders (a 4-worker base beside a 2-worker one): said so, as a
# spread across settings; none of that among the 2-worker bases above
"$stallsim" gen -o "$work/s5.h5" --gpus 2 --iterations 200 --workers 4 --seed 15 >/dev/null || fail "gen s5"
printf '[trace]\npath = s5.h5\n[scenarios]\nmodel = pipeline\nworkers = 1, auto, 4\n' > "$work/s5.ini"
"$stallsim" run "$work/s5.ini" --out "$work/sres5" --quiet || fail "run s5"
(cd "$work" && "$stallsim" compare sres1 sres5 --spread) > "$work/sp5.txt" || fail "compare --spread, other loaders"
grep -q "^--spread: the base runs' loaders differ (sres1: 2 workers, sres5: 4): this spread is across settings" "$work/sp5.txt" &&
  ! grep -q "loaders differ" "$work/spread.txt" && ok || fail "compare --spread, other loaders: $(cat "$work/sp5.txt")"
# one results folder, the same folder twice, a copy of it, a trace: usage errors (exit 2)
# before any table, each saying what it lacks
for args in "sres1" "sres1 sres1" "sres1 sres1-copy" "sres1 s2.h5"; do
  set -- $args
  rc=0
  (cd "$work" && "$stallsim" compare "$@" --spread) > "$work/sp.out" 2> "$work/sp.err" || rc=$?
  case "$args" in
    "sres1 sres1") want="sres1 is named twice" ;;
    "sres1 sres1-copy") want="sres1-copy replayed the same base run as sres1" ;;
    "sres1 s2.h5") want="s2.h5 is a trace" ;;
    *) want="needs two or more results folders of different base runs, has 1 (" ;;
  esac
  [ $rc -eq 2 ] && [ ! -s "$work/sp.out" ] && grep -q "$want" "$work/sp.err" && ok ||
    fail "compare $args --spread: rc=$rc $(cat "$work/sp.out" "$work/sp.err")"
done
# a summary.csv given for its folder: a usage error that says what compare reads
rc=0
"$stallsim" compare "$work/sres1/summary.csv" "$work/sres2" > /dev/null 2> "$work/csv.err" || rc=$?
[ $rc -eq 2 ] && grep -q "summary.csv: a CSV file; compare reads results folders (or their results.h5) and traces" "$work/csv.err" &&
  ok || fail "compare of a summary.csv: rc=$rc $(cat "$work/csv.err")"
# --match with two results folders: each real run beside each folder's prediction, a mean
# per folder; no line of errors against the last row (a real run of another loader)
"$stallsim" gen -o "$work/s1w4.h5" --gpus 2 --iterations 200 --workers 4 --seed 11 >/dev/null || fail "gen s1w4"
"$stallsim" compare "$work/sres1" "$work/sres2" "$work/s1w4.h5" "$work/m1.h5" --match > "$work/match2.txt" || fail "compare --match, two folders"
$py - "$work/match2.txt" "$work/sres1/summary.csv" "$work/sres2/summary.csv" <<'PY' && ok || fail "compare --match, two folders: $(cat "$work/match2.txt")"
import csv, re, sys
text = open(sys.argv[1]).read()
assert "each prediction against the last row" not in text, text
lines = re.sub(r" \(90%: [0-9.]+ … [0-9.]+\)", "", text).split(
    "each real run beside the prediction of its recorded loader")[1].splitlines()
for src, path in (("sres1", sys.argv[2]), ("sres2", sys.argv[3])):
    pred = {r["label"]: float(r["iter_time_mean"]) for r in csv.DictReader(open(path))}
    for w in (4, 1):
        lab = "pipe f=none s=none W=%d P=2 fs=1 cs=1" % w
        hit = [l for l in lines if l.endswith("%s: %s" % (src, lab))]
        assert len(hit) == 1 and ("%.4f" % pred[lab]) in hit[0], (src, w, hit)
    assert any(l.startswith("mean |error| over the 2 matched real runs, predicted by %s: " % src) for l in lines), lines
PY

# a synchronous base (a recorded run of the startup set K) swept with persistent_workers =
# auto, true: auto starts the added workers at every epoch, so a real run whose workers
# persisted is set beside the pw=true row, and one whose workers restarted beside the auto
# row; workers = auto (0 here) gets no pw=true row
k=$src/datasets/pytorch-startup-k
if [ -e "$k/w0-a.h5" ] && [ -e "$k/w2-a.h5" ] && [ -e "$k/w2-pers-a.h5" ]; then
  printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 2\npersistent_workers = auto, true\n' \
    "$k/w0-a.h5" > "$work/sync.ini"
  "$stallsim" run "$work/sync.ini" --out "$work/sres" --quiet > "$work/sres.txt" 2>&1 || fail "run sync: $(cat "$work/sres.txt")"
  [ "$(tail -n +2 "$work/sres/summary.csv" | cut -d, -f1 | tr '\n' ' ')" = \
    "measured pipeline_fetch-none_start-none_w-auto_p2_fs1_cs1 pipeline_fetch-none_start-none_w-2_p2_fs1_cs1 pipeline_fetch-none_start-none_w-2_p2_fs1_cs1_pw-true " ] &&
    ok || fail "a synchronous base's sweep: $(cut -d, -f1 "$work/sres/summary.csv" | tr '\n' ' ')"
  "$stallsim" compare "$work/sres" "$k/w2-a.h5" "$k/w2-pers-a.h5" --match > "$work/smatch.txt" 2>&1 &&
    grep -q "^w2-pers-a.h5 *W=2 P=2 pw .*sres: pipe f=none s=none W=2 P=2 fs=1 cs=1 pw=true" "$work/smatch.txt" &&
    grep -q "^w2-a.h5 *W=2 P=2 .*sres: pipe f=none s=none W=2 P=2 fs=1 cs=1\( (90%\|$\)" "$work/smatch.txt" &&
    ok || fail "compare --match from a synchronous base: $(cat "$work/smatch.txt")"
else
  echo "skipped: the startup set K's traces are missing"
fi

# --match marks an interval too wide to say much: a base recorded while other processes
# took most of its cores (its host shares set so) widens every interval past a factor of 2
g=$src/datasets/pytorch-grid-zr
if [ -e "$g/w2-x1-p2.h5" ] && [ -e "$g/w4-x1-p2.h5" ]; then
  cp "$g/w2-x1-p2.h5" "$work/busy-base.h5"
  $py - "$work/busy-base.h5" <<'PY' || fail "setting the host shares"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r+")
f["host_cpu_busy"][...] = np.full(f["host_cpu_busy"].shape, 0.65)
f["host_cpu_job"][...] = np.full(f["host_cpu_job"].shape, 0.35)
PY
  printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 4\nprefetch = auto\n[output]\ndir = %s\n' \
    "$work/busy-base.h5" "$work/busy-out" > "$work/busy.ini"
  "$stallsim" run "$work/busy.ini" --quiet || fail "run on the busy base"
  "$stallsim" compare "$work/busy-out" "$g/w4-x1-p2.h5" --match --csv "$work/busy.csv" > "$work/busy.txt" 2>&1 || fail "compare --match"
  grep -Eq "w4-x1-p2.h5 +W=4 P=2 .* (yes|no)\* " "$work/busy.txt" &&
    grep -q "^\*: an interval whose upper end is more than 2 times its lower end (2 here)" "$work/busy.txt" &&
    grep -q "the interval spans more than a factor of 2" "$work/busy-match.csv" &&
    grep -q "^busy while recorded .*the base run of busy-out 30%" "$work/busy.txt" && ok ||
    fail "a wide interval is not marked: $(cat "$work/busy.txt")"
  # the quiet base's intervals are not marked
  printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 4\nprefetch = auto\n[output]\ndir = %s\n' \
    "$g/w2-x1-p2.h5" "$work/quiet-out" > "$work/quiet.ini"
  "$stallsim" run "$work/quiet.ini" --quiet && "$stallsim" compare "$work/quiet-out" "$g/w4-x1-p2.h5" --match > "$work/quiet.txt" 2>&1 &&
    ! grep -q "yes\*\|no\*\|^\*:" "$work/quiet.txt" && ok || fail "a quiet base's intervals marked wide: $(cat "$work/quiet.txt")"
else
  echo "skipped: grid ZR's traces are missing"
fi

finish
