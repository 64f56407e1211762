#!/usr/bin/env bash
# cli_import_dftracer.sh - `stallsim import dftracer` on the real 8-rank DLIO trace (in
# place from the shared folder): stalls equal the loop.iter durations, iteration times the
# step spans, fetch times the reads inside each wait, all computed here independently with
# Python's json; .pfw.gz gives the same trace; `info` and `run` work on it; damaged and
# mismatched inputs give errors naming file and line.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3

# ---- a hand-made trace, by value (µs after 2023-11-14T22:13:20 = 1700000000 s) ----
mkdir -p "$work/hand"
ev() { # PID TID NAME TS DUR STEP [more args]
  printf '{"id":1,"name":"%s","cat":"x","pid":%d,"tid":%d,"ts":%d,"dur":%d,"ph":"X","args":{"step":"%s"%s}}\n' \
    "$3" "$1" "$2" $((1700000000000000 + $4)) "$5" "$6" "${7:-}"
}
sh='{"id":0,"name":"SH","cat":"dftracer","pid":%d,"tid":%d,"ph":"M","args":{"name":"python;dlio_benchmark;workload=tiny;++workload.reader.read_threads=2;++workload.train.epochs=2"}}\n'
{
  echo "["
  printf "$sh" 10 10
  printf '{"id":1,"name":"start","cat":"dftracer","pid":10,"tid":10,"ts":1700000000000000,"dur":0,"ph":"X","args":{}}\n'
  # rank 0: loader workers (tids 11, 12) read; their reads pair by args.step
  ev 10 11 TorchDataset.__getitem__ 250 200 1
  ev 10 10 loop.iter 200 300 1
  ev 10 12 TorchDataset.__getitem__ 300 500 2
  ev 10 10 loop.yield 500 1000 1
  ev 10 10 loop.iter 1600 100 2
  ev 10 10 loop.yield 1700 800 2
  ev 10 11 TorchDataset.__getitem__ 2000 100 1   # a step-1 read before epoch 2 asks: not epoch 2's
  ev 10 12 HDF5Reader.read_index 3050 1000 2
  ev 10 11 TorchDataset.__getitem__ 3100 200 1
  ev 10 10 loop.iter 3000 400 1
  ev 10 10 loop.yield 3400 600 1
  ev 10 10 loop.iter 4100 0 2
  ev 10 10 loop.yield 4100 700 2
  echo "]"
} > "$work/hand/trace-0-of-2.pfw"
{
  printf "$sh" 20 20
  # rank 1: the training thread reads inside its waits (read_threads = 0 style)
  ev 20 20 TorchDataset.__getitem__ 100 50 1      # before the ask: not the batch
  ev 20 20 HDF5Reader.read_index 250 100 1
  ev 20 20 TorchDataset.__getitem__ 240 120 1
  ev 20 20 loop.iter 210 290 1 ',"epoch":"x"'
  ev 20 20 loop.yield 500 1000 1
  ev 20 20 loop.iter 1610 90 2                    # no reads: fetch = the wait, warned
  ev 20 20 loop.yield 1700 800 2
  ev 20 20 TorchDataset.__getitem__ 3020 370 6
  ev 20 20 loop.iter 3010 390 1
  ev 20 20 loop.yield 3400 600 1
  ev 20 20 TorchDataset.__getitem__ 4106 3 7
  ev 20 20 loop.iter 4105 5 2
  ev 20 20 loop.yield 4110 690 2
} | gzip > "$work/hand/trace-1-of-2.pfw.gz"
"$stallsim" import dftracer "$work/hand" -o "$work/hand.h5" > "$work/out.txt" 2>&1 || fail "hand-made: $(cat "$work/out.txt")"
grep -q "1 of 8 GPU-steps have no read events" "$work/out.txt" && ok || fail "no-read warning: $(cat "$work/out.txt")"
$py - "$work/hand.h5" <<'PY' && ok || fail "hand-made trace values"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1]) as f:
    a = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f.attrs.items()}
    t = {k: f["timeline/" + k][()] for k in f["timeline"]}
assert a["time_origin"] == "2023-11-14T22:13:20.000000" and a["fetch_times"] == "measured", a
assert list(a["loader_workers"]) == [2, 2] and a["workers"] == 4 and a["epochs"] == 2, a
assert a["model"] == "tiny" and a["log_type"] == "dlio", a
us = lambda rows: np.array(rows, float) * 1e-6
exp = dict(epoch=[1, 1, 2, 2], index=[1, 2, 1, 2],
           stall_time=us([[300, 290], [100, 90], [400, 390], [0, 5]]),
           train_start=us([[500, 500], [1700, 1700], [3400, 3400], [4100, 4110]]),
           # the next ask - this ask; the last step of an epoch: its loop.yield's end - ask
           iteration_time=us([[1400, 1400], [900, 890], [1100, 1095], [700, 695]]),
           fetch_start=us([[250, 240], [300, 1610], [3100, 3020], [3050, 4106]]),
           fetch_time=us([[200, 120], [500, 90], [200, 370], [1000, 3]]))
for k, v in exp.items():
    assert np.allclose(t[k], v, rtol=0, atol=1e-9), (k, t[k], v)
PY

# an evaluation pass: steps that start again inside the epoch their args.epoch names (DLIO's
# eval loop runs through the same iterator) are left out, not counted as an epoch, and said
mkdir -p "$work/evalp"
for r in 0 1; do
  p=$((30 + r))
  {
    printf "$sh" $p $p
    ev $p $p loop.iter 200 300 1 ',"epoch":1'
    ev $p $p loop.yield 500 1000 1 ',"epoch":1'
    ev $p $p loop.iter 1600 100 2 ',"epoch":1'
    ev $p $p loop.yield 1700 800 2 ',"epoch":1'
    ev $p $p loop.iter 2600 250 1 ',"epoch":1'     # eval: step 1 again in epoch 1
    ev $p $p loop.yield 2850 100 1 ',"epoch":1'
    ev $p $p loop.iter 3000 750 2 ',"epoch":1'
    ev $p $p loop.yield 3750 100 2 ',"epoch":1'
    ev $p $p loop.iter 4000 400 1 ',"epoch":2'
    ev $p $p loop.yield 4400 600 1 ',"epoch":2'
    ev $p $p loop.iter 5100 0 2 ',"epoch":2'
    ev $p $p loop.yield 5100 700 2 ',"epoch":2'
  } > "$work/evalp/trace-$r-of-2.pfw"
done
"$stallsim" import dftracer "$work/evalp" -o "$work/evalp.h5" > "$work/evalp.txt" 2>&1 || fail "eval pass: $(cat "$work/evalp.txt")"
grep -q "trace-0-of-2.pfw: 1 evaluation pass (steps starting again inside epoch 1, as DLIO's eval loop does): 2 steps left out of the timeline, not counted as epochs; their waits add up to 0.001 s" \
  "$work/evalp.txt" && ok || fail "eval pass warning: $(cat "$work/evalp.txt")"
$py - "$work/evalp.h5" <<'PY' && ok || fail "eval pass rows"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1]) as f:
    t = {k: f["timeline/" + k][()] for k in f["timeline"]}
assert list(t["epoch"]) == [1, 1, 2, 2] and list(t["index"]) == [1, 2, 1, 2], t
# the training pass ends where the eval pass begins: epoch 1's last step runs to its yield's end
assert np.allclose(t["iteration_time"][:, 0], np.array([1400, 900, 1100, 700]) * 1e-6, rtol=0, atol=1e-9), t
assert np.allclose(t["stall_time"][:, 0], np.array([300, 100, 400, 0]) * 1e-6, rtol=0, atol=1e-9), t
PY

# pid and tid as strings (DFTracer before mid-2024: "pid":"10"): the same trace, the loader
# workers' reads told from the loop's own as with numbers
strpids() { # IN OUT: every event's pid and tid written as a string
  zcat -f "$1" | sed -E 's/"(pid|tid)":([0-9]+)/"\1":"\2"/g' > "$2"
}
mkdir -p "$work/strpid"
strpids "$work/hand/trace-0-of-2.pfw" "$work/strpid/trace-0-of-2.pfw"
strpids "$work/hand/trace-1-of-2.pfw.gz" "$work/strpid/trace-1-of-2.pfw"
grep -q '"pid":"10","tid":"11"' "$work/strpid/trace-0-of-2.pfw" &&
  "$stallsim" import dftracer "$work/strpid" -o "$work/strpid.h5" > /dev/null 2>&1 &&
  h5diff "$work/hand.h5" "$work/strpid.h5" /timeline /timeline > /dev/null && ok || fail "string pids and tids"

# ranks whose steps do not overlap in time: 19 h apart, other runs (refused); 10 s apart, warned
shift_ts() { # IN OUT SECONDS: every ts moved
  zcat -f "$1" | $py -c "
import re, sys
d = int(float(sys.argv[1]) * 1e6)
sys.stdout.write(re.sub(r'\"ts\":(\d+)', lambda m: '\"ts\":%d' % (int(m.group(1)) + d), sys.stdin.read()))" "$3" > "$2"
}
mkdir -p "$work/runs" "$work/near"
cp "$work/hand/trace-0-of-2.pfw" "$work/runs/" && shift_ts "$work/hand/trace-1-of-2.pfw.gz" "$work/runs/trace-1-of-2.pfw" 68400
if "$stallsim" import dftracer "$work/runs" -o "$work/runs.h5" > "$work/e.txt" 2>&1; then fail "ranks 19 h apart accepted"
else grep -q "trace-0-of-2.pfw's steps end at 2023-11-14T22:13:20.004800, and .*trace-1-of-2.pfw's begin at 2023-11-15T17:13:20.000210, 19.0 h later: .*different runs" "$work/e.txt" &&
  [ ! -e "$work/runs.h5" ] && ok || fail "ranks 19 h apart: $(cat "$work/e.txt")"; fi
cp "$work/hand/trace-0-of-2.pfw" "$work/near/" && shift_ts "$work/hand/trace-1-of-2.pfw.gz" "$work/near/trace-1-of-2.pfw" 10
"$stallsim" import dftracer "$work/near" -o "$work/near.h5" > "$work/e.txt" 2>&1 &&
  grep -q "warning: import dftracer: .*trace-0-of-2.pfw's steps end 10.0 s before .*trace-1-of-2.pfw's begin" "$work/e.txt" &&
  ok || fail "ranks 10 s apart: $(cat "$work/e.txt")"

# ---- inputs a user may give by mistake: each named, with what is wrong ----
expect_dft_error() { # WHAT PATTERN INPUTS...
  local what=$1 pat=$2
  shift 2
  if "$stallsim" import dftracer "$@" -o "$work/x.h5" > "$work/e.txt" 2>&1; then fail "$what accepted"; return; fi
  grep -Eq -- "$pat" "$work/e.txt" && ok || fail "$what: $(cat "$work/e.txt")"
}
mkdir -p "$work/misc"
zcat -f "$work/hand/trace-1-of-2.pfw.gz" > "$work/misc/r1.pfw"
# several ranks' loops in one file (a merged trace): one file per rank, says which processes
cat "$work/hand/trace-0-of-2.pfw" "$work/misc/r1.pfw" | grep -v '^[][]$' > "$work/misc/merged.pfw"
expect_dft_error "a merged file" "merged.pfw:[0-9]+: loop.iter of process 20, but line [0-9]+ has one of process 10: .*one file per rank" \
  "$work/misc/merged.pfw"
strpids "$work/misc/merged.pfw" "$work/misc/merged-str.pfw"
expect_dft_error "a merged file with string pids" "merged-str.pfw:[0-9]+: loop.iter of process 20, but line [0-9]+ has one of process 10" \
  "$work/misc/merged-str.pfw"
: > "$work/misc/empty.pfw"
expect_dft_error "an empty file" "empty.pfw: an empty file" "$work/misc/empty.pfw"
# text that is no JSON at all, plain or gzipped: not a DFTracer trace, and no line of it
# called cut short
printf 'time,step\n1,2\n3,4\n5,6\n' > "$work/misc/text.pfw"
expect_dft_error "a text file" "text.pfw: .*no line of it is a JSON event \(line 1 is not JSON\)" "$work/misc/text.pfw"
grep -q "cut short" "$work/e.txt" && fail "a text file: called cut short: $(cat "$work/e.txt")" || ok
printf 'hello\n' | gzip > "$work/misc/hello.pfw.gz"
expect_dft_error "a gzip of text" "hello.pfw.gz: .*not a DFTracer trace \(JSON lines, or their gzip\)" "$work/misc/hello.pfw.gz"
ev 10 11 TorchDataset.__getitem__ 250 200 1 > "$work/misc/noloop.pfw"
expect_dft_error "no loop.iter" "noloop.pfw: no loop.iter or fetch.iter events" "$work/misc/noloop.pfw"
mkdir -p "$work/misc/onempty" && cp "$work/hand/trace-0-of-2.pfw" "$work/misc/onempty/" && : > "$work/misc/onempty/trace-1-of-2.pfw"
expect_dft_error "one rank's file empty" "trace-1-of-2.pfw holds no steps \(an empty file\), but .*trace-0-of-2.pfw has some" \
  "$work/misc/onempty"
# a folder's hidden files (a macOS archive's ._ files) are not traces
mkdir -p "$work/misc/hidden" && cp "$work"/hand/* "$work/misc/hidden/" && printf '\0\5junk' > "$work/misc/hidden/._trace-0-of-2.pfw"
"$stallsim" import dftracer "$work/misc/hidden" -o "$work/hidden.h5" > /dev/null 2>&1 &&
  h5diff "$work/hand.h5" "$work/hidden.h5" /timeline /timeline > /dev/null && ok || fail "a hidden file in the folder"
# files without ranks in their names: GPU g is the g-th by name, digits by value (r2 before r10)
cp "$work/hand/trace-0-of-2.pfw" "$work/misc/dlio-r2.pfw"
cp "$work/misc/r1.pfw" "$work/misc/dlio-r10.pfw"
"$stallsim" import dftracer "$work/misc/dlio-r10.pfw" "$work/misc/dlio-r2.pfw" -o "$work/named.h5" > /dev/null 2>&1 &&
  h5diff "$work/hand.h5" "$work/named.h5" /timeline /timeline > /dev/null && ok || fail "files in natural order by name"

tgz=$shared/reference/dftracer-dlio-8rank/dftracer-dlio.tar.gz
if [ ! -f "$tgz" ]; then
  echo "note: no reference DLIO trace at $tgz: the checks on the real trace are skipped"
  finish
  exit
fi
mkdir -p "$work/pfw" && tar -xzf "$tgz" -C "$work/pfw" || { fail "extract $tgz"; finish; exit 1; }

"$stallsim" import dftracer "$work/pfw" -o "$work/d.h5" > "$work/out.txt" 2>&1 || fail "import: $(cat "$work/out.txt")"
grep -q "8 GPUs, 20 iterations" "$work/out.txt" && ok || fail "import summary: $(cat "$work/out.txt")"
grep -q "warning" "$work/out.txt" && fail "unexpected warning: $(cat "$work/out.txt")" || ok
# a synchronous trace, whose class's errors lean one way: a ranked cut's change may lie
# outside its own interval; it is flagged "skewed" on the screen and change_outside_interval
# in the JSON exactly where the change is outside [change_lo_pct, change_hi_pct]
printf '[trace]\npath = %s\nwarmup_iterations = 0\n[scenarios]\nmodel = pipeline\nworkers = auto, 1, 2\n' \
  "$work/d.h5" > "$work/sk.ini"
"$stallsim" run "$work/sk.ini" --out "$work/sk" > "$work/sk.txt" 2>&1 &&
  "$stallsim" run "$work/sk.ini" --out "$work/skj" --json 2>/dev/null > "$work/sk.json" &&
  $py - "$work/sk.txt" "$work/sk.json" <<'PY' && ok || fail "the skewed flag: $(cat "$work/sk.txt")"
import json, re, sys
text = open(sys.argv[1]).read()
top = json.load(open(sys.argv[2]))["ranking"]["top"]
lines = re.findall(r"^  \d\. .*$", text, re.M)
assert top and len(lines) == len(top), (lines, top)
seen = set()
for t, line in zip(top, lines):
    lo, hi = t["change_lo_pct"], t["change_hi_pct"]
    outside = lo is not None and hi is not None and not lo <= t["change_pct"] <= hi
    assert t["change_outside_interval"] == outside, t
    assert ("skewed" in line.split("steady")[-1]) == outside, line
    seen.add(outside)
legend = "skewed: trust the interval" in text or "skewed = change outside its interval" in text
assert legend == (True in seen), text
PY
# every rank loads synchronously: the time between epochs holds no workers' starts or stops,
# and the start-up note speaks of every GPU
grep -q "^between epochs: .* kept as measured: evaluation (see eval_path), checkpoints$" "$work/sk.txt" &&
  "$stallsim" run "$work/sk.ini" --out "$work/skx" --explain > "$work/skx.txt" 2>&1 &&
  grep -q "^note: every GPU loads synchronously in the trace (W = 0), so the trace shows no start-up" "$work/skx.txt" &&
  ok || fail "a synchronous trace's notes: $(grep -h "^between\|^note: .*synchronously" "$work/sk.txt" "$work/skx.txt")"
# a job cut off (killed, out of time): rank 5's file ends before its 17th step (the first
# of epoch 5), half of its next line written; the others go on through epoch 5. The trace
# keeps the 16 steps every rank has, with the two warnings. Cut before its 9th step (the
# others two epochs further) it is refused: not a job cut off at one time
cut_rank5() { # DIR STEPS: rank 5's file up to its STEPS-th loop.iter, plus half a line
  mkdir -p "$1" && cp "$work/pfw"/*.pfw "$1/" &&
    $py - "$work/pfw/trace-5-of-8.pfw" "$1/trace-5-of-8.pfw" "$2" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines(True)
at = [i for i, l in enumerate(lines) if '"loop.iter"' in l][int(sys.argv[3])]
open(sys.argv[2], "w").write("".join(lines[:at]) + lines[at][: len(lines[at]) // 2])
PY
}
cut_rank5 "$work/short" 16 && "$stallsim" import dftracer "$work/short" -o "$work/short.h5" > "$work/short.txt" 2>&1 &&
  grep -q "trace-5-of-8.pfw:[0-9]*: the last line is cut short (the job was killed while writing it?): passed over" "$work/short.txt" &&
  grep -q "trace-5-of-8.pfw ends after 16 steps (in epoch 4), where .*trace-0-of-8.pfw goes on, into that epoch's end or the next epoch's and no further" "$work/short.txt" &&
  grep -q "8 GPUs, 16 iterations" "$work/short.txt" && $py -c "
import h5py, numpy as np
a, b = h5py.File('$work/d.h5', 'r'), h5py.File('$work/short.h5', 'r')
for k in ('fetch_start', 'fetch_time', 'train_start', 'iteration_time', 'stall_time'):
    assert np.array_equal(a['timeline/' + k][:16], b['timeline/' + k][()]), k" && ok || fail "a job cut off: $(cat "$work/short.txt")"
cut_rank5 "$work/short8" 8 && ! "$stallsim" import dftracer "$work/short8" -o "$work/short8.h5" > "$work/short8.txt" 2>&1 &&
  grep -q "trace-5-of-8.pfw ends after 8 steps, but .*trace-0-of-8.pfw has more (line [0-9]*)" "$work/short8.txt" &&
  [ ! -e "$work/short8.h5" ] && ok || fail "a rank two epochs short: $(cat "$work/short8.txt")"
# the job cut off while it wrote a .pfw.gz: the same as the .pfw cut there (rank 5's 16 steps
# and half a line, compressed and flushed, the stream never finished)
mkdir -p "$work/shortgz" && cp "$work/pfw"/*.pfw "$work/shortgz/" && rm "$work/shortgz/trace-5-of-8.pfw" &&
  $py -c "
import sys, zlib
c = zlib.compressobj(6, zlib.DEFLATED, 31)
open(sys.argv[2], 'wb').write(c.compress(open(sys.argv[1], 'rb').read()) + c.flush(zlib.Z_SYNC_FLUSH))" \
    "$work/short/trace-5-of-8.pfw" "$work/shortgz/trace-5-of-8.pfw.gz" &&
  "$stallsim" import dftracer "$work/shortgz" -o "$work/shortgz.h5" > "$work/shortgz.txt" 2>&1 &&
  grep -q "trace-5-of-8.pfw.gz: the compressed file is cut off after line $(($(wc -l < "$work/short/trace-5-of-8.pfw"))) (the job was killed while writing it?)" "$work/shortgz.txt" &&
  grep -q "trace-5-of-8.pfw.gz ends after 16 steps (in epoch 4)" "$work/shortgz.txt" &&
  h5diff "$work/short.h5" "$work/shortgz.h5" /timeline /timeline > /dev/null && ok || fail "a cut .pfw.gz: $(cat "$work/shortgz.txt")"
# pid and tid as strings (DFTracer before mid-2024): the same trace
mkdir -p "$work/strpid8" && for f in "$work"/pfw/*.pfw; do strpids "$f" "$work/strpid8/$(basename "$f")"; done &&
  "$stallsim" import dftracer "$work/strpid8" -o "$work/strpid8.h5" > "$work/e.txt" 2>&1 &&
  h5diff "$work/d.h5" "$work/strpid8.h5" /timeline /timeline > /dev/null && ok || fail "string pids, real trace: $(cat "$work/e.txt")"
# open events whose file names hold a line break, written raw (each event on two lines): the
# broken lines are passed over, counted, and the trace is the same
mkdir -p "$work/nl" && cp "$work/pfw"/*.pfw "$work/nl/" &&
  $py - "$work/nl/trace-2-of-8.pfw" <<'PY' &&
import sys
p = sys.argv[1]
lines = open(p).read().splitlines(True)
ev = '{"id":9%d,"name":"open","cat":"POSIX","pid":1,"tid":1,"ts":1744611915148845,"dur":9,"ph":"X","args":{"fname":"/data/img\nnew.h5","flags":0}}\n'
for at in (900, 300):
    lines[at:at] = [ev % at]
open(p, "w").write("".join(lines))
PY
  "$stallsim" import dftracer "$work/nl" -o "$work/nl.h5" > "$work/nl.txt" 2>&1 &&
  grep -q "trace-2-of-8.pfw: 4 lines are not valid JSON and name no loop event: passed over (the first: line 301;" "$work/nl.txt" &&
  h5diff "$work/d.h5" "$work/nl.h5" /timeline /timeline > /dev/null && ok || fail "broken open events: $(cat "$work/nl.txt")"
# a loop the job named (dft_fn.iter(..., name="real_IO")): found with --iter, named without it
mkdir -p "$work/named" && for f in "$work"/pfw/*.pfw; do
  sed 's/"name":"loop\.iter"/"name":"real_IO.iter"/; s/"name":"loop\.yield"/"name":"real_IO.yield"/' "$f" > "$work/named/$(basename "$f")"; done
expect_dft_error "a named loop without --iter" "trace-0-of-8.pfw \(and every other file\): no loop.iter or fetch.iter events; it has real_IO.iter events, .*--iter real_IO" \
  "$work/named"
"$stallsim" import dftracer "$work/named" --iter real_IO -o "$work/named-iter.h5" > "$work/e.txt" 2>&1 &&
  h5diff "$work/d.h5" "$work/named-iter.h5" /timeline /timeline > /dev/null && ok || fail "--iter real_IO: $(cat "$work/e.txt")"
"$stallsim" import dftracer "$work/named" --iter real_IO.iter -o "$work/x.h5" > "$work/e.txt" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "takes the loop's name without .iter or .yield ('--iter real_IO')" "$work/e.txt" && ok ||
  fail "--iter NAME.iter: rc=$rc $(cat "$work/e.txt")"
# a UTF-8 byte-order mark before a file's first line (an editor on Windows) is not the text's:
# the same trace
mkdir -p "$work/bom" && cp "$work/pfw"/*.pfw "$work/bom/" &&
  { printf '\357\273\277'; cat "$work/pfw/trace-0-of-8.pfw"; } > "$work/bom/trace-0-of-8.pfw" &&
  "$stallsim" import dftracer "$work/bom" -o "$work/bom.h5" > /dev/null 2>&1 &&
  "$stallsim" info "$work/d.h5" | tail -n +2 | sed "s/(took [0-9.]* s)//" > "$work/d.info" &&
  "$stallsim" info "$work/bom.h5" | tail -n +2 | sed "s/(took [0-9.]* s)//; s#$work/bom#$work/pfw#g; s#dftracer:bom#dftracer:pfw#" > "$work/bom.info" &&
  cmp -s "$work/d.info" "$work/bom.info" && ok || fail "a byte-order mark: $(diff "$work/d.info" "$work/bom.info" | head -5)"

$py - "$work/pfw" "$work/d.h5" <<'PY' || fail "values against the events"
import datetime, json, sys, h5py, numpy as np
folder, trace = sys.argv[1], sys.argv[2]
exp = {k: np.zeros((20, 8)) for k in ("fetch_start", "fetch_time", "train_start", "iteration_time", "stall_time")}
epochs = steps = None
with h5py.File(trace) as f:
    origin = datetime.datetime.fromisoformat(f.attrs["time_origin"].decode() if isinstance(f.attrs["time_origin"], bytes) else f.attrs["time_origin"])
    origin_us = round(origin.replace(tzinfo=datetime.timezone.utc).timestamp() * 1e6)
    got = {k: f["timeline/" + k][()] for k in exp}
    gep, gix = f["timeline/epoch"][()], f["timeline/index"][()]
    assert f.attrs["fetch_times"] in (b"measured", "measured"), f.attrs["fetch_times"]
    lw = f.attrs["loader_workers"] if "loader_workers" in f.attrs else None
    assert lw is not None and list(lw) == [0] * 8, lw
for g in range(8):
    ev = []
    for line in open(f"{folder}/trace-{g}-of-8.pfw"):
        line = line.strip()
        if line in ("[", "]", ""): continue
        ev.append(json.loads(line))
    loops = [e for e in ev if e["name"] == "loop.iter"]
    yields = [e for e in ev if e["name"] == "loop.yield"]
    reads = [e for e in ev if e["name"] in ("TorchDataset.__getitem__", "HDF5Reader.read_index")]
    assert len(loops) == 20 and len(yields) == 20
    ep, prev, rows = 0, None, []
    for e in loops:
        s = int(e["args"]["step"])
        if prev is None or s <= prev: ep += 1
        prev = s
        rows.append((ep, s, e))
    for k, (ep, s, e) in enumerate(rows):
        ask, stall = e["ts"], e["dur"]
        last = k + 1 == len(rows) or rows[k + 1][0] != ep
        if last:
            y = [y for y in yields if int(y["args"]["step"]) == s and y["ts"] >= ask][0]
            end = y["ts"] + y["dur"]
        else:
            end = rows[k + 1][2]["ts"]
        inside = [r for r in reads if r["tid"] == e["tid"] and ask <= r["ts"] and r["ts"] + r["dur"] <= ask + stall]
        assert inside, (g, k)
        t0 = min(r["ts"] for r in inside); t1 = max(r["ts"] + r["dur"] for r in inside)
        exp["stall_time"][k, g] = stall / 1e6
        exp["iteration_time"][k, g] = (end - ask) / 1e6
        exp["train_start"][k, g] = (ask + stall - origin_us) / 1e6
        exp["fetch_start"][k, g] = (t0 - origin_us) / 1e6
        exp["fetch_time"][k, g] = (t1 - t0) / 1e6
        if g == 0:
            assert gep[k] == ep and gix[k] == s, (k, gep[k], gix[k], ep, s)
for k in exp:
    err = np.max(np.abs(got[k] - exp[k]))
    assert err < 1e-9, (k, err)
# the figures the README quotes: rank 0's first stall and the step span after it
print("ok: rank 0 epoch 1 step 1 stall %.6f s, iteration %.6f s" % (got["stall_time"][0, 0], got["iteration_time"][0, 0]))
PY
[ $? -eq 0 ] && ok

"$stallsim" info "$work/d.h5" > "$work/info.txt" || fail "info"
grep -Eq "^gpus: +8$" "$work/info.txt" && ok || fail "info gpus: $(head -5 "$work/info.txt")"
grep -Eq "^epochs: +5 " "$work/info.txt" && ok || fail "info epochs: $(head -5 "$work/info.txt")"
# DLIO numbers steps from 1: --warmup 2 (index 2 on) leaves out each epoch's first step, and says so
"$stallsim" info "$work/d.h5" --warmup 2 | grep -q "^means over the 15 of 20 iterations past each epoch's first 1 (index 2 on: its steps are numbered from 1) (--warmup" &&
  ok || fail "info's warm-up on steps from 1: $("$stallsim" info "$work/d.h5" --warmup 2 | grep means)"

# gzip-compressed files: the same trace
mkdir -p "$work/gz" && for f in "$work"/pfw/*.pfw; do gzip -c "$f" > "$work/gz/$(basename "$f").gz"; done
"$stallsim" import dftracer "$work"/gz/*.pfw.gz -o "$work/dgz.h5" > /dev/null 2>&1 || fail "import .pfw.gz"
h5diff "$work/d.h5" "$work/dgz.h5" /timeline /timeline > /dev/null && ok || fail ".pfw.gz gives another timeline"

# the independent replay runs on it
cat > "$work/d.ini" <<INI
[trace]
path = d.h5
warmup_iterations = 0
[scenarios]
fetch_align = none, min
start_align = none
INI
"$stallsim" run "$work/d.ini" --out "$work/run" --quiet > "$work/run.txt" 2>&1 || fail "run: $(cat "$work/run.txt")"
[ -s "$work/run/summary.csv" ] && grep -q "independent" "$work/run/summary.csv" && ok || fail "run summary"

# errors name the file and the line
mkdir -p "$work/bad"
cp "$work"/pfw/*.pfw "$work/bad/"
sed -i '700s/.*/{"name":"loop.iter",/' "$work/bad/trace-3-of-8.pfw"
"$stallsim" import dftracer "$work/bad" -o "$work/x.h5" > "$work/e.txt" 2>&1 && fail "damaged JSON accepted"
grep -q "trace-3-of-8.pfw:700: not valid JSON .*: line 700 of $(awk 'END { print NR }' "$work/bad/trace-3-of-8.pfw") holds a loop.iter event" "$work/e.txt" && ok ||
  fail "damaged JSON message: $(cat "$work/e.txt")"
[ ! -e "$work/x.h5" ] && ok || fail "an output was left after an error"

cp "$work/pfw/trace-3-of-8.pfw" "$work/bad/"
head -n 1000 "$work/pfw/trace-5-of-8.pfw" > "$work/bad/trace-5-of-8.pfw"
"$stallsim" import dftracer "$work/bad" -o "$work/x.h5" > "$work/e.txt" 2>&1 && fail "a short rank accepted"
grep -q "trace-5-of-8.pfw ends after .* steps, but .*trace-0-of-8.pfw has more (line [0-9]*)" "$work/e.txt" && ok ||
  fail "short rank message: $(cat "$work/e.txt")"

cp "$work/pfw/trace-5-of-8.pfw" "$work/bad/"
# rank 6 skips a step: its step 2 of epoch 1 becomes step 3
$py - "$work/bad/trace-6-of-8.pfw" <<'PY'
import sys
p = sys.argv[1]; out = []
for line in open(p):
    if '"name":"loop.iter"' in line and '"step":"2"' in line and not out.count("done"):
        line = line.replace('"step":"2"', '"step":"3"', 1); out.append("done")
    out.append(line)
open(p, "w").writelines(x for x in out if x != "done")
PY
"$stallsim" import dftracer "$work/bad" -o "$work/x.h5" > "$work/e.txt" 2>&1 && fail "a mismatched rank accepted"
grep -Eq "trace-6-of-8.pfw:[0-9]+: step 3 of epoch 1, but .*trace-0-of-8.pfw:[0-9]+ has step 2 of epoch 1" "$work/e.txt" && ok ||
  fail "mismatched rank message: $(cat "$work/e.txt")"

"$stallsim" import dftracer "$work/pfw/trace-0-of-8.pfw" "$work/pfw/trace-0-of-8.pfw" -o "$work/x.h5" > "$work/e.txt" 2>&1 &&
  fail "one rank twice accepted"
grep -q "trace-0-of-8.pfw: the same file, given twice" "$work/e.txt" && ok || fail "same rank message: $(cat "$work/e.txt")"
"$stallsim" import dftracer "$work/nothing" -o "$work/x.h5" > "$work/e.txt" 2>&1; [ $? -eq 1 ] && grep -q "nothing: cannot open" "$work/e.txt" && ok ||
  fail "missing input: $(cat "$work/e.txt")"
"$stallsim" import dftracer --bogus "$work/pfw" -o "$work/x.h5" > /dev/null 2>&1; [ $? -eq 2 ] && ok || fail "unknown option exit status"
"$stallsim" import dftracer --help | grep -q "loop.iter or fetch.iter" && ok || fail "help"
# a worker count a reader would refuse (read_threads=5000 on the command line) is left out of
# the trace, with a warning, so the trace stays readable
mkdir -p "$work/rt"
/usr/bin/python3 -c "
s = open('$src/tests/fuzz/corpus/dftracer/two_ranks.pfw').read().split('\n%%file%%\n')
for i, t in enumerate(s): open('$work/rt/trace-%d-of-2.pfw' % i, 'w').write(t.replace('read_threads=0', 'read_threads=5000'))"
"$stallsim" import dftracer "$work/rt" -o "$work/rt.h5" > /dev/null 2> "$work/e.txt" &&
  grep -q "loader_workers is left out of the trace: GPU 0's 5000 is not from 0 to 4096" "$work/e.txt" &&
  "$stallsim" info "$work/rt.h5" > /dev/null && ok || fail "read_threads=5000: $(cat "$work/e.txt")"
# files of ranks 0 and 2 of a 3-rank job (rank 1's forgotten): imported, with a warning that
# names the job's size and which GPU is which rank; rank 0 of 2 alone warns too
mkdir -p "$work/gap" "$work/one"
/usr/bin/python3 -c "
s = open('$src/tests/fuzz/corpus/dftracer/two_ranks.pfw').read().split('\n%%file%%\n')
open('$work/gap/trace-0-of-3.pfw', 'w').write(s[0]); open('$work/gap/trace-2-of-3.pfw', 'w').write(s[1])
open('$work/one/trace-0-of-2.pfw', 'w').write(s[0])"
"$stallsim" import dftracer "$work/gap" -o "$work/gap.h5" > /dev/null 2> "$work/e.txt" &&
  grep -q "warning: import dftracer: the trace holds ranks 0, 2 of a job of 3 ranks: GPU 1 is rank 2; the other ranks' stalls" "$work/e.txt" &&
  "$stallsim" info "$work/gap.h5" | grep -q "^source  *dftracer:.*gap (GPUs: trace-0-of-3.pfw, trace-2-of-3.pfw)$" &&
  ok || fail "a missing rank: $(cat "$work/e.txt"; "$stallsim" info "$work/gap.h5" | grep source)"
"$stallsim" import dftracer "$work/one" -o "$work/one.h5" > /dev/null 2> "$work/e.txt" &&
  grep -q "warning: import dftracer: the trace holds rank 0 of a job of 2 ranks; the other" "$work/e.txt" &&
  ok || fail "one rank of two: $(cat "$work/e.txt")"
finish
