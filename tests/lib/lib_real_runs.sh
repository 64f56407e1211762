# lib_real_runs.sh - shared by the tests/validation/real_runs_*.sh scripts, which hold the
# models against the committed real PyTorch runs (datasets/, README "How far to trust the
# predictions"): a real run's model change that moves a prediction out of range fails them.
# These are real runs, not traces the tool made. Sources lib_cli.sh; skips (77) where the
# datasets are absent. Usage: . "$(dirname "$0")/../lib/lib_real_runs.sh" "$@"
. "$(dirname "${BASH_SOURCE[0]}")/lib_cli.sh" "$@"
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
  "$stallsim" run --explain --verbose "$work/$1.ini" --out "$work/$1" > "$work/$1.out" 2>&1 || fail "$1: run from $2"
  "$stallsim" compare "$4" "$work/$1" --csv "$work/$1.csv" >/dev/null || fail "$1: compare with $4"
}

pipe_base='pipeline_fetch-none_start-none_w-auto_p2_fs1_cs1'

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
    "$stallsim" run --explain --verbose "$work/$name-$v.ini" --out "$work/$name-$v" > "$work/$name-$v.out" 2>&1 || fail "$name: run ($v)"
    for r in "$@"; do
      "$stallsim" compare "$r" "$work/$name-$v" --warmup 10 --csv "$work/$name-$v-$(basename "$r" .h5).csv" >/dev/null ||
        fail "$name: compare $r ($v)"
    done
  done
}
