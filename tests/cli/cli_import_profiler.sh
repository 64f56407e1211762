#!/usr/bin/env bash
# cli_import_profiler.sh - `stallsim import profiler`: a hand-made Kineto trace checks every
# column by value; a real 2-rank DDP job recorded here with Debian's PyTorch (legacy event
# list) and the HTA reference traces import, checked against values computed here with
# Python's json; missing or overlapping steps, no DataLoader events and mismatched ranks
# give clear errors.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3
export PYTHONPATH="$src/tests/lib${PYTHONPATH:+:$PYTHONPATH}" # wall_ratio.py

# ---- a hand-made trace, every mapping by value ----
cat > "$work/tiny_rank1.json" <<'JSON'
{"schemaVersion": 1, "distributedInfo": {"backend": "gloo", "rank": 1, "world_size": 2},
 "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 1700000000000000, "dur": 500000},
  {"ph": "X", "cat": "user_annotation", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": 1, "tid": 1, "ts": 1700000000000100, "dur": 200000},
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1700000000200200, "dur": 1000, "args": {"x": [1, 2, {"a": null, "name": "ProfilerStep#7"}], "step": "9"}},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#4", "pid": 1, "tid": 1, "ts": 1700000000500100, "dur": 300000.5},
  {"ph": "X", "cat": "user_annotation", "name": "## data_load ##", "pid": 1, "tid": 1, "ts": 1700000000500200, "dur": 50000},
  {"ph": "X", "cat": "user_annotation", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": 1, "tid": 1, "ts": 1700000000500210, "dur": 40000},
  {"ph": "X", "cat": "user_annotation", "name": "## data_load ##", "pid": 1, "tid": 1, "ts": 1700000000600200, "dur": 25000.25},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#4", "pid": 0, "tid": 7, "ts": 1700000000500300, "dur": 10},
  {"ph": "i", "name": "ProfilerStep#9", "ts": 1, "s": "t"}
 ]}
JSON
gzip -c "$work/tiny_rank1.json" > "$work/tiny_rank1.json.gz"
# a wait that lasts past the next step's wait: the events overlap, and the import says so
cat > "$work/outlast_rank0.json" <<'JSON'
{"distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": [
  {"ph": "X", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 1700000000000000, "dur": 20000},
  {"ph": "X", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": 1, "tid": 1, "ts": 1700000000000000, "dur": 50000},
  {"ph": "X", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 1700000000020000, "dur": 20000},
  {"ph": "X", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": 1, "tid": 1, "ts": 1700000000020030, "dur": 30000}
 ]}
JSON
"$stallsim" import profiler "$work/outlast_rank0.json" -o "$work/outlast.h5" > "$work/out.txt" 2>&1 &&
  grep -q "warning: import profiler: 1 DataLoader wait outlasts its step (the first: ProfilerStep#1 on rank 0, by 29970 µs" \
    "$work/out.txt" && ok || fail "a wait past the next step's: $(cat "$work/out.txt")"
"$stallsim" import profiler "$work/tiny_rank1.json.gz" -o "$work/tiny.h5" > "$work/out.txt" 2>&1 || fail "tiny: $(cat "$work/out.txt")"
$py - "$work/tiny.h5" <<'PY' && ok || fail "tiny trace values"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1]) as f:
    a = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f.attrs.items()}
    t = {k: f["timeline/" + k][()] for k in f["timeline"]}
assert a["gpus"] == 1 and a["iterations"] == 2, a
assert a["time_origin"] == "2023-11-14T22:13:20.000000", a["time_origin"]
assert a["fetch_times"] == "absent" and a["log_type"] == "pytorch-profiler", a
assert "rank" in a["source"] and " 1 of 2" in a["source"], a["source"]
exp = dict(epoch=[0, 0], index=[3, 4],
           # ask 100 µs and 500200 µs after the origin
           train_start=[[0.0001 + 0.2], [0.5002 + 0.07500025]],
           stall_time=[[0.2], [0.05 + 0.02500025]],      # outermost waits summed; the nested one not
           iteration_time=[[0.5002 - 0.0001], [0.8001005 - 0.5002]],  # next ask; last: the step's end
           fetch_start=[[0.0001], [0.5002]], fetch_time=[[0.2], [0.07500025]])  # placeholders: the wait
for k, v in exp.items():
    assert np.allclose(t[k], v, rtol=0, atol=1e-9), (k, t[k], v)
PY
"$stallsim" info --verbose "$work/tiny.h5" > "$work/info.txt" 2>&1 || fail "info on a profiler trace: $(cat "$work/info.txt")"
# the import says at once that only the waits model can replay it; info shows no made-up loader
grep -q "^whole run: .*; a profiler trace holds the schedule's active steps only, not the whole job)$" "$work/info.txt" &&
  grep -q "^note: .*tiny.h5 has no fetch times (only when each rank waited): .stallsim info. and .stallsim compare. read it; .stallsim run. replays it with .model = waits." "$work/out.txt" &&
  grep -q "the loader is not known (neither recorded nor, without fetch times, fitted)" "$work/info.txt" &&
  ! grep -q "W=1 P=2" "$work/info.txt" && ok || fail "no-fetch trace notes: $(cat "$work/out.txt" "$work/info.txt")"
"$stallsim" import profiler --help | grep -q "ProfilerStep#N" && ok || fail "help"
# the measured row only: compare reads it, the what-if models refuse it naming the recorder
"$stallsim" compare "$work/tiny.h5" "$work/tiny.h5" --warmup 0 >/dev/null 2>&1 && ok || fail "compare on a profiler trace"
printf '[trace]\npath = tiny.h5\nwarmup_iterations = 0\n' > "$work/tiny.ini"
"$stallsim" run "$work/tiny.ini" --out "$work/tiny-run" >/dev/null 2>"$work/err"; rc=$?
[ $rc -eq 2 ] && grep -q "no fetch timings" "$work/err" && grep -q "stallsim_record.py" "$work/err" && ok \
  || fail "run on a profiler trace: rc=$rc $(cat "$work/err")"

# ---- errors ----
bad() { # NAME JSON-EVENTS [distributedInfo]
  printf '{"distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": [%s]}\n' "$2" > "$work/$1.json"
}
S='{"ph":"X","name":"ProfilerStep#%d","ts":%d,"dur":%d}'
W='{"ph":"X","name":"enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__","ts":%d,"dur":10}'
bad missing "$(printf "$S,$W,$S,$W" 1 0 100 1 3 200 100 201)"
bad overlap "$(printf "$S,$W,$S,$W" 1 0 100 1 2 50 100 51)"
bad twice "$(printf "$S,$W,$S,$W,$S,$W" 1 0 100 1 2 200 100 201 2 400 100 401)"
bad first "$(printf "$S,$W,$S,$W,$S,$W" 0 0 100 1 0 200 100 201 1 400 100 401)"
bad noloader "$(printf "$S,$S" 1 0 100 2 200 100)"
bad nowait "$(printf "$S,$W,$S" 1 0 100 1 2 200 100)"
bad nosteps "$(printf "$W" 1)"
bad nanos "$(printf "$S,$W,$S,$W" 1 1700000000000000000 100 1700000000000000001 2 1700000000000000200 100 1700000000000000201)"
expect_error() { # WHAT PATTERN ARGS...
  local what=$1 pat=$2
  shift 2
  if "$stallsim" import profiler "$@" -o "$work/x.h5" > "$work/e.txt" 2>&1; then fail "$what accepted"; return; fi
  grep -Eq -- "$pat" "$work/e.txt" && ok || fail "$what: $(cat "$work/e.txt")"
  [ ! -e "$work/x.h5" ] || fail "$what: output left behind"
}
expect_error "a missing step" "missing.json: ProfilerStep#2 is missing \(between events 1 and 3\)" "$work/missing.json"
expect_error "times in ns" "nanos.json: event 1 \(ProfilerStep#1\) has ts 1700000000000000000, too large for µs: the file's times look like nanoseconds" "$work/nanos.json"
expect_error "overlapping steps" "overlap.json: ProfilerStep#2 \(event 3\) begins before ProfilerStep#1 \(event 1\) ends: steps overlap" "$work/overlap.json"
expect_error "a step twice" "twice.json: ProfilerStep#2 appears twice" "$work/twice.json"
# PyTorch's schedule without wait and warmup labels its first two steps alike: numbered by order
"$stallsim" import profiler "$work/first.json" -o "$work/first.h5" > "$work/e.txt" 2>&1 &&
  grep -q "first.json: ProfilerStep#0 appears twice, one after the other (events 1 and 3), as PyTorch labels the first steps of a schedule without wait and warmup: the steps are numbered by their order from #0" "$work/e.txt" &&
  $py -c "
import h5py
with h5py.File('$work/first.h5') as f:
    assert list(f['timeline/index'][()]) == [0, 1, 2], f['timeline/index'][()]" &&
  ok || fail "the first step labelled twice: $(cat "$work/e.txt")"
expect_error "no DataLoader events" "noloader.json: no DataLoader events" "$work/noloader.json"
# a step without a wait is left out (warned), the others kept; without any wait in a step, refused
"$stallsim" import profiler "$work/nowait.json" -o "$work/nowait.h5" > "$work/e.txt" 2>&1 &&
  grep -q "nowait.json: 1 of 2 steps have no DataLoader wait inside them (the first: ProfilerStep#2, event 3): they are left out" "$work/e.txt" &&
  $py -c "
import h5py
with h5py.File('$work/nowait.h5') as f:
    assert list(f['timeline/index'][()]) == [1], f['timeline/index'][()]
    assert abs(f['timeline/iteration_time'][0, 0] - 99e-6) < 1e-12, f['timeline/iteration_time'][()]  # to its end: the next has no ask" &&
  ok || fail "a step without a wait: $(cat "$work/e.txt")"
bad nowait2 "$(printf "$S,$W,$S,$S" 1 0 100 150 2 200 100 3 300 100)"
expect_error "no step with a wait" "nowait2.json: no ProfilerStep#N \(of #1 to #3\) has a DataLoader wait inside it" "$work/nowait2.json"
expect_error "no steps" "nosteps.json: no ProfilerStep#N events" "$work/nosteps.json"
# epochs: a step that holds one wait more than the others on every rank (a pass's last
# next(), then the next pass's first) begins an epoch; its row asks at its second wait, the
# row before ends at its first; where a rank differs, one epoch and a warning
ep() { # NAME RANK EXTRA-AT...: steps #1..#6 of 900 µs at 1000 µs apart, one wait each, two at each EXTRA-AT
  local ev="" i t x
  for i in 1 2 3 4 5 6; do
    t=$((i * 1000))
    ev="$ev$(printf "$S,$W," "$i" "$t" 900 $((t + 10)))"
    for x in "${@:3}"; do [ "$i" = "$x" ] && ev="$ev$(printf "$W," $((t + 400)))"; done
  done
  printf '{"distributedInfo": {"rank": %d, "world_size": 2}, "traceEvents": [%s]}\n' "$2" "${ev%,}" > "$work/$1.json"
}
ep ep0 0 4; ep ep1 1 4; ep epx 1 5
"$stallsim" import profiler "$work/ep0.json" "$work/ep1.json" -o "$work/ep.h5" > "$work/e.txt" 2>&1 &&
  grep -q "import profiler: 1 step (the first: ProfilerStep#4) holds one DataLoader wait more than the others, on every rank: a pass's last next() and the next pass's first. Each begins an epoch, 2 in all" "$work/e.txt" &&
  $py - "$work/ep.h5" <<'PY' && ok || fail "epochs told apart by a step with one wait more: $(cat "$work/e.txt")"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1]) as f:
    t = {k: f["timeline/" + k][()] for k in f["timeline"]}
assert list(t["epoch"]) == [0, 0, 0, 1, 1, 1] and list(t["index"]) == [1, 2, 3, 0, 1, 2], (t["epoch"], t["index"])
# asks (µs): 1010, 2010, 3010, then step 4's second wait 4400, 5010, 6010; each wait 10 µs
ask = np.array([1010, 2010, 3010, 4400, 5010, 6010]) * 1e-6
ask = ask - ask[0] + (t["train_start"][0, 0] - t["stall_time"][0, 0])
assert np.allclose(t["train_start"][:, 0] - t["stall_time"][:, 0], ask, atol=1e-9), t["train_start"][:, 0]
assert np.allclose(t["stall_time"][:, 0], 10e-6, atol=1e-12), t["stall_time"][:, 0]
# row 3 ends at step 4's first wait (4010), the pass's last next(); the last row at its step's end (6900)
it = np.array([1000, 1000, 1000, 610, 1000, 890]) * 1e-6
assert np.allclose(t["iteration_time"][:, 0], it, atol=1e-9), t["iteration_time"][:, 0]
PY
# a step right after a boundary with one wait more is no boundary (an epoch holds two steps
# at least), and no rank differs there
ep ea0 0 3 4; ep ea1 1 3 4
"$stallsim" import profiler "$work/ea0.json" "$work/ea1.json" -o "$work/ea.h5" > "$work/e.txt" 2>&1 &&
  ! grep -q "some ranks only" "$work/e.txt" &&
  $py -c "import h5py; assert list(h5py.File('$work/ea.h5')['timeline/epoch'][()]) == [0, 0, 1, 1, 1, 1]" && ok ||
  fail "two steps in a row with one wait more: $(cat "$work/e.txt")"
"$stallsim" import profiler "$work/ep0.json" "$work/epx.json" -o "$work/epx.h5" > "$work/e.txt" 2>&1 &&
  ! grep -q "Each begins an epoch" "$work/e.txt" &&
  $py -c "import h5py; assert set(h5py.File('$work/epx.h5')['timeline/epoch'][()]) == {0}" && ok ||
  fail "a step with one wait more on one rank only: $(cat "$work/e.txt")"
# a schedule that repeats: tensorboard_trace_handler writes one file per cycle, named after
# the process; two of one process are refused as such (rank told or not)
mkdir -p "$work/cyc"
printf '{"traceEvents": [%s]}\n' "$(printf "$S,$W,$S,$W" 1 0 100 1 2 200 100 201)" > "$work/cyc/vm_41.100.pt.trace.json"
printf '{"traceEvents": [%s]}\n' "$(printf "$S,$W,$S,$W" 7 1000 100 1001 8 1200 100 1201)" > "$work/cyc/vm_41.200.pt.trace.json"
printf '{"traceEvents": [%s]}\n' "$(printf "$S,$W,$S,$W" 1 0 100 1 2 200 100 201)" > "$work/cyc/vm_42.100.pt.trace.json"
# worker names may hold dots (a qualified host name): two processes on one host are two ranks
printf '{"traceEvents": [%s]}\n' "$(printf "$S,$W,$S,$W" 1 0 100 1 2 200 100 201)" > "$work/cyc2-a.json"
mkdir -p "$work/fqdn"
cp "$work/cyc2-a.json" "$work/fqdn/node1.cluster.local_1234.1700000000000.pt.trace.json"
cp "$work/cyc2-a.json" "$work/fqdn/node1.cluster.local_5678.1700000000001.pt.trace.json"
"$stallsim" import profiler "$work/fqdn" -o "$work/fqdn.h5" > "$work/e.txt" 2>&1 && grep -q "2 GPUs" "$work/e.txt" && ok ||
  fail "two processes of a dotted host name: $(cat "$work/e.txt")"
expect_error "cycles of one process" "vm_41.100.pt.trace.json and .*vm_41.200.pt.trace.json come from one process \(tensorboard_trace_handler names a file per cycle" "$work/cyc"
for t in 300 400; do
  printf '{"distributedInfo": {"rank": 0, "world_size": 2}, "traceEvents": [%s]}\n' \
    "$(printf "$S,$W,$S,$W" 1 $t 100 $((t + 1)) 2 $((t + 200)) 100 $((t + 201)))" > "$work/cyc/vm_43.$t.pt.trace.json"
done
expect_error "cycles of one told rank" "vm_43.300.pt.trace.json and .*vm_43.400.pt.trace.json come from one process" \
  "$work/cyc/vm_43.300.pt.trace.json" "$work/cyc/vm_43.400.pt.trace.json"
cp "$work/tiny_rank1.json" "$work/other_rank1.json"
expect_error "the same rank twice" "tiny_rank1.json and .*other_rank1.json: both are rank 1|other_rank1.json and .*tiny_rank1.json: both are rank 1" \
  "$work/tiny_rank1.json" "$work/other_rank1.json"
sed 's/"rank": 1, "world_size": 2/"rank": 0, "world_size": 4/' "$work/tiny_rank1.json" > "$work/w4.json"
expect_error "different world sizes" "rank 0 of 4, but .* is rank 1 of 2: the files come from different jobs" "$work/w4.json" "$work/tiny_rank1.json"
sed 's/"rank": 1, "world_size": 2/"rank": 0, "world_size": 2/; s/ProfilerStep#4/ProfilerStep#2/g; s/ProfilerStep#3/ProfilerStep#1/' "$work/tiny_rank1.json" > "$work/r0.json"
expect_error "different steps" "has ProfilerStep#1 to #2, but .* has #3 to #4" "$work/r0.json" "$work/tiny_rank1.json"
sed 's/"distributedInfo": {[^}]*},//' "$work/tiny_rank1.json" > "$work/a.json"
cp "$work/a.json" "$work/b.json"
# files that tell no rank: GPU g is the g-th by name (warned); one that tells beside one that does not: refused
"$stallsim" import profiler "$work/b.json" "$work/a.json" -o "$work/ab.h5" > "$work/e.txt" 2>&1 &&
  grep -q "warning: import profiler: no file tells its rank .*GPU 0 .*a.json, GPU 1 .*b.json" "$work/e.txt" &&
  "$stallsim" info "$work/ab.h5" | grep -q "^gpus: *2$" && ok || fail "unknown ranks: $(cat "$work/e.txt")"
expect_error "a file without a rank beside one with" "a.json: the rank is unknown .*unlike .*tiny_rank1.json's; import it alone with --rank R" \
  "$work/a.json" "$work/tiny_rank1.json"
"$stallsim" import profiler "$work/a.json" --rank 5 -o "$work/a.h5" > /dev/null 2>&1 && ok || fail "--rank on one file"
"$stallsim" import profiler "$work/a.json" "$work/b.json" --rank 5 -o "$work/x.h5" > /dev/null 2>&1; [ $? -eq 2 ] && ok || fail "--rank with two files: exit 2"
# --rank is for a file that tells no rank: against distributedInfo or the name it is refused
"$stallsim" import profiler "$work/tiny_rank1.json" --rank 5 -o "$work/x.h5" > "$work/e.txt" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "tiny_rank1.json: --rank 5, but distributedInfo.rank says rank 1" "$work/e.txt" && ok ||
  fail "--rank against distributedInfo: rc=$rc $(cat "$work/e.txt")"
cp "$work/a.json" "$work/job_rank7.json"
"$stallsim" import profiler "$work/job_rank7.json" --rank 2 -o "$work/x.h5" > "$work/e.txt" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "job_rank7.json: --rank 2, but its name says rank 7" "$work/e.txt" && ok ||
  fail "--rank against the name: rc=$rc $(cat "$work/e.txt")"
"$stallsim" import profiler "$work/job_rank7.json" --rank 7 -o "$work/r7.h5" > "$work/e.txt" 2>&1 &&
  grep -q "the trace holds rank 7 of a job of at least 8 ranks" "$work/e.txt" && ok || fail "--rank as named: $(cat "$work/e.txt")"
# steps #3-4 are all inside the default warm-up: info takes them all and says what run and compare do
# (steps #3-4: the rule index >= 11 leaves out 8 of an epoch's steps, not 11)
"$stallsim" info "$work/tiny.h5" | grep -q "means over all 2 iterations: no iteration is past each epoch's first 8 (index 11 on: its steps are numbered from 3), the default warm-up (the loader's start-up), so run summarises every iteration too" &&
  ok || fail "info's note on a trace that is all warm-up"
head -c 700 "$work/tiny_rank1.json" > "$work/cut.json"
expect_error "a cut file" "cut.json: the JSON document is incomplete" "$work/cut.json"
head -c 300 "$work/tiny_rank1.json.gz" > "$work/cut.json.gz"
expect_error "a cut .gz" "cut.json.gz.*(truncated|incomplete)" "$work/cut.json.gz"

# ---- the times' origin: baseTimeNanoseconds (Kineto since PyTorch 2.4: ts counts µs from it, a
# Unix time rounded down to a fixed period, shared by the ranks; files whose bases differ are
# moved each by its own), Unix µs in a bare list (early Kineto), or a profiler's own start ----
base_doc() { # FILE RANK BASE_NS TS0_US: two steps of one rank, ts from the base
  local t=$4
  printf '{"distributedInfo": {"rank": %d, "world_size": 2}, "traceEvents": [%s], "baseTimeNanoseconds": %s}\n' "$2" \
    "$(printf "$S,$W,$S,$W" 1 "$t" 1000 "$((t + 10))" 2 "$((t + 1000))" 1000 "$((t + 1010))")" "$3" > "$1"
}
mkdir -p "$work/base"
# rank 1's base is 2.5 s after rank 0's; both ask for step 1 at 1700000000.1 s (+3 µs)
base_doc "$work/base/r0.json" 0 1700000000000000000 100000
base_doc "$work/base/r1.json" 1 1700000002500000000 $((100000 - 2500000 + 3))
"$stallsim" import profiler "$work/base" -o "$work/base.h5" > "$work/o.txt" 2>&1 || fail "baseTimeNanoseconds: $(cat "$work/o.txt")"
$py - "$work/base.h5" <<'PY' && ok || fail "baseTimeNanoseconds: the origin and the ranks' alignment"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1]) as f:
    o = f.attrs["time_origin"]; o = o.decode() if isinstance(o, bytes) else o
    ask = f["timeline/train_start"][()] - f["timeline/stall_time"][()]
assert o == "2023-11-14T22:13:20.000000", o
assert np.allclose(ask[:, 0], [0.100010, 0.101010], rtol=0, atol=1e-7), ask   # the second before: 1700000000 s
assert np.allclose(ask[:, 1] - ask[:, 0], 3e-6, rtol=0, atol=2e-7), ask       # 3 µs apart, not 2.5 s
PY
# files of different runs: ranks 19 h apart are refused; 10 s apart (clocks?) warned
mkdir -p "$work/runs" "$work/near"
base_doc "$work/runs/r0.json" 0 1700000000000000000 100000
base_doc "$work/runs/r1.json" 1 1700068400000000000 100000
expect_error "ranks 19 h apart" "r0.json's steps end at 2023-11-14T22:13:20.102000, and .*r1.json's begin at 2023-11-15T17:13:20.100010, 19.0 h later: .*different runs" "$work/runs"
base_doc "$work/near/r0.json" 0 1700000000000000000 100000
base_doc "$work/near/r1.json" 1 1700000010000000000 100000
"$stallsim" import profiler "$work/near" -o "$work/near.h5" > "$work/o.txt" 2>&1 &&
  grep -q "warning: import profiler: .*r0.json's steps end 10.0 s before .*r1.json's begin: the ranks' times do not overlap" "$work/o.txt" &&
  ok || fail "ranks 10 s apart: $(cat "$work/o.txt")"
# a bare list (early Kineto) with Unix µs: dated, not 1970
printf '[%s]\n' "$(printf "$S,$W,$S,$W" 1 1606910596297231 1000 1606910596297241 2 1606910596298231 1000 1606910596298241)" \
  > "$work/list_unix.json"
"$stallsim" import profiler "$work/list_unix.json" -o "$work/lu.h5" > /dev/null 2>&1 &&
  "$stallsim" info "$work/lu.h5" | grep -q "time origin:  2020-12-02T12:03:16" && ok || fail "a bare list with Unix µs"
# the legacy profiler's times from its own start: 1970 origin, and two such ranks said not aligned
for r in 0 1; do
  printf '[%s]\n' "$(printf "$S,$W,$S,$W" 1 500 1000 510 2 1500 1000 1510)" > "$work/rel_rank$r.json"
done
"$stallsim" import profiler "$work/rel_rank0.json" "$work/rel_rank1.json" -o "$work/rel.h5" > "$work/o.txt" 2>&1 &&
  grep -q "count from its profiler's start.*not aligned" "$work/o.txt" &&
  "$stallsim" info "$work/rel.h5" | grep -q "time origin:  1970-01-01" && ok || fail "relative times: $(cat "$work/o.txt")"

# a file with Unix µs beside one of the legacy profiler's relative times: no common clock,
# refused (the trace would hold times 1.6e9 s from a 1970 origin, which nothing reads)
cp "$work/list_unix.json" "$work/mix_rank0.json"
"$stallsim" import profiler "$work/mix_rank0.json" "$work/rel_rank1.json" -o "$work/mix.h5" > "$work/o.txt" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "more than 1e9 s from the trace's time origin" "$work/o.txt" && [ ! -e "$work/mix.h5" ] && ok ||
  fail "Unix and relative times mixed: rc=$rc $(cat "$work/o.txt")"

# ---- the HTA reference traces ----
hta=$shared/reference/pytorch-profiler-hta
if [ -d "$hta" ]; then
  "$stallsim" import profiler "$hta/control_rank3of8.json.gz" -o "$work/c.h5" > "$work/o.txt" 2>&1 || fail "control: $(cat "$work/o.txt")"
  "$stallsim" import profiler "$hta/sampled_rank-1.json.gz" "$hta/sampled_rank-0.json.gz" -o "$work/s.h5" > "$work/o.txt" 2>&1 ||
    fail "sampled: $(cat "$work/o.txt")"
  "$stallsim" import profiler "$hta/distributed_info_not_found.json.gz" -o "$work/n.h5" > "$work/o.txt" 2>&1 ||
    fail "no distributedInfo: $(cat "$work/o.txt")"
  # a wait-only trace's findings in info: which GPU waited most, how often alone the
  # largest, and what the waits cost, against the trace computed here
  "$stallsim" info "$work/s.h5" > "$work/s.info" 2>&1 || fail "info sampled"
  /usr/bin/python3 - "$work/s.h5" "$work/s.info" <<'PY' && ok || fail "info: the waits: $(grep '^waits' "$work/s.info")"
import re, sys, h5py, numpy as np
import wall_ratio as wr
t = h5py.File(sys.argv[1], "r")["timeline"]
ix, st, it = t["index"][:], t["stall_time"][:], t["iteration_time"][:].max(axis=1)
rows = ix >= 11
if not rows.any():  # info takes every row where the warm-up leaves none
    rows = ix >= ix.min()
per = st[rows].mean(axis=0)
g = int(np.argmax(per))
alone = np.mean([(r == r.max()).sum() == 1 and r.argmax() == g for r in st[rows]])
m = re.search(r"^waits \(the trace has no fetch times, only the waits\): GPU (\d+) waited most, ([\d.]+) s per iteration "
              r"\(the median GPU ([\d.]+) s\), and alone had the largest wait in ([\d.]+)% of the iterations summarised; "
              r"the largest wait per iteration costs ([\d.]+) s, and ([\d.]+) s over the whole run \(([\d.]+)% of its time\)",
              open(sys.argv[2]).read(), re.M)
assert m, open(sys.argv[2]).read()
assert int(m.group(1)) == g and abs(float(m.group(2)) - per[g]) < 5e-7 and abs(float(m.group(3)) - np.median(per)) < 5e-7, m.groups()
assert abs(float(m.group(4)) - 100 * alone) < 0.05, (m.group(4), alone)
assert abs(float(m.group(5)) - st[rows].max(axis=1).mean()) < 5e-7, m.groups()
# the whole run: the rows in wall time (their wall ratio), and the time between epochs
# (from the last end of one to the next one's earliest ask; a profiler trace records no
# pass starts); the waits count at the same ratio
ep, a, itg = t["epoch"][:], t["train_start"][:] - st, t["iteration_time"][:]
ratio = wr.wall_ratio(ep, t["train_start"][:], st, itg)
whole = ratio * it.sum() + sum(max(0.0, a[i].min() - (a[i - 1] + itg[i - 1]).max()) for i in range(1, len(ep)) if ep[i] != ep[i - 1])
assert abs(float(m.group(6)) - st.max(axis=1).sum()) < 5e-4, m.groups()
assert abs(float(m.group(7)) - 100 * ratio * st.max(axis=1).sum() / whole) < 0.05, m.groups()
PY
  # a UTF-8 byte-order mark before the JSON (an editor on Windows): the same trace
  mkdir -p "$work/bom" && { printf '\357\273\277'; zcat "$hta/control_rank3of8.json.gz"; } > "$work/bom/control_rank3of8.json" &&
    "$stallsim" import profiler "$work/bom/control_rank3of8.json" -o "$work/cb.h5" > /dev/null 2>&1 &&
    "$stallsim" info "$work/c.h5" | sed -n '/^gpus/,$p' | grep -v "^source\|took" > "$work/c.info" &&
    "$stallsim" info "$work/cb.h5" | sed -n '/^gpus/,$p' | grep -v "^source\|took" > "$work/cb.info" &&
    cmp -s "$work/c.info" "$work/cb.info" && ok || fail "a byte-order mark: $(diff "$work/c.info" "$work/cb.info" | head -5)"
  expect_error "ranks of two jobs" "rank [0-9] of (8|128), but .* of (8|128): the files come from different jobs" \
    "$hta/control_rank3of8.json.gz" "$hta/sampled_rank-0.json.gz"
  # Kineto's own file names (worker0.<time>.pt.trace.json) tell no rank: GPUs by name, warned
  mkdir -p "$work/kin" && cp "$hta/distributed_info_not_found.json.gz" "$work/kin/worker1.1700000001.pt.trace.json.gz" &&
    cp "$hta/distributed_info_not_found.json.gz" "$work/kin/worker0.1700000000.pt.trace.json.gz" &&
    "$stallsim" import profiler "$work/kin" -o "$work/kin.h5" > "$work/o.txt" 2>&1 &&
    grep -q "no file tells its rank .*GPU 0 .*worker0.1700000000.pt.trace.json.gz, GPU 1 .*worker1" "$work/o.txt" &&
    grep -q "2 GPUs" "$work/o.txt" && ok || fail "Kineto's file names: $(cat "$work/o.txt")"
else
  echo "note: no HTA reference traces at $hta: those checks skipped"
fi

# ---- a real 2-rank DDP job (gloo, CPU) recorded with Debian's PyTorch ----
mkdir -p "$work/ddp"
cat > "$work/rec.py" <<'PY'
import os, sys
import torch, torch.distributed as dist, torch.multiprocessing as mp
from torch.utils.data import DataLoader, TensorDataset
def run(rank, world, out, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"; os.environ["MASTER_PORT"] = port
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    ds = TensorDataset(torch.randn(256, 32), torch.randn(256, 1))
    sampler = torch.utils.data.distributed.DistributedSampler(ds, num_replicas=world, rank=rank)
    dl = DataLoader(ds, batch_size=16, sampler=sampler, num_workers=1)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(32, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    sched = torch.profiler.schedule(wait=0, warmup=1, active=12, repeat=1)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=sched) as prof:
        for epoch in range(2):
            sampler.set_epoch(epoch)
            for x, y in dl:
                loss = torch.nn.functional.mse_loss(model(x), y)
                opt.zero_grad(); loss.backward(); opt.step()
                prof.step()
    prof.export_chrome_trace(os.path.join(out, "rank%d.json" % rank))
    dist.destroy_process_group()
if __name__ == "__main__":
    sys.path.insert(0, sys.argv[2])
    from ddp_launch import free_port  # a port no other job holds (a fixed range met ephemeral ones)
    mp.spawn(run, args=(2, sys.argv[1], str(free_port())), nprocs=2)
PY
if ! $py -c "import torch" 2>/dev/null; then
  echo "note: no PyTorch for $py: the recorded DDP job is skipped"
elif ! timeout -k 5 120 $py "$work/rec.py" "$work/ddp" "$src/scripts" > "$work/rec.txt" 2>&1; then
  fail "recording the DDP job: $(tail -5 "$work/rec.txt")"
else
  "$stallsim" import profiler "$work/ddp" -o "$work/ddp.h5" > "$work/o.txt" 2>&1 || fail "ddp import: $(cat "$work/o.txt")"
  grep -q "2 GPUs" "$work/o.txt" && ok || fail "ddp: $(cat "$work/o.txt")"
fi

# every imported real trace against the same mapping computed here
$py - "$work" "$hta" <<'PY' && ok || fail "real traces against their events"
import gzip, json, os, re, sys, h5py, numpy as np
work, hta = sys.argv[1], sys.argv[2]
def load(p):
    d = json.load(gzip.open(p) if p.endswith(".gz") else open(p))
    return d if isinstance(d, list) else d["traceEvents"]
def expect(path):
    ev = [e for e in load(path) if e.get("ph") == "X" and not e.get("cat", "").startswith("gpu")]
    steps = sorted((int(e["name"][13:]), e["ts"], e["dur"]) for e in ev if re.fullmatch(r"ProfilerStep#\d+", e["name"]))
    waits = sorted((e["ts"], e["dur"]) for e in ev
                   if (e["name"].startswith("enumerate(DataLoader)") and "__next__" in e["name"]) or e["name"] == "## data_load ##")
    rows = []
    for n, ts, dur in steps:
        mine, last = [], -1e300
        for w in waits:
            if ts <= w[0] <= ts + dur and w[0] >= last:
                mine.append(w); last = w[0] + w[1]
        rows.append([n, mine[0][0], sum(w[1] for w in mine), ts + dur, mine])
    return rows
def epochs(per_file):
    """IMPORTERS.md, "Epochs": a step with one outermost wait more than the usual count (the
    one most steps have, not tied), on every file, begins an epoch (not the first step, nor
    one right after such a step): its row asks at its second wait, without its first wait's
    time; the row before ends at that first wait; the index restarts at 0"""
    usual = []
    for rows in per_file:
        c = {}
        for r in rows:
            c[len(r[4])] = c.get(len(r[4]), 0) + 1
        top = max(c.values())
        usual.append(None if list(c.values()).count(top) > 1 else max(c, key=c.get))
    n = len(per_file[0])
    bound = [False] * n
    if None not in usual:
        for i in range(1, n):
            bound[i] = not bound[i - 1] and all(len(rows[i][4]) == k + 1 for rows, k in zip(per_file, usual))
    for rows in per_file:
        epoch, at = 0, 0
        for i, r in enumerate(rows):
            if bound[i]:
                epoch, at = epoch + 1, i
                r[1], r[2] = r[4][1][0], r[2] - r[4][0][1]
            r[0] = i - at if epoch else r[0]
        for i, r in enumerate(rows):
            r[3] = (rows[i + 1][4][0][0] if bound[i + 1] else rows[i + 1][1]) if i + 1 < len(rows) else r[3]
    return per_file
cases = [("ddp.h5", [f"{work}/ddp/rank0.json", f"{work}/ddp/rank1.json"])]
if os.path.isdir(hta):
    cases += [("c.h5", [f"{hta}/control_rank3of8.json.gz"]),
              ("s.h5", [f"{hta}/sampled_rank-0.json.gz", f"{hta}/sampled_rank-1.json.gz"]),
              ("n.h5", [f"{hta}/distributed_info_not_found.json.gz"])]
for name, files in cases:
    if not os.path.exists(f"{work}/{name}"): continue
    with h5py.File(f"{work}/{name}") as f:
        t = {k: f["timeline/" + k][()] for k in f["timeline"]}
        fetch = f.attrs["fetch_times"]
    assert fetch in (b"absent", "absent")
    for g, rows in enumerate(epochs([expect(p) for p in files])):
        assert list(t["index"]) == [r[0] for r in rows], (name, t["index"])
        stall = np.array([r[2] for r in rows]) / 1e6
        it = np.array([r[3] - r[1] for r in rows]) / 1e6
        assert np.allclose(t["stall_time"][:, g], stall, rtol=0, atol=1e-9), (name, g, t["stall_time"][:, g], stall)
        assert np.allclose(t["iteration_time"][:, g], it, rtol=0, atol=1e-9), (name, g)
        assert np.allclose(t["fetch_time"][:, g], stall, rtol=0, atol=1e-9)
        # train_start - stall = the ask: the steps' asks are as far apart as in the file
        ask = t["train_start"][:, g] - t["stall_time"][:, g]
        assert np.allclose(np.diff(ask), np.diff([r[1] for r in rows]) / 1e6, rtol=0, atol=1e-8)
        assert np.allclose(t["fetch_start"][:, g], ask, rtol=0, atol=1e-8)
    print("ok", name, len(rows), "steps")
PY
finish
