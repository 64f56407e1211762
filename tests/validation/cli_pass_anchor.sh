#!/usr/bin/env bash
# cli_pass_anchor.sh - the first asks scale from each loop's own pass start
# (MODELS-pipeline.md, "The first asks"): on real runs whose rank 0 alone evaluates after
# every epoch (datasets/pytorch-eval-r0), 4 workers' whole run from the 1-worker run against
# the real 4-worker runs, with the rule and with it switched off; and on a copy whose loops
# all begin each pass at one moment, the rule gives what the spread over the earliest ask
# gives.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3
$py -c "import h5py, numpy" 2>/dev/null || { echo "skipped: /usr/bin/python3 lacks h5py"; exit 77; }
data=$(cd "$src" && pwd)/datasets/pytorch-eval-r0
for f in w1-a w1-a-eval w4-a w4-a-eval w4-b w4-b-eval; do
  [ -e "$data/$f.h5" ] || { echo "skipped: $data/$f.h5 is missing"; exit 77; }
done

ini() { # ini FILE TRACE EVAL WORKERS
  printf '[trace]\npath = %s\neval_path = %s\n[scenarios]\nmodel = pipeline\nworkers = %s\n' "$2" "$3" "$4" > "$1"
}
ini "$work/p.ini" "$data/w1-a.h5" "$data/w1-a-eval.h5" "auto, 4"
"$stallsim" run "$work/p.ini" --out "$work/on" --quiet && ok || fail "run"
STALLSIM_PIPELINE_OFF=pass_anchor "$stallsim" run "$work/p.ini" --out "$work/off" --quiet && ok || fail "run, pass_anchor off"
for r in a b; do
  ini "$work/$r.ini" "$data/w4-$r.h5" "$data/w4-$r-eval.h5" auto
  "$stallsim" run "$work/$r.ini" --out "$work/real-$r" --quiet && ok || fail "run on w4-$r"
done
$py - "$work" <<'PY' && ok || fail "4 workers' whole run from the 1-worker run against the real runs"
import csv, sys
w = sys.argv[1]
def rows(d):
    return {r["scenario"]: float(r["run_time"]) for r in csv.DictReader(open("%s/%s/summary.csv" % (w, d)))}
real = (rows("real-a")["measured"] + rows("real-b")["measured"]) / 2
name = "pipeline_fetch-none_start-none_w-4_p2_fs1_cs1"
on, off = rows("on")[name] / real - 1, rows("off")[name] / real - 1
# rank 0 begins each pass after evaluating alone: with the rule only the loops' time in
# iter(loader) scales; without it that delay scaled with the workers too
assert abs(on) < 0.08, (on, off)
assert off > 0.5, (on, off)
PY

# the answer says that rank 0 began its passes late, where no evaluation trace replays it
printf '[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 4\n' "$data/w1-a.h5" > "$work/late.ini"
"$stallsim" run "$work/late.ini" --out "$work/late" > "$work/late.txt" 2>&1 && ok || fail "run without eval_path"
grep -q "^late passes: GPU 0 began its passes .* s late in all (.*%), kept as measured: see eval_path$" "$work/late.txt" && ok \
  || fail "no late-passes line: $(cat "$work/late.txt")"
"$stallsim" run "$work/p.ini" --out "$work/on2" > "$work/on2.txt" 2>&1 && ! grep -q "^late passes" "$work/on2.txt" && ok \
  || fail "a late-passes line beside the replayed evaluation loader: $(cat "$work/on2.txt")"

# the loops all begin each pass at one moment (each epoch's earliest pass start for every
# GPU): the rule is the spread's over the earliest ask
$py - "$data/w1-a.h5" "$work/aligned.h5" <<'PY' && ok || fail "the aligned copy"
import shutil, sys, h5py, numpy as np
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "r+") as f:
    p = f["pass_start_time"][:]
    f["pass_start_time"][:] = np.repeat(p.min(axis=1, keepdims=True), p.shape[1], axis=1)
PY
ini "$work/al.ini" "$work/aligned.h5" none "auto, 2, 4"
"$stallsim" run "$work/al.ini" --out "$work/al-on" --quiet && ok || fail "run on the aligned copy"
STALLSIM_PIPELINE_OFF=pass_anchor "$stallsim" run "$work/al.ini" --out "$work/al-off" --quiet && ok \
  || fail "run on the aligned copy, pass_anchor off"
$py - "$work/al-on/summary.csv" "$work/al-off/summary.csv" <<'PY' && ok || fail "aligned pass starts: the two rules differ"
import csv, sys
a, b = (list(csv.DictReader(open(p))) for p in sys.argv[1:3])
assert len(a) == len(b) == 4
for x, y in zip(a, b):
    for k in ("run_time", "iter_time_mean", "epoch_start_time"):
        assert abs(float(x[k]) - float(y[k])) <= 1e-9 * abs(float(y[k])), (x["scenario"], k, x[k], y[k])
PY
# healing a GPU whose loader is as the other's (heal_own_work, MODELS-pipeline.md, "Healing a
# GPU"): rank 0 begins each pass after evaluating alone, its own work; healing either GPU's
# loader keeps that wait, so the whole run stays within a percent of the replay, where the
# others' median first ask (the rule switched off) drops rank 0's evaluation wait
printf '[trace]\npath = %s\neval_path = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, 2\nheal = none, 0, 1\n' \
  "$data/w1-a.h5" "$data/w1-a-eval.h5" > "$work/h.ini"
"$stallsim" run "$work/h.ini" --out "$work/h-on" --quiet && ok || fail "run heals"
STALLSIM_PIPELINE_OFF=heal_own_work "$stallsim" run "$work/h.ini" --out "$work/h-off" --quiet && ok ||
  fail "run heals, heal_own_work off"
$py - "$work" <<'PY' && ok || fail "a heal of a loader like the others' keeps its loop's own work"
import csv, sys
w = sys.argv[1]
def rows(d):
    return {r["scenario"]: float(r["run_time"]) for r in csv.DictReader(open("%s/%s/summary.csv" % (w, d)))}
on, off = rows("h-on"), rows("h-off")
for wk in ("auto", "2"):
    base = "pipeline_fetch-none_start-none_w-%s_p2_fs1_cs1" % wk
    for h in (0, 1):
        d = on["%s_heal-%d" % (base, h)] / on[base] - 1
        assert abs(d) < 0.01, (wk, h, d)
    d0 = off["%s_heal-0" % base] / off[base] - 1
    assert d0 < -0.10, (wk, d0)  # (without the rule: rank 0's evaluation wait dropped)
print("heals within 1 % of the replay with the rule; heal 0 without it:",
      round(100 * (off["pipeline_fetch-none_start-none_w-auto_p2_fs1_cs1_heal-0"] / off["pipeline_fetch-none_start-none_w-auto_p2_fs1_cs1"] - 1), 1), "%")
PY
finish
