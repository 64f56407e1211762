#!/usr/bin/env bash
# cli_import_table.sh - `stallsim import table`: hand-made tables (seconds and ISO
# timestamps, end times and durations, any rank order within a step, gzip) by value;
# `--help` shows the header; errors name file and line.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3

# seconds (Unix time), ends given: the origin is the first row's whole second
cat > "$work/a.csv" <<'CSV'
rank,epoch,step,fetch_start,fetch_end,train_start,step_end,stall_time,note
1,1,0,1700000010.25,1700000010.75,1700000011.0,1700000012.0,0.125,"x, y"
0,1,0,1700000010.5,1700000010.875,1700000011.25,1700000012.25,0.25,
# a comment line, and a blank one

0,1,1,1700000011.5,1700000012.0,1700000012.25,1700000013.5,0,z
1,1,1,1700000011.75,1700000012.5,1700000012.5,1700000013.25,0.5,z
0,2,0,1700000014,1700000014.5,1700000015,1700000016,1,z
1,2,0,1700000014.25,1700000014.75,1700000015,1700000016,1,z
CSV
"$stallsim" import table "$work/a.csv" -o "$work/a.h5" > "$work/o.txt" 2>&1 || fail "a.csv: $(cat "$work/o.txt")"
grep -q "replaced" "$work/o.txt" && fail "a new file called replaced: $(cat "$work/o.txt")" || ok
# importing again over a trace replaces it, and says so
"$stallsim" import table "$work/a.csv" -o "$work/a.h5" > "$work/o.txt" 2>&1 &&
  grep -q "a.h5: replaced the trace that was there" "$work/o.txt" && ok || fail "a second import: $(cat "$work/o.txt")"
# a trace of another input is kept: the import is refused, and the trace left as it was
cp "$work/a.csv" "$work/a2.csv"
cp "$work/a.h5" "$work/a-before.h5"
"$stallsim" import table "$work/a2.csv" -o "$work/a.h5" > "$work/o.txt" 2>&1
[ $? -eq 2 ] && grep -q "a.h5: a trace of another source is there (table:.*/a.csv; this import.s: table:.*a2.csv)" "$work/o.txt" &&
  cmp -s "$work/a.h5" "$work/a-before.h5" && ok || fail "an import over another input's trace: $(cat "$work/o.txt")"
# the same table with ISO times and durations, gzip-compressed, columns in another order
cat > "$work/b.csv" <<'CSV'
gpu,epoch,step,train_start,fetch_start,fetch_time,iteration_time,stall
1,1,0,2023-11-14T22:13:31.000000,2023-11-14T22:13:30.250000,0.5,1.125,0.125
0,1,0,2023-11-14 22:13:31.25,2023-11-14T22:13:30.5,0.375,1.25,0.25
0,1,1,2023-11-14T22:13:32.25,2023-11-14T22:13:31.5,0.5,1.25,0
1,1,1,2023-11-14T22:13:32.5,2023-11-14T22:13:31.75,0.75,1.25,0.5
1,2,0,2023-11-14T22:13:35,2023-11-14T22:13:34.25,0.5,2,1
0,2,0,2023-11-14T22:13:35,2023-11-14T22:13:34,0.5,2,1
CSV
# the same times with zones (+01:00 is an hour later in local time; Z as given) give the same trace
sed -e 's/\(2023-11-14[T ]\)22\(:[0-9:.]*\)/\123\2+01:00/g' "$work/b.csv" > "$work/bz.csv"
"$stallsim" import table "$work/bz.csv" -o "$work/bz.h5" > "$work/o.txt" 2>&1 || fail "bz.csv (zones): $(cat "$work/o.txt")"
gzip "$work/b.csv"
"$stallsim" import table "$work/b.csv.gz" -o "$work/b.h5" > "$work/o.txt" 2>&1 || fail "b.csv.gz: $(cat "$work/o.txt")"
$py - "$work/a.h5" "$work/b.h5" "$work/bz.h5" <<'PY' && ok || fail "table values"
import sys, h5py, numpy as np
exp = dict(epoch=[1, 1, 2], index=[0, 1, 0],
           # seconds after the origin 2023-11-14T22:13:30 (Unix time 1700000010)
           fetch_start=[[0.5, 0.25], [1.5, 1.75], [4, 4.25]],
           fetch_time=[[0.375, 0.5], [0.5, 0.75], [0.5, 0.5]],
           train_start=[[1.25, 1.0], [2.25, 2.5], [5, 5]],
           # step_end - (train_start - stall)
           iteration_time=[[1.25, 1.125], [1.25, 1.25], [2, 2]],
           stall_time=[[0.25, 0.125], [0, 0.5], [1, 1]])
for p in sys.argv[1:]:
    with h5py.File(p) as f:
        a = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f.attrs.items()}
        assert a["gpus"] == 2 and a["iterations"] == 3 and a["fetch_times"] == "measured", a
        assert a["time_origin"] == "2023-11-14T22:13:30.000000", (p, a["time_origin"])
        for k, v in exp.items():
            got = f["timeline/" + k][()]
            assert np.allclose(got, v, rtol=0, atol=1e-6), (p, k, got, v)
PY
# a training log's columns, without fetch times (the wait and the step): fetch_times = absent,
# the fetch columns hold the wait; the other columns as with them
cut -d, -f1-3,6-8 "$work/a.csv" > "$work/nofetch.csv"
"$stallsim" import table "$work/nofetch.csv" -o "$work/nofetch.h5" > "$work/o.txt" 2>&1 &&
  $py - "$work/a.h5" "$work/nofetch.h5" <<'PY' && ok || fail "a table without fetch columns: $(cat "$work/o.txt")"
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
# the origin: the whole second of when the first row began to wait, its train_start less its
# stall (1700000011.0 - 0.125 s): not the train_start's own second, which would set that wait before 0
assert b.attrs["fetch_times"] in (b"absent", "absent") and b.attrs["time_origin"] in (b"2023-11-14T22:13:30.000000", "2023-11-14T22:13:30.000000")
t = {k: b["timeline/" + k][()] for k in b["timeline"]}
for k in ("epoch", "index", "iteration_time", "stall_time"):
    assert np.array_equal(a["timeline/" + k][()], t[k]), k
assert np.allclose(a["timeline/train_start"][()], t["train_start"], rtol=0, atol=1e-9)
assert t["fetch_start"].min() >= 0, t["fetch_start"].min()
assert np.allclose(t["fetch_start"], t["train_start"] - t["stall_time"], rtol=0, atol=1e-9)
assert np.array_equal(t["fetch_time"], t["stall_time"])
PY
# seconds that are no Unix time (below 0) are kept as they are, every step alike
printf '%s\n' rank,epoch,step,fetch_start,fetch_time,train_start,iteration_time,stall_time \
  0,0,0,-3.5,0.5,-3.0,1.5,0.5 0,0,1,-2.0,0.5,-1.5,1.5,0.5 0,0,2,-0.5,0.5,0,1.5,0.5 > "$work/neg.csv"
"$stallsim" import table "$work/neg.csv" -o "$work/neg.h5" > "$work/o.txt" 2>&1 &&
  $py - "$work/neg.h5" <<'PY' && ok || fail "a table of negative seconds: $(cat "$work/o.txt")"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1]) as f:
    assert f.attrs["time_origin"] in (b"1970-01-01T00:00:00.000000", "1970-01-01T00:00:00.000000")
    assert np.allclose(f["timeline/fetch_start"][()].ravel(), [-3.5, -2.0, -0.5], rtol=0, atol=1e-9), f["timeline/fetch_start"][()]
    assert np.allclose(f["timeline/train_start"][()].ravel(), [-3.0, -1.5, 0.0], rtol=0, atol=1e-9)
PY
# only the wait and the step time (mmengine's data_time and time): each rank's steps end to end from 0
printf '%s\n' rank,epoch,step,iteration_time,stall_time 0,1,1,2,0.5 1,1,1,3,1 0,1,2,4,0 1,1,2,1,0.25 > "$work/log.csv"
"$stallsim" import table "$work/log.csv" -o "$work/log.h5" > "$work/o.txt" 2>&1 &&
  grep -q "log.csv: no train_start column: each rank's steps are laid end to end from time 0" "$work/o.txt" &&
  $py - "$work/log.h5" <<'PY' && ok || fail "a table of waits and step times: $(cat "$work/o.txt")"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1]) as f:
    assert f.attrs["fetch_times"] in (b"absent", "absent"), f.attrs["fetch_times"]
    assert f.attrs["time_origin"] in (b"1970-01-01T00:00:00.000000", "1970-01-01T00:00:00.000000")
    t = {k: f["timeline/" + k][()] for k in f["timeline"]}
assert np.allclose(t["train_start"], [[0.5, 1], [2, 3.25]]) and np.allclose(t["fetch_start"], [[0, 0], [2, 3]])
assert np.allclose(t["iteration_time"], [[2, 3], [4, 1]]) and np.allclose(t["fetch_time"], t["stall_time"])
PY
"$stallsim" import table --help > "$work/help.txt" && grep -q "rank,epoch,step,fetch_start,fetch_end,train_start,step_end,stall_time" "$work/help.txt" &&
  ok || fail "help shows the header"

expect_error() { # WHAT PATTERN CSV-TEXT
  printf '%s\n' "$3" > "$work/e.csv"
  if "$stallsim" import table "$work/e.csv" -o "$work/x.h5" > "$work/e.txt" 2>&1; then fail "$1 accepted"; return; fi
  grep -Eq -- "$2" "$work/e.txt" && ok || fail "$1: $(cat "$work/e.txt")"
  [ ! -e "$work/x.h5" ] || fail "$1: output left behind"
}
H=rank,epoch,step,fetch_start,fetch_time,train_start,iteration_time,stall_time
# a header separated by ';' (a spreadsheet's CSV in some locales): said so
expect_error "semicolons" "e.csv:1: columns 'rank', 'epoch', 'step', 'train_start', 'stall_time' are missing .*; the header is one field with ';' or tabs in it: the columns must be separated by commas" \
  "$(printf '%s\n0;0;0;1;0.5;2;1;0' "$(echo "$H" | tr , ';')")"
# what no command would read is not written: a negative step (an iteration's index)
expect_error "a negative step" "e.csv: table import: iteration 0 of epoch 0 has index -1: an iteration's index in its epoch is 0 or more" \
  "$H
0,0,-1,100.0,0.5,100.6,1.0,0.6
0,0,0,101.0,0.5,101.6,1.0,0.6"
expect_error "unsorted steps" "e.csv:4: epoch 1 step 0 comes after epoch 1 step 1: rows must be sorted by epoch, then step" \
  "$H
0,1,0,0,1,1,2,0
0,1,1,2,1,3,2,0
0,1,0,4,1,5,2,0"
expect_error "a rank missing from a step" "e.csv:4: epoch 1 step 1 has no row for rank 0 \(2 ranks in the first step\)" \
  "$H
0,1,0,0,1,1,2,0
1,1,0,0,1,1,2,0
1,1,1,2,1,3,2,0"
expect_error "a rank twice" "e.csv:3: rank 0 appears twice in epoch 1 step 0 \(also line 2\)" \
  "$H
0,1,0,0,1,1,2,0
0,1,0,0,1,1,2,0"
expect_error "a rank beyond the first step's" "e.csv:4: rank 2, but the first step has ranks 0 to 1" \
  "$H
0,1,0,0,1,1,2,0
1,1,0,0,1,1,2,0
2,1,1,2,1,3,2,0"
expect_error "ranks not from 0" "e.csv:2: rank 1, but the first step \(epoch 1 step 0\) has 1 rows: ranks must be 0 to 0" \
  "$H
1,1,0,0,1,1,2,0"
expect_error "a missing column" "e.csv:1: column 'stall_time' is missing" "rank,epoch,step,fetch_start,fetch_time,train_start,iteration_time
0,1,0,0,1,1,2"
expect_error "fetch_time without fetch_start" "e.csv:1: column 'fetch_start' is missing" "rank,epoch,step,fetch_time,train_start,iteration_time,stall_time
0,1,0,1,1,2,0"
expect_error "fetch_start alone" "e.csv:1: give exactly one of the columns fetch_end and fetch_time \(or, without fetch times, neither, nor fetch_start\)" \
  "rank,epoch,step,fetch_start,train_start,iteration_time,stall_time
0,1,0,0,1,2,0"
expect_error "step_end without train_start" "e.csv:1: column 'train_start' is missing" "rank,epoch,step,step_end,stall_time
0,1,0,2,0"
expect_error "two missing columns, named together" "e.csv:1: columns 'rank', 'stall_time' are missing" "epoch,step,step_end,train_start
1,0,2,1"
expect_error "both fetch_end and fetch_time" "e.csv:1: give exactly one of the columns fetch_end and fetch_time" \
  "rank,epoch,step,fetch_start,fetch_end,fetch_time,train_start,iteration_time,stall_time
0,1,0,0,1,1,1,2,0"
expect_error "a bad number" "e.csv:2: column 'stall_time' holds 'abc', not a number" "$H
0,1,0,0,1,1,2,abc"
expect_error "a negative duration" "e.csv:2: fetch_time is negative" "$H
0,1,0,0,-1,1,2,0"
expect_error "a fractional step" "e.csv:2: column 'step' holds '1.5', not a whole number" "$H
0,1,1.5,0,1,1,2,0"
expect_error "a short row" "e.csv:2: 7 fields, the header has 8" "$H
0,1,0,0,1,1,2"
expect_error "mixed time formats" "e.csv:3: column 'fetch_start' holds '3', not a timestamp" "$H
0,1,0,2024-01-01T00:00:00,1,2024-01-01T00:00:01,2,0
0,1,1,3,1,2024-01-01T00:00:04,2,0"
expect_error "timestamps with and without a zone" "e.csv:3: column 'fetch_start' holds '2024-01-01T00:00:03', without a time zone where the first fetch_start has one" "$H
0,1,0,2024-01-01T00:00:00Z,1,2024-01-01T00:00:01Z,2,0
0,1,1,2024-01-01T00:00:03,1,2024-01-01T00:00:04,2,0"
expect_error "times in nanoseconds" "e.csv:2: column 'fetch_start' holds 1714564800000000000, which as seconds is more than 300 years" "$H
0,1,0,1714564800000000000,1,1714564800100000000,2,0"
expect_error "a column and its alias" "e.csv:1: columns 'rank' and 'gpu' are the same column \(rank\): keep one" "rank,gpu,epoch,step,fetch_start,fetch_time,train_start,iteration_time,stall_time
0,0,1,0,0,1,1,2,0"
expect_error "no rows" "e.csv: has a header but no data rows" "$H"
expect_error "an unterminated quote" "e.csv:2: unterminated quote" "$H
0,1,0,0,1,1,2,\"0"
"$stallsim" import table "$work/a.csv" "$work/a.csv" -o "$work/x.h5" > /dev/null 2>&1; [ $? -eq 2 ] && ok || fail "two files: exit 2"
# a recorder file given to this importer: the error says which importer reads it
expect_error "a recorder file" "e.csv looks like a stallsim_record.py file: try .stallsim import pytorch." "stallsim-record,3
meta,rank,0"
# suspicious values are warnings, counted over the table: two fetches end 0.44 s after their
# step started, two stalls (0.3 s) are longer than their iteration (0.1 s); a.csv has none
printf '%s\n' "$H" 0,0,0,1,0.5,1.06,0.1,0.3 0,0,1,2,0.5,2.06,0.1,0.3 0,0,2,3,0.05,3.06,0.1,0.01 > "$work/w.csv"
"$stallsim" import table "$work/w.csv" -o "$work/w.h5" > /dev/null 2> "$work/w.txt" &&
  grep -q "warning: .*w.csv: in 2 of 3 GPU-iterations the fetch finished after the training step started (by up to 0.440 s)" "$work/w.txt" &&
  grep -q "warning: .*w.csv: in 2 of 3 GPU-iterations the stall is longer than the iteration time" "$work/w.txt" && ok ||
  fail "import table: suspicious values: $(cat "$work/w.txt")"
"$stallsim" import table "$work/a.csv" -o "$work/a2.h5" 2>&1 | grep -q warning && fail "a clean table warned" || ok
# a cut .gz says so (where the cut falls inside a line too, not only at a line end); an empty -o
# is a usage error before any work
/usr/bin/python3 -c "
import sys; print('$H'); [print('0,1,%d,%d,0.5,%d.5,1,0' % (i, i, i)) for i in range(3000)]" | gzip > "$work/big.csv.gz"
for cut in 1000 3000 5000; do
  head -c "$cut" "$work/big.csv.gz" > "$work/cut.csv.gz"
  "$stallsim" import table "$work/cut.csv.gz" -o "$work/cut.h5" > /dev/null 2> "$work/cut.txt"
  [ $? -eq 1 ] && grep -q "cut.csv.gz:[0-9]*: the compressed file is truncated" "$work/cut.txt" && [ ! -e "$work/cut.h5" ] && ok ||
    fail "a .gz cut at $cut bytes: $(cat "$work/cut.txt")"
done
# CR-only line ends (and CRLF) read as LF ones: the same trace
tr '\n' '\r' < "$work/a.csv" > "$work/cr.csv"
sed 's/$/\r/' "$work/a.csv" > "$work/crlf.csv"
for v in cr crlf; do
  "$stallsim" import table "$work/$v.csv" -o "$work/$v.h5" > /dev/null 2> "$work/e.txt" || fail "$v line ends: $(cat "$work/e.txt")"
done
$py - "$work/a.h5" "$work/cr.h5" "$work/crlf.h5" <<'PY' && ok || fail "CR-only or CRLF line ends read differently"
import sys, h5py, numpy as np
a, *others = (h5py.File(p, "r") for p in sys.argv[1:])
for o in others:
    for k in a["timeline"]:
        assert np.array_equal(a["timeline"][k][()], o["timeline"][k][()]), (o.filename, k)
PY
"$stallsim" import table --bogus "$work/a.csv" -o "$work/x.h5" > /dev/null 2> "$work/e.txt"
[ $? -eq 2 ] && grep -q "import table: unknown option '--bogus'" "$work/e.txt" && ok || fail "import --bogus: $(cat "$work/e.txt")"
"$stallsim" import table "$work/a.csv" -o "" > /dev/null 2> "$work/e.txt"
[ $? -eq 2 ] && grep -q "needs a file name" "$work/e.txt" && ok || fail "import -o '': $(cat "$work/e.txt")"
"$stallsim" gen -o "" --gpus 2 --iterations 5 > /dev/null 2> "$work/e.txt"
[ $? -eq 2 ] && grep -q "needs a file name" "$work/e.txt" && ok || fail "gen -o '': $(cat "$work/e.txt")"
# step_end taken after the step, not at the next ask: most rows begin after their rank's
# previous row ended (here by 50 µs), so the whole run cannot be put in wall time: warned,
# with the mean gap; where step_end is the next ask, no warning
$py - "$work" <<'PY' || fail "writing the gap tables"
import sys
for name, gap in (("gap", 50e-6), ("nogap", 0.0)):
    with open(f"{sys.argv[1]}/{name}.csv", "w") as f:
        f.write("rank,epoch,step,train_start,stall_time,step_end\n")
        for k in range(20):
            for r in (0, 1):
                ask, stall, it = 1700000000.0 + 0.001 * r + 0.01 * k, 0.002 + 0.001 * r, 0.01
                f.write(f"{r},0,{k},{ask + stall:.6f},{stall:.6f},{ask + it - gap:.6f}\n")
PY
"$stallsim" import table "$work/gap.csv" -o "$work/gap.h5" > "$work/o.txt" 2>&1 &&
  grep -q "gap.csv: 38 of 38 rows begin after their rank's previous row ended (step_end or iteration_time), by 50 µs on average" "$work/o.txt" &&
  "$stallsim" import table "$work/nogap.csv" -o "$work/nogap.h5" > "$work/o2.txt" 2>&1 && ! grep -q "begin after" "$work/o2.txt" &&
  ok || fail "step_end before the next ask: $(cat "$work/o.txt" "$work/o2.txt")"
finish
