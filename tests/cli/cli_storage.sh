#!/usr/bin/env bash
# cli_storage.sh - storage sharing from the command line: storage_parallel's bounds; with it,
# the baseline replays exactly as without it and more workers read slower, fewer faster
# (read_stretch), the table shows `reads` and its legend the trace's reads in flight, the
# calibration lines T0 and C; run's notes: without it where the fetches are mostly not CPU
# work and a scenario changes the workers (naming such a scenario), not on gen's traces,
# and on gen's traces with it; scripts/storage_probe.py's refusals and its fit on a folder
# of files (read from the page cache: the shape of its output, not a storage's figures).
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3
"$stallsim" gen -o "$work/g.h5" --gpus 2 --iterations 300 --workers 2 --seed 5 >/dev/null || fail "gen"
printf '[trace]\npath = g.h5\n[scenarios]\nmodel = pipeline\nworkers = auto, 1, 4\n[pipeline]\nstorage_parallel = 2\n' > "$work/s.ini"

# bounds: 0 (off) or 1 .. 1e9, one value
for v in 0.5 -1 abc 1e10 "2, 4"; do
  "$stallsim" run --explain --verbose "$work/s.ini" --set "pipeline.storage_parallel=$v" --quiet 2>"$work/bad.err"
  [ $? -eq 2 ] && grep -q "storage_parallel = '$v' must be 0 (no limit) or a number from 1 to" "$work/bad.err" && ok ||
    fail "storage_parallel = $v: $(cat "$work/bad.err")"
done

# with and without: the same baseline row, more workers slower reads, fewer faster
"$stallsim" run --explain --verbose "$work/s.ini" --out "$work/on" > "$work/on.txt" || fail "run with storage sharing"
"$stallsim" run --explain --verbose "$work/s.ini" --set pipeline.storage_parallel=0 --out "$work/off" > "$work/off.txt" || fail "run without"
$py - "$work/on/summary.csv" "$work/off/summary.csv" <<'PY' && ok || fail "read_stretch with and without storage sharing"
import csv, sys
on, off = ({r["workers"]: r for r in csv.DictReader(open(p))} for p in sys.argv[1:3])
assert on["2"]["read_stretch"] == "1" and on["2"]["iter_time_mean"] == off["2"]["iter_time_mean"], (on["2"], off["2"])
assert float(on["4"]["read_stretch"]) > 1 > float(on["1"]["read_stretch"]) > 0, on
assert all(r["read_stretch"] == "" for r in off.values()), off
PY
grep -q "^reads = how many times as long as in the trace each read of a fetch takes" "$work/on.txt" &&
  grep -q "the trace kept [0-9.]* reads in flight on average" "$work/on.txt" && grep -q " reads$" "$work/on.txt" &&
  grep -q "^calibration: storage sharing (\[pipeline\] storage_parallel = 2): the trace's period T0 = " "$work/on.txt" && ok ||
  fail "the table's reads column, legend or calibration line: $(cat "$work/on.txt")"
grep -q "reads" "$work/off.txt" && fail "a reads column without storage sharing" || ok
# gen's traces: the note with storage sharing, none without
grep -q "^note: the trace is one that stallsim gen made" "$work/on.txt" && ok || fail "no note on gen's trace"
grep -q "median fetch is" "$work/off.txt" && fail "the storage note on gen's trace" || ok

# a trace that is not gen's (the same, its marks changed): the note names a scenario of
# other workers and the part of the fetch taken as reads
cp "$work/g.h5" "$work/r.h5"
$py - "$work/r.h5" <<'PY' || fail "relabel"
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    f.attrs["log_type"] = "pytorch"
    f.attrs["source"] = "a test's copy"
PY
sed 's/g\.h5/r.h5/' "$work/s.ini" > "$work/r.ini"
"$stallsim" run --explain --verbose "$work/r.ini" --set pipeline.storage_parallel=0 --out "$work/roff" > "$work/roff.txt" || fail "run r"
grep -q "^note: 100 % of the trace's median fetch is taken as reads, as the trace records no CPU time of its fetches.*such as pipe W=1[ ,].*set \[pipeline\] storage_parallel" \
  <(sed 's/pipe f=none s=none /pipe /' "$work/roff.txt") && ok || fail "storage note: $(grep '^note' "$work/roff.txt")"
# with a CPU part that takes most of the fetch ([pipeline] fetch_cpu), no note
"$stallsim" run --explain --verbose "$work/r.ini" --set pipeline.storage_parallel=0 --set pipeline.fetch_cpu=0.9 --out "$work/rcpu" > "$work/rcpu.txt" ||
  fail "run r with fetch_cpu"
grep -q "median fetch is" "$work/rcpu.txt" && fail "storage note where the fetch is CPU work" || ok
# only the baseline's workers: no note
"$stallsim" run --explain --verbose "$work/r.ini" --set pipeline.storage_parallel=0 --set scenarios.workers=auto --out "$work/rown" > "$work/rown.txt" ||
  fail "run r, own workers"
grep -q "median fetch is" "$work/rown.txt" && fail "storage note without a change of workers" || ok

# the probe: refusals, then a fit on 120 small-ish files read from the page cache
probe=$src/scripts/storage_probe.py
mkdir -p "$work/files"
$py - "$work/files" <<'PY' || fail "files"
import os, sys
for i in range(120):
    with open(os.path.join(sys.argv[1], "f%03d" % i), "wb") as fh:
        fh.write(os.urandom(32 * 1024))
PY
$py "$probe" "$work/files" --threads 1 >/dev/null 2>"$work/p1.err"; [ $? -eq 2 ] && grep -q "one count of readers (--threads 1): nothing to fit" "$work/p1.err" && ok ||
  fail "probe, one thread count: $(cat "$work/p1.err")"
$py "$probe" "$work/files" --threads 1,200 >/dev/null 2>"$work/p2.err"; [ $? -eq 2 ] && grep -q "200 readers would leave some" "$work/p2.err" && ok ||
  fail "probe, more threads than files: $(cat "$work/p2.err")"
$py "$probe" "$work/nothere" >/dev/null 2>"$work/p3.err"; [ $? -eq 1 ] && grep -q "not a folder" "$work/p3.err" && ok ||
  fail "probe, no folder: $(cat "$work/p3.err")"
$py "$probe" "$work/files" --threads 1,2,4 --repeat 2 --cached > "$work/p4.txt" 2>"$work/p4.err" || fail "probe: $(cat "$work/p4.err")"
grep -q "^storage_probe.py: 120 files, 3.9 MB" "$work/p4.txt" && grep -q "^fits of each round of passes alone: " "$work/p4.txt" &&
  grep -qE "^(fitted: sigma\(n\) = 1 \+ \(n - 1\) / [0-9.]+  ->  \[pipeline\] storage_parallel = [0-9.]+|reads did not slow down)" "$work/p4.txt" &&
  [ "$(grep -c '^ *[124] ' "$work/p4.txt")" = 3 ] && ok || fail "probe output: $(cat "$work/p4.txt" "$work/p4.err")"
finish
