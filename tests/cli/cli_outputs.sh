#!/usr/bin/env bash
# cli_outputs.sh - what users read, checked against hand-worked values on a tiny trace:
# summary.csv (header, columns by name, settings that must reach the sweep), results.h5
# (per-iteration series, /summary, root attributes), the stalltrace schema's units and
# chunking, the terminal table, --help/--version, pipeline fidelity figures and step_gap,
# more ranks than scenarios, and info's per-GPU means (past each epoch's warm-up).
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3
$py -c "import h5py, numpy" 2>/dev/null || { echo "skipped: /usr/bin/python3 lacks h5py"; exit 77; }

# The trace of tests/unit/unit_independent.c test_sweep_summary: 2 GPUs, 3 rows (epoch 1).
#   row 0: fetch_start 0, 0.5   fetch_time 0.5, 0.25  iteration_time 1.5, 1.25  stall 0.5, 0.25
#   row 1: fetch_start 1, 1     fetch_time 0.25, 1    iteration_time 1, 2       stall 0.125, 1
#   row 2: fetch_start 2, 2.25  fetch_time 0.5, 0.5   iteration_time 1, 0.75    stall 0, 0
$py - "$work/tiny.h5" <<'PY' || fail "write tiny trace"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f.attrs.update(schema="stalltrace", schema_version=1, gpus=2, iterations=3,
                   time_origin="2000-01-01T00:00:00.000000")
    t = f.create_group("timeline")
    cols = dict(fetch_start=[[0, .5], [1, 1], [2, 2.25]], fetch_time=[[.5, .25], [.25, 1], [.5, .5]],
                train_start=[[0, 0], [0, 0], [0, 0]], iteration_time=[[1.5, 1.25], [1, 2], [1, .75]],
                stall_time=[[.5, .25], [.125, 1], [0, 0]])
    t.create_dataset("epoch", data=np.ones(3, "i4"), chunks=(3,)).attrs["units"] = "1"
    t.create_dataset("index", data=np.arange(3, dtype="i8"), chunks=(3,)).attrs["units"] = "1"
    for k, v in cols.items():
        t.create_dataset(k, data=np.array(v, "f8"), chunks=(3, 2)).attrs["units"] = "s"
PY
cat > "$work/tiny.ini" <<INI
[trace]
path = tiny.h5
warmup_iterations = 0
[scenarios]
fetch_align = none, min, max
start_align = none, min
[output]
per_iteration = true
INI
"$stallsim" run --explain --verbose "$work/tiny.ini" --out "$work/a" > "$work/table.txt" || fail "run a: $(cat "$work/table.txt")"
"$stallsim" run --explain --verbose "$work/tiny.ini" --out "$work/b" --quiet --set independent.stall_floor=0.125 \
  --set independent.stall_sensitivity=0.25 --set summary.effective_delay_threshold=0.5 || fail "run b"
version=$("$stallsim" --version | sed 's/^stallsim //')

$py - "$work" "$version" <<'PY' && ok || fail "summary.csv / results.h5 against hand-worked values"
import csv, sys, h5py, numpy as np
work, version = sys.argv[1], sys.argv[2]
def close(a, b, what):
    assert abs(a - b) <= 1e-12 * (1 + abs(b)), (what, a, b)
header = ("scenario,model,label,fetch_align,start_align,iterations,iter_time_mean,iter_time_std,stall_mean,stall_std,"
          "delay_mean,delay_std,effective_delay_pct,start_diff_mean,start_diff_std,fetch_diff_mean,fetch_diff_std,"
          "iter_time_change_pct,error_class,iter_time_lo,iter_time_hi,run_time,run_time_lo,run_time_hi,"
          "run_change_pct,epoch_start_time,workers,persistent_workers,prefetch,fetch_scale,compute_scale,fidelity_iter_time_err_pct,"
          "fidelity_iter_time_mape_pct,heal_gpu,heal_gpus,cpu_load_pct,cpu_stretch,read_stretch,straggler_share_gpu0,straggler_share_gpu1")
for run in "ab":
    assert open(f"{work}/{run}/summary.csv").readline().strip() == header
rows = {r["scenario"]: r for r in csv.DictReader(open(f"{work}/a/summary.csv"))}
m, fmin = rows["measured"], rows["independent_fetch-min_start-none"]
# measured: iteration 1.5, 2, 1 -> mean 1.5, std 0.5; delays 0.25, 0.875, 0 -> 2 of 3 above 0.030
assert m["model"] == "measured" and m["fetch_align"] == "" and m["iter_time_change_pct"] == ""
close(float(m["iter_time_mean"]), 1.5, "measured mean"); close(float(m["iter_time_std"]), 0.5, "measured std")
close(float(m["effective_delay_pct"]), 200 / 3, "measured effective delay")
# the lone largest stall: GPU 0 in row 0, GPU 1 in row 1, a tie in row 2
close(float(m["straggler_share_gpu0"]), 1 / 3, "share 0"); close(float(m["straggler_share_gpu1"]), 1 / 3, "share 1")
# fetch min: iteration 1.25, 1.25, 1 (mean 7/6), delays 0, 0.125, 0
close(float(fmin["iter_time_mean"]), 7 / 6, "fetch-min mean")
close(float(fmin["iter_time_change_pct"]), -200 / 9, "fetch-min change")
close(float(fmin["effective_delay_pct"]), 100 / 3, "fetch-min effective delay")
assert fmin["workers"] == "" and fmin["fidelity_iter_time_err_pct"] == "" and fmin["cpu_load_pct"] == ""
# run b: threshold 0.5 -> measured 1 of 3 (0.875), fetch-min none
rb = {r["scenario"]: r for r in csv.DictReader(open(f"{work}/b/summary.csv"))}
close(float(rb["measured"]["effective_delay_pct"]), 100 / 3, "threshold 0.5, measured")
close(float(rb["independent_fetch-min_start-none"]["effective_delay_pct"]), 0, "threshold 0.5, fetch-min")

with h5py.File(f"{work}/a/results.h5") as f:
    g = f["scenarios/independent_fetch-min_start-none"]
    assert np.array_equal(g["iteration_time"][()], [1.25, 1.25, 1.0])
    assert np.array_equal(g["stall"][()], [0.25, 0.25, 0.0])
    assert np.array_equal(g["delay"][()], [0.0, 0.125, 0.0])
    assert np.array_equal(g["stall_time"][()], [[0.25, 0.25], [0.125, 0.25], [0, 0]])
    assert np.array_equal(g["fetch_diff"][()], [0, 0, 0]) and np.array_equal(g["start_diff"][()], [0.5, 0, 0.25])
    assert np.array_equal(g["index"][()], [0, 1, 2]) and np.array_equal(g["epoch"][()], [1, 1, 1])
    assert np.array_equal(f["scenarios/measured/stall"][()], [0.5, 1.0, 0.0])
    # row 1 of fetch max: GPU 0 ready 0.75 s later and stalled 0.125 > 0.01 -> 0.875; GPU 1 unchanged 1
    close(f["scenarios/independent_fetch-max_start-none/delay"][1], 0.125, "fetch-max delay, default sensitivity")
    # row 0 of fetch min, start min: GPU 1 ready 0.5 s earlier than its 0.25 stall -> the floor
    close(f["scenarios/independent_fetch-min_start-min/delay"][0], 0.25 - 0.000002, "floor 2e-6")
    s = f["summary"][()]
    assert [x.decode() for x in s["scenario"]] == list(rows)
    for x in s:
        close(x["iter_time_mean"], float(rows[x["scenario"].decode()]["iter_time_mean"]), "/summary")
    assert f.attrs["stallsim_version"] == version and f.attrs["gpus"] == 2
    assert f.attrs["trace"].endswith("tiny.h5")
    assert "fetch_align = none, min, max" in f.attrs["config"]
with h5py.File(f"{work}/b/results.h5") as f:
    # sensitivity 0.25: GPU 0's 0.125 stall is now slack and stays 0.125 -> delay 1 - 0.125
    close(f["scenarios/independent_fetch-max_start-none/delay"][1], 0.875, "sensitivity 0.25")
    # floor 0.125: delay 0.25 - 0.125
    close(f["scenarios/independent_fetch-min_start-min/delay"][0], 0.125, "floor 0.125")
    assert "; --set independent.stall_floor=0.125" in f.attrs["config"]
PY

# the terminal table: mean±std to 4 decimals, the measured and baseline rows marked
grep -q "^M  measured .* 1\.5000±0\.5000" "$work/table.txt" && ok || fail "table: measured row: $(cat "$work/table.txt")"
grep -q "^\*  indep f=none s=none " "$work/table.txt" && ok || fail "table: baseline marker"
# GPUs 0 and 1 each alone had the largest stall in 1 of the 3 rows: neither stands out
grep -q "^slowest loader (measured): none stands out (GPU 0 alone had the largest stall in 33.3% of iterations, the next GPU in 33.3%); the largest stall is" \
  "$work/table.txt" && ok || fail "table: slowest loader line: $(grep slowest "$work/table.txt")"
# under it, what the labels' abbreviations mean: once per model in the table
[ "$(grep -c "^indep: the independent model; f= fetch_align, s= start_align: each GPU takes the row's statistic$" "$work/table.txt")" -eq 1 ] &&
  grep -q "eff.dly% = the share of them whose delay" "$work/table.txt" && ! grep -q "^pipe:" "$work/table.txt" && ok ||
  fail "table: legend: $(cat "$work/table.txt")"

# the pipeline on the same trace, W = 1 (calibrated: both GPUs fit W = 1), P = 1, gaps 0, no delivery
# cost (refill_gap and delivery are given: their default is auto since issue 11):
#   k=0: start 0, 0.5; done 0.5, 0.75; T-1 = the epoch's first ask, the last GPU's train_start
#        - stall = max(0 - 0.5, 0 - 0.25) = -0.25; T0 = 0.75 + c0 (1.5 - 0.5 = 1) = 1.75
#   k=1: worker free at done0 = 0.5, 0.75; slot at max(T-1, done0); done 0.75, 1.75; T1 = 2.75
#   k=2: worker free at 0.75, 1.75; slot at max(T0 = 1.75, done1) = 1.75; done 2.25; T2 = 3.75
#   iteration times 2, 1, 1 vs measured 1.5, 2, 1: mean 4/3, error 100 (4/3 / 1.5 - 1) = -100/9 %,
#   MAPE 100 (0.5/1.5 + 1/2 + 0) / 3 = 250/9 %
# with step_gap 0.5: T0 = 2.25, T1 = 3.75, T2 = 5.25: iterations 2.5, 1.5, 1.5 (mean 11/6),
#   error +200/9 %, MAPE 100 (1/1.5 + 0.5/2 + 0.5/1) / 3 = 425/9 %
cat > "$work/pipe.ini" <<INI
[trace]
path = tiny.h5
warmup_iterations = 0
[scenarios]
model = pipeline
workers = auto
prefetch = 1
[pipeline]
worker_gap = 0
refill_gap = 0
delivery = 0
INI
"$stallsim" run --explain --verbose "$work/pipe.ini" --out "$work/p" > "$work/ptable.txt" || fail "pipeline run"
"$stallsim" run --explain --verbose "$work/pipe.ini" --out "$work/q" --quiet --set pipeline.step_gap=0.5 || fail "pipeline step_gap run"
$py - "$work" <<'PY' && ok || fail "pipeline fidelity figures against hand-worked values"
import csv, sys
work = sys.argv[1]
def close(a, b, what):
    assert abs(a - b) <= 1e-12 * (1 + abs(b)), (what, a, b)
for run, mean, err, mape in (("p", 4 / 3, -100 / 9, 250 / 9), ("q", 11 / 6, 200 / 9, 425 / 9)):
    rows = list(csv.DictReader(open(f"{work}/{run}/summary.csv")))
    r = rows[1]
    assert r["scenario"] == "pipeline_fetch-none_start-none_w-auto_p1_fs1_cs1" and r["workers"] == "1", r
    close(float(r["iter_time_mean"]), mean, run + " mean")
    close(float(r["fidelity_iter_time_err_pct"]), err, run + " error")
    close(float(r["fidelity_iter_time_mape_pct"]), mape, run + " MAPE")
    close(float(r["iter_time_change_pct"]), err, run + " change")
    # the whole run: every row's iteration time summed (measured 1.5 + 2 + 1), and an epoch's
    # start: the first row's largest stall (measured 0.5; replayed max(0.75 - -0.25, ...) = 1)
    close(float(rows[0]["run_time"]), 4.5, run + " measured run_time")
    close(float(rows[0]["epoch_start_time"]), 0.5, run + " measured epoch_start_time")
    assert rows[0]["run_change_pct"] == "", rows[0]
    close(float(r["run_time"]), 3 * mean, run + " run_time")
    close(float(r["run_change_pct"]), 100 * (3 * mean / 4.5 - 1), run + " run_change_pct")
    close(float(r["epoch_start_time"]), 1.0, run + " epoch_start_time")
PY
grep -q "^calibration: every GPU: W=1 P=" "$work/ptable.txt" && ok || fail "calibration line: $(head -2 "$work/ptable.txt")"
# scenarios whose settings resolve alike (workers = auto and the calibrated 1) are named as one
"$stallsim" run --explain --verbose "$work/pipe.ini" --set scenarios.workers=auto,1,2 --out "$work/same" > "$work/same.txt" 2>&1 || fail "run same settings"
grep -q '^same settings: 2 scenarios are all "pipe f=none s=none W=1 .*" here (pipeline_fetch-none_start-none_w-auto_.*, pipeline_fetch-none_start-none_w-1_.*): an auto value' \
  "$work/same.txt" && [ "$(grep -c '^same settings' "$work/same.txt")" -eq 1 ] && ok || fail "same settings line: $(cat "$work/same.txt")"
! grep -q "loads synchronously" "$work/same.txt" && ok || fail "same settings: a synchronous hint for a trace with workers"
# a synchronous trace: auto times any factor is 0 workers, and the line says to give numbers
"$stallsim" gen -o "$work/sync.h5" --gpus 2 --iterations 80 --workers 0 --seed 5 > /dev/null || fail "gen sync"
printf '[trace]\npath = sync.h5\n[scenarios]\nmodel = pipeline\nworkers = auto/2, auto, auto*2\n' > "$work/sync.ini"
"$stallsim" run --explain --verbose "$work/sync.ini" --out "$work/sync" > "$work/sync.txt" 2>&1 &&
  grep -q '^same settings: 3 scenarios are all .*W=0.*the trace loads synchronously, W = 0, and auto times any factor is 0: give worker counts as numbers' \
    "$work/sync.txt" && ok || fail "same settings on a synchronous trace: $(cat "$work/sync.txt")"
# W = 0 with two prefetch factors: one result, and why (no auto value involved)
"$stallsim" run --explain --verbose "$work/pipe.ini" --set scenarios.workers=0 --set scenarios.prefetch=2,4 --out "$work/same0" > "$work/same0.txt" 2>&1 &&
  grep -q '^same settings: 2 scenarios are all "pipe f=none s=none W=0 P=- .*" here (.*): with no workers (W = 0) the prefetch factor means nothing, so their rows are one result$' \
    "$work/same0.txt" && ok || fail "same settings, W = 0 and two prefetch factors: $(grep 'same settings' "$work/same0.txt")"
# the CPU load of a run (cpu_load_pct): with fetch CPU 0.25, 0.5 s per batch and the training
# processes' 0.25 s per iteration (both GPUs have workers), GPU 0 alone on 1 core and GPU 1
# on 2: 0.5 / (1 x T) and 0.75 / (2 x T), the larger counts: measured (T = 1.5) 100/3 %,
# the pipeline row (T = 4/3) 37.5 %; both GPUs on one pool of 2 cores: 1.25 / (2 x T): 125/3
# and 46.875 %
$py - "$work" <<'PY' || fail "python edits (CPU datasets)"
import shutil, sys, h5py, numpy as np
work = sys.argv[1]
for name, pool, cores in (("cpu-own", [0, 1], [1, 2]), ("cpu-shared", [0, 0], [2, 2])):
    shutil.copy(f"{work}/tiny.h5", f"{work}/{name}.h5")
    with h5py.File(f"{work}/{name}.h5", "r+") as f:
        f["fetch_cpu_time"] = np.array([0.25, 0.5])
        f["loop_cpu_time"] = np.array([0.25, 0.25])
        f["cpu_pool"] = np.array(pool, dtype=np.int32)
        f["cpu_pool_cores"] = np.array(cores, dtype=np.int32)
PY
for name in cpu-own cpu-shared; do
  "$stallsim" run --explain --verbose "$work/pipe.ini" --set trace.path="$work/$name.h5" --out "$work/$name" > "$work/$name.txt" || fail "run $name"
done
$py - "$work" <<'PY' && ok || fail "cpu_load_pct against hand-worked values"
import csv, sys
work = sys.argv[1]
for name, meas, pipe in (("cpu-own", 100 / 3, 37.5), ("cpu-shared", 125 / 3, 46.875)):
    rows = list(csv.DictReader(open(f"{work}/{name}/summary.csv")))
    for r, want in zip(rows, (meas, pipe)):
        assert abs(float(r["cpu_load_pct"]) - want) < 1e-9, (name, r["scenario"], r["cpu_load_pct"], want)
PY
# CPU sharing's stretch (cpu_stretch) of the baseline row, the trace's own: GPU 0 alone on its core,
# its training process and one worker each want u = 0.25 / T0 = 1/6 of a core (T0 = 1.5 s), each
# runnable with p = u s: with one core s = E[N^2] / E[N] = 1 + p, so s = 1 / (1 - 1/6) = 1.2; GPU 1's
# two threads fit its two cores (1); the column gives the larger; the measured row has none
$py - "$work" <<'PY' && ok || fail "cpu_stretch against the hand-worked value"
import csv, sys
rows = list(csv.DictReader(open(f"{sys.argv[1]}/cpu-own/summary.csv")))
assert rows[0]["cpu_stretch"] == "" and abs(float(rows[1]["cpu_stretch"]) - 1.2) < 1e-9, rows
PY
grep -q " stretch$" "$work/cpu-own.txt" && grep -q "^\*  pipe .*  1.20x$" "$work/cpu-own.txt" && ok || fail "stretch column: $(cat "$work/cpu-own.txt")"
grep -q " stretch$" "$work/ptable.txt" && fail "a stretch column without CPU sharing" || ok
# a loader that takes 2x the CPU of the others' median is named where it shares its cores
# (cpu-shared: GPU 1's 0.5 s against 0.25 s), not where it has its own (cpu-own)
grep -q "^CPU-heavy loader (recorded): GPU 1's fetches take 2.0x the CPU of the other GPUs' median (0.5000 against 0.2500 s per batch)" \
  "$work/cpu-shared.txt" && ! grep -q "CPU-heavy" "$work/cpu-own.txt" && ok || fail "CPU-heavy line: $(cat "$work/cpu-shared.txt")"
# a row that heals a GPU counts that GPU's loader at the others' median CPU per batch: healing
# GPU 1 (0.5 s per batch) in the shared pool gives it GPU 0's 0.25 s: (0.25 + 0.25) x 2 / (2 x T)
"$stallsim" run --explain --verbose "$work/pipe.ini" --set trace.path="$work/cpu-shared.h5" --set scenarios.heal=none,1 --set pipeline.cpu_sharing=false \
  --out "$work/cpu-heal" --quiet || fail "run cpu-heal"
$py - "$work/cpu-heal/summary.csv" <<'PY' && ok || fail "cpu_load_pct of a healed row"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
h = [r for r in rows if r["heal_gpu"] == "1"][0]
want = 100 * 1.0 / (2 * float(h["iter_time_mean"]))
assert abs(float(h["cpu_load_pct"]) - want) < 1e-9, (h["cpu_load_pct"], want)
PY
# a recorded CPU per fetch beyond the fetch's wall time (other units?) is named in a warning
# (none of the 312 committed traces has one)
grep -q "^calibration: warning: GPU" "$work/cpu-shared.txt" && fail "a CPU-time warning on plausible CPU times" || ok
cp "$work/cpu-shared.h5" "$work/cpu-units.h5"
$py -c "import sys, h5py; h5py.File(sys.argv[1], 'r+')['fetch_cpu_time'][...] = [0.25, 500.0]" "$work/cpu-units.h5" || fail "python edits"
"$stallsim" run --explain --verbose "$work/pipe.ini" --set trace.path="$work/cpu-units.h5" --out "$work/cpu-units" > "$work/cpu-units.txt" 2>&1 || fail "run cpu-units"
grep -q "^calibration: warning: GPU 1's recorded CPU per fetch (/fetch_cpu_time, 500 s) is .*x its median fetch time" "$work/cpu-units.txt" &&
  ok || fail "CPU per fetch beyond the fetch: $(grep calibration "$work/cpu-units.txt")"
# GPUs healed together each count at the median CPU per batch of the GPUs not healed: fetch CPU
# 0.25, 0.5, 0.75 s per batch on one pool of 2 cores, loops 0.25 s each; healing 1+2 gives both
# GPU 0's 0.25 s: (3 x 0.25 + 3 x 0.25) / (2 x T); healing 2 alone the median of {0.25, 0.5}
"$stallsim" gen -o "$work/cpu3.h5" --gpus 3 --iterations 40 --seed 5 >/dev/null || fail "gen cpu3"
$py - "$work/cpu3.h5" <<'PY' || fail "python edits (CPU datasets of 3 GPUs)"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    f["fetch_cpu_time"] = np.array([0.25, 0.5, 0.75])
    f["loop_cpu_time"] = np.array([0.25, 0.25, 0.25])
    f["cpu_pool"] = np.array([0, 0, 0], dtype=np.int32)
    f["cpu_pool_cores"] = np.array([2, 2, 2], dtype=np.int32)
PY
"$stallsim" run --explain --verbose "$work/pipe.ini" --set trace.path="$work/cpu3.h5" --set scenarios.heal=none,2,1+2 --set pipeline.cpu_sharing=false \
  --out "$work/cpu3-heal" --quiet || fail "run cpu3-heal"
$py - "$work/cpu3-heal/summary.csv" <<'PY' && ok || fail "cpu_load_pct of GPUs healed together"
import csv, sys
rows = {r["heal_gpus"]: r for r in csv.DictReader(open(sys.argv[1])) if r["model"] == "pipeline"}
for heal, need in (("", 0.75 + 1.5), ("2", 0.75 + 0.25 + 0.5 + 0.375), ("1-2", 0.75 + 0.75)):  # 1+2 is written 1-2
    r = rows[heal]
    want = 100 * need / (2 * float(r["iter_time_mean"]))
    assert abs(float(r["cpu_load_pct"]) - want) < 1e-9, (heal, r["cpu_load_pct"], want)
PY
grep -q "^CPU (recorded): the measured steady state kept 42% of its 2 cores busy; no scenario would need more than all" \
  "$work/cpu-shared.txt" && ok || fail "CPU line: $(cat "$work/cpu-shared.txt")"
# two pools (one core and two): the busiest pool named (GPU 0's 1 core: 100/3 %)
grep -q "^CPU (recorded): the measured steady state kept 33% of its busiest pool's 1 core busy (the pool of GPU 0)" \
  "$work/cpu-own.txt" && ok || fail "CPU line of two pools: $(cat "$work/cpu-own.txt")"
grep -q "^CPU (recorded)" "$work/ptable.txt" && fail "a CPU line without recorded CPU times" || ok
# compare gives the trace's measured run and the sweep's rows their load (the trace's from
# its own calibration: the same 100/3 %), and - where a trace records no CPU times
"$stallsim" compare "$work/cpu-own.h5" "$work/cpu-own" "$work/tiny.h5" --warmup 0 --csv "$work/cpu-cmp.csv" \
  > "$work/cpu-cmp.txt" || fail "compare cpu-own"
$py - "$work/cpu-cmp.csv" <<'PY' && ok || fail "compare: cpu_load_pct"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert abs(float(rows[0]["cpu_load_pct"]) - 100 / 3) < 1e-9 and abs(float(rows[1]["cpu_load_pct"]) - 100 / 3) < 1e-9, rows[:2]
assert abs(float(rows[2]["cpu_load_pct"]) - 37.5) < 1e-9 and rows[3]["cpu_load_pct"] == "" and rows[3]["cpu_load_pct_diff"] == "", rows
PY
# info prints the CPU datasets: the medians per GPU and the pools
"$stallsim" info --verbose "$work/cpu-own.h5" > "$work/cpu-own.info" || fail "info cpu-own"
# (a pool of one GPU has no training processes to align: no alignment line)
grep -q "started their steps together" "$work/cpu-own.info" && fail "info: an alignment line for pools of one GPU"
grep -q "^fetch_cpu_time 0.2500 0.5000 s" "$work/cpu-own.info" && grep -q "^loop_cpu_time 0.2500 0.2500 s" "$work/cpu-own.info" &&
  grep -q "^cpu_pool      2 pools of cores (GPU 0's: 1 core shared by 1 GPU)" "$work/cpu-own.info" && ok ||
  fail "info: CPU lines: $(cat "$work/cpu-own.info")"
# without --verbose: the per-GPU CPU times and the calibration's lines but its warnings are
# left out, and the last line says where they are
"$stallsim" info "$work/cpu-own.h5" > "$work/cpu-brief.info" || fail "info cpu-own, brief"
! grep -q "^fetch_cpu_time\|^loop_cpu_time" "$work/cpu-brief.info" &&
  ! grep -v "warning:" "$work/cpu-brief.info" | grep -q "^calibration:" &&
  grep -q "^cpu_pool      2 pools of cores" "$work/cpu-brief.info" &&
  tail -1 "$work/cpu-brief.info" | grep -q "^(stallsim info --verbose adds" &&
  [ "$(grep -c . "$work/cpu-brief.info")" -lt "$(grep -c . "$work/cpu-own.info")" ] && ok ||
  fail "info without --verbose: $(cat "$work/cpu-brief.info")"
"$stallsim" info -v "$work/cpu-own.h5" | cmp -s - "$work/cpu-own.info" && ok || fail "info -v is not info --verbose"
# a trace's text with control characters prints them escaped: no colour, no fake line
cp "$work/cpu-own.h5" "$work/ctl.h5"
$py -c 'import sys, h5py; f = h5py.File(sys.argv[1], "r+"); f.attrs["source"] = "a\x1b[31mred\nfake: line"' "$work/ctl.h5"
"$stallsim" info "$work/ctl.h5" > "$work/ctl.info" 2>&1
! grep -q $'\x1b' "$work/ctl.info" && ! grep -q "^fake: line" "$work/ctl.info" &&
  grep -qF 'source        a\x1B[31mred\x0Afake: line' "$work/ctl.info" && ok ||
  fail "info prints a trace's control characters raw: $(grep -a -A1 ^source "$work/ctl.info" | cat -A)"
# each pool's GPUs as the heal set that fixes that node (a pool of one GPU: that GPU); a
# single pool (cpu-shared) lists none (healing every GPU is refused)
grep -qx "              pool of GPU 0: 1 core, GPU 0 alone (heal = 0 heals it)" "$work/cpu-own.info" &&
  grep -qx "              pool of GPU 1: 2 cores, GPU 1 alone (heal = 1 heals it)" "$work/cpu-own.info" &&
  "$stallsim" info --verbose "$work/cpu-shared.h5" > "$work/cpu-shared.info" && ! grep -q "pool of GPU" "$work/cpu-shared.info" &&
  ok || fail "info: the pools' heal sets: $(grep -A3 ^cpu_pool "$work/cpu-own.info")"
# a node of GPUs 0 and 3 and one of GPUs 1-2 (a generated trace of 4 GPUs given pools)
"$stallsim" gen -o "$work/pools4.h5" --gpus 4 --iterations 20 > /dev/null || fail "gen pools4"
$py - "$work/pools4.h5" <<'PY' || fail "python edits (pools4.h5)"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    f["fetch_cpu_time"] = np.full(4, 0.01)
    f["loop_cpu_time"] = np.full(4, 0.01)
    f["cpu_pool"] = np.array([0, 1, 1, 0], dtype=np.int32)
    f["cpu_pool_cores"] = np.array([2, 1, 1, 2], dtype=np.int32)
PY
"$stallsim" info --verbose "$work/pools4.h5" > "$work/pools4.info" &&
  grep -qx "              pool of GPU 0: 2 cores, GPUs 0+3 (heal = 0+3 heals them together)" "$work/pools4.info" &&
  grep -qx "              pool of GPU 1: 1 core, GPUs 1-2 (heal = 1-2 heals them together)" "$work/pools4.info" &&
  ok || fail "info: two nodes' heal sets: $(grep -A3 ^cpu_pool "$work/pools4.info")"

grep -q "^fidelity of the baseline replay (the \\* row, pipeline_fetch-none_start-none_w-auto_p1_fs1_cs1): mean iteration time -11.11% vs measured, mean |error| per iteration (MAPE) 27.78%" \
  "$work/ptable.txt" && ok || fail "fidelity line: $(cat "$work/ptable.txt")"

# the trace writer: a units attribute on every dataset, chunked along the rows
"$stallsim" gen -o "$work/g.h5" --gpus 3 --iterations 50 --seed 2 >/dev/null || fail "gen"
$py - "$work/g.h5" <<'PY' && ok || fail "stalltrace schema: units and chunks"
import sys, h5py
with h5py.File(sys.argv[1]) as f:
    assert f.attrs["schema"] == "stalltrace" and f.attrs["schema_version"] == 1
    for k, d in f["timeline"].items():
        assert d.attrs["units"] in ("s", "1"), k
        assert d.chunks is not None and d.shape[0] == 50, k
PY

# help and version
"$stallsim" --version | grep -qE "^stallsim [0-9]+\.[0-9]+\.[0-9]+$" && ok || fail "--version"
for c in run import info gen compare doc; do
  "$stallsim" $c --help | grep -q "^usage: stallsim $c" && ok || fail "$c --help"
  "$stallsim" help $c | grep -q "^usage: stallsim $c" && ok || fail "help $c"
done
"$stallsim" --help | grep -q "^usage: stallsim COMMAND" && ok || fail "--help"
"$stallsim" help | grep -q "^usage: stallsim COMMAND" && ok || fail "help"
"$stallsim" help nope 2> "$work/err"; rc=$?
[ $rc -eq 2 ] && grep -q "^stallsim: unknown command 'nope'" "$work/err" && ok || fail "help nope: rc=$rc"
"$stallsim" doc foo 2> "$work/err"; rc=$?
[ $rc -eq 2 ] && grep -q "^stallsim: doc: 'foo' is not keys or columns" "$work/err" && ok || fail "doc foo: rc=$rc $(cat "$work/err")"

# more ranks than scenarios: 4 ranks for the measured row and one scenario
if [ "$have_mpi" = 1 ]; then
  "$stallsim" run --explain --verbose "$work/tiny.ini" --set scenarios.fetch_align=min --set scenarios.start_align=none \
    --set output.per_iteration=false --out "$work/one" --quiet || fail "two-row run"
  mpirun_t 4 "$stallsim" run --explain --verbose "$work/tiny.ini" --set scenarios.fetch_align=min --set scenarios.start_align=none \
    --set output.per_iteration=false --out "$work/one4" --quiet || fail "np=4 run"
  same_file "$work/one/summary.csv" "$work/one4/summary.csv" "4 ranks, 2 rows"
  mpirun_t 3 "$stallsim" run --explain --verbose "$work/pipe.ini" --out "$work/p3" --quiet || fail "pipeline np=3"
  same_file "$work/p/summary.csv" "$work/p3/summary.csv" "3 ranks, one pipeline scenario"
fi

# info's per-GPU means: on the tiny trace every row is an epoch's first 11, so all three
# rows count (GPU 0: iteration (1.5 + 1 + 1) / 3, stall (0.5 + 0.125 + 0) / 3)
"$stallsim" info "$work/tiny.h5" > "$work/info-tiny.txt" 2>&1 || fail "info tiny"
grep -q "^means over all 3 iterations" "$work/info-tiny.txt" &&
  awk '$1 == "0" && $2 == "1.166667" && $3 == "0.208333" { f = 1 } END { exit !f }' "$work/info-tiny.txt" && ok ||
  fail "info tiny means: $(cat "$work/info-tiny.txt")"
# past the warm-up: 2 epochs of 20 rows, each epoch's first 11 left out (as run's measured
# row does by default), the means recomputed here from the file
"$stallsim" gen -o "$work/w.h5" --gpus 2 --iterations 20 --epochs 2 --seed 4 > /dev/null || fail "gen w"
"$stallsim" info "$work/w.h5" > "$work/info-w.txt" 2>&1 || fail "info w"
$py - "$work/w.h5" "$work/info-w.txt" <<'PY' && ok || fail "info means past the warm-up: $(cat "$work/info-w.txt")"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    t = f["timeline"]
    keep = t["index"][()] >= 11
    it, st = t["iteration_time"][()][keep], t["stall_time"][()][keep]
lines = open(sys.argv[2]).read().splitlines()
assert any(l.startswith("means over the 18 of 40 iterations past each epoch's first 11") for l in lines), lines
for g in (0, 1):
    row = [l.split() for l in lines if l.split()[:1] == [str(g)] and len(l.split()) == 9][0]
    assert abs(float(row[1]) - it[:, g].mean()) < 1e-6 and abs(float(row[2]) - st[:, g].mean()) < 1e-6, (row, it[:, g].mean())
PY
# per_iteration over a sweep whose series would pass 1 GB: warned on stderr before the sweep
# (here 43,920 scenarios of the 300-row demo trace; interrupted once it has said so), not for
# a small one
w=$(seq -s, 1 60)
f=$($py -c "print(','.join('%.2f' % (0.1 + 0.02 * i) for i in range(61)))")
printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = %s\nfetch_scale = %s\nprefetch = 1, 2, 3, 4\nheal = none, 0, 1\n[output]\nper_iteration = true\n' \
  "$src/datasets/demo-4gpu.h5" "$w" "$f" > "$work/pi.ini"
timeout -s INT 10 "$stallsim" run "$work/pi.ini" --out "$work/pi" 2> "$work/pi.err" > /dev/null
grep -q "^stallsim: warning: \[output\] per_iteration = true writes every scenario's series: about 1.2 GB into results.h5 for 43921 scenarios of 300 iterations" "$work/pi.err" &&
  "$stallsim" run "$work/pi.ini" --set scenarios.workers=1 --set scenarios.fetch_scale=1 --out "$work/pi1" 2> "$work/pi1.err" > /dev/null &&
  ! grep -q "per_iteration" "$work/pi1.err" && ok || fail "per_iteration's size warning: $(cat "$work/pi.err" "$work/pi1.err")"
# a slab of a few iterations reads the trace in small pieces: warned (not under --quiet)
"$stallsim" run "$work/pi.ini" --set scenarios.workers=1 --set scenarios.fetch_scale=1 --set output.per_iteration=false \
  --set run.slab_iterations=10 --out "$work/sl" 2> "$work/sl.err" > /dev/null &&
  grep -q "^stallsim: warning: a slab holds 10 iterations (\[run\] slab_iterations): the trace is read and replayed in many small pieces" "$work/sl.err" &&
  "$stallsim" run "$work/pi.ini" --set scenarios.workers=1 --set scenarios.fetch_scale=1 --set output.per_iteration=false \
  --set run.slab_iterations=10 --out "$work/sl" --quiet 2> "$work/slq.err" > /dev/null && [ ! -s "$work/slq.err" ] &&
  ok || fail "small slab warning: $(cat "$work/sl.err" "$work/slq.err")"
# [pipeline] quiet_host: a trace recorded beside other processes (its host shares set so)
# replays faster as if the job ran alone, its baseline row too; a trace that records no other
# load (o = 0) replays as without the key, but its baseline row is not of the class baseline
g=$src/datasets/pytorch-grid-zr
if [ -e "$g/w2-x1-p2.h5" ]; then
  cp "$g/w2-x1-p2.h5" "$work/qh-busy.h5"
  $py - "$work/qh-busy.h5" <<'PY' || fail "setting the host shares"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r+")
f["host_cpu_busy"][...] = f["host_cpu_job"][()] + 0.3
PY
  for t in busy quiet; do
    src_trace=$work/qh-busy.h5
    [ $t = quiet ] && src_trace=$g/w2-x1-p2.h5
    for q in false true; do
      printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 4\n[pipeline]\nquiet_host = %s\n[output]\ndir = %s\n' \
        "$src_trace" $q "$work/qh-$t-$q" > "$work/qh-$t-$q.ini"
      "$stallsim" run "$work/qh-$t-$q.ini" > "$work/qh-$t-$q.txt" 2>&1 || fail "quiet_host = $q on the $t trace: $(cat "$work/qh-$t-$q.txt")"
    done
  done
  $py - "$work" <<'PY' && ok || fail "quiet_host: $(cat "$work/qh-busy-true.txt" | head -5)"
import csv, sys
w = sys.argv[1]
rows = {k: list(csv.DictReader(open("%s/qh-%s/summary.csv" % (w, k)))) for k in ("busy-false", "busy-true", "quiet-false", "quiet-true")}
keep, alone = rows["busy-false"], rows["busy-true"]
# the measured row is the trace's; every pipeline row of the busy trace is faster alone
assert keep[0]["iter_time_mean"] == alone[0]["iter_time_mean"]
for a, b in zip(keep[1:], alone[1:]):
    assert float(b["iter_time_mean"]) < float(a["iter_time_mean"]), (a["iter_time_mean"], b["iter_time_mean"])
assert keep[1]["error_class"] == "baseline" and alone[1]["error_class"] != "baseline", (keep[1]["error_class"], alone[1]["error_class"])
# no other load recorded: the same figures with and without the key
q0, q1 = rows["quiet-false"], rows["quiet-true"]
for a, b in zip(q0, q1):
    for k in ("iter_time_mean", "run_time", "stall_mean", "cpu_stretch"):
        assert a[k] == b[k], (k, a[k], b[k])
PY
  grep -q "^note: other processes used 30 % of the job's cores while it was recorded; quiet_host: the pipeline rows as if the job ran alone" "$work/qh-busy-true.txt" &&
    grep -q "or set \[pipeline\] quiet_host = true" "$work/qh-busy-false.txt" &&
    grep -q "^note: quiet_host takes nothing out here" "$work/qh-quiet-true.txt" &&
    ! grep -q "quiet_host takes nothing out" "$work/qh-busy-true.txt" && ok || fail "quiet_host's notes: $(head -2 "$work/qh-busy-true.txt" "$work/qh-quiet-true.txt")"
else
  echo "skipped: grid ZR's traces are missing"
fi

finish
