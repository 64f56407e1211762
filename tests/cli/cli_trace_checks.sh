#!/usr/bin/env bash
# cli_trace_checks.sh - traces that cannot be right, and traces written by other tools:
# stalls longer than their iteration are warned about once, with their count and the
# first of them, by every command that reads the trace (run alone and under MPI with
# both models, info, compare); a selected epoch that the trace does not hold is named;
# an int64 epoch column (h5py's default) gives the same results as int32, and epochs that
# do not fit 32 bits are rejected; a bad value that one rank of a node finds in its share
# of a shared slab stops every rank with one message.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3
$py -c "import h5py" 2>/dev/null || { echo "skipped: /usr/bin/python3 lacks h5py"; exit 77; }
cd "$work" || exit 1
"$stallsim" gen -o e.h5 --gpus 3 --iterations 40 --epochs 2 --seed 6 >/dev/null || fail "gen"
cp e.h5 long.h5
cp e.h5 wide.h5
cp e.h5 huge.h5
$py - <<'PY' || fail "python edits"
import h5py, numpy as np
with h5py.File("long.h5", "r+") as f:
    s, it = f["timeline/stall_time"], f["timeline/iteration_time"]
    for r, g in [(5, 1), (30, 2), (61, 0)]:
        v = s[r]; v[g] = it[r, g] + 0.25; s[r] = v
def widen(name, big):
    with h5py.File(name, "r+") as f:
        e = f["timeline/epoch"][:].astype(np.int64)
        if big:
            e[40:] = 2**40
        del f["timeline/epoch"]
        d = f["timeline"].create_dataset("epoch", data=e)
        d.attrs["units"] = "1"
widen("wide.h5", False)
widen("huge.h5", True)
PY

# a hand-written trace's variations: an int32 index column reads as the int64 one (the same
# info); times in milliseconds (units = "ms") are refused, naming the dataset and the units
cp e.h5 idx32.h5 && cp e.h5 ms.h5 && cp e.h5 dup.h5 && cp e.h5 ep3.h5
$py - <<'PY' || fail "python edits (index, units)"
import h5py, numpy as np
with h5py.File("idx32.h5", "r+") as f:
    i = f["timeline/index"][:].astype(np.int32)
    del f["timeline/index"]
    f["timeline"].create_dataset("index", data=i)
with h5py.File("ms.h5", "r+") as f:
    f["timeline/fetch_time"].attrs["units"] = "ms"
with h5py.File("dup.h5", "r+") as f:  # row 6 repeats row 5's (epoch, index)
    i = f["timeline/index"][()]; i[6] = i[5]; f["timeline/index"][...] = i
with h5py.File("ep3.h5", "r+") as f:  # the epochs attribute as a job that was cut short logged it
    f.attrs["epochs"] = 3
PY
# an epochs attribute that disagrees with the rows is shown with what the rows hold
"$stallsim" info ep3.h5 | grep -qx "epochs        3 (as logged; the rows hold 2 epochs)" &&
  "$stallsim" info e.h5 | grep -qx "epochs        2" && ok || fail "epochs attribute: $("$stallsim" info ep3.h5 | grep ^epochs)"
! "$stallsim" info dup.h5 > /dev/null 2> dup.err &&
  grep -q "dup.h5: /timeline rows 5 and 6 are the same iteration, (epoch, index) = (1, 5): each row is one iteration" dup.err &&
  ok || fail "a repeated row: $(cat dup.err)"
"$stallsim" info e.h5 | tail -n +2 | sed "s/(took [0-9.]* s)//" > e.info
"$stallsim" info idx32.h5 | tail -n +2 | sed "s/(took [0-9.]* s)//" > idx32.info
cmp -s e.info idx32.info && ok || fail "an int32 index: $(diff e.info idx32.info | head -4)"
! "$stallsim" info ms.h5 > /dev/null 2> ms.err &&
  grep -q "ms.h5: dataset /timeline/fetch_time has units 'ms': stallsim reads seconds" ms.err && ok ||
  fail "units ms: $(cat ms.err)"
# info's time span ends at the last ask plus its iteration time (the next ask), not at the
# last train_start plus it (which counted the last stall twice)
$py - e.h5 "$("$stallsim" info e.h5 | sed -n 's/^time span: *[0-9.]* s \.\. \([0-9.]*\) s.*/\1/p')" <<'PY' && ok || fail "info's time span end"
import sys, h5py, numpy as np
t = h5py.File(sys.argv[1], "r")["timeline"]
end = max((t["train_start"][()] - t["stall_time"][()] + t["iteration_time"][()]).max(),
          (t["fetch_start"][()] + t["fetch_time"][()]).max())
assert abs(end - float(sys.argv[2])) < 1e-6, (end, sys.argv[2])
PY

# warned_once FILE COUNT: exactly one warning, with the count and the first location
warned_once() {
  local n
  n=$(grep -c "stall longer than the iteration" "$1")
  [ "$n" -eq 1 ] || { fail "$2: $n warnings, expected 1: $(cat "$1")"; return; }
  grep -q "3 GPU-iterations have a stall longer than the iteration (first: row 5, GPU 1: stall" "$1" && ok ||
    fail "$2: wrong count or location: $(cat "$1")"
}
printf '[trace]\npath = long.h5\n[scenarios]\nmodel = independent, pipeline\nfetch_align = none, min\n[run]\nslab_iterations = 7\n' > long.ini
"$stallsim" run --explain --verbose long.ini --out r1 --quiet 2>w0 || fail "run --quiet"
[ -s w0 ] && fail "--quiet printed: $(cat w0)" || ok
"$stallsim" run --explain --verbose long.ini --out r1 >/dev/null 2>w1 || fail "run"
warned_once w1 "run"
"$stallsim" info long.h5 >/dev/null 2>w2 || fail "info"
warned_once w2 "info"
"$stallsim" compare long.h5 r1 >/dev/null 2>w3 || fail "compare"
warned_once w3 "compare"
"$stallsim" info e.h5 >/dev/null 2>w4 && ! grep -q "stall longer\|fetch ends after" w4 && ok || fail "a clean trace warned: $(cat w4)"
# fetches that end after their step began (rows 4 and 9 of GPU 2, 0.5 s and 2 s late):
# one warning with the count, the first row and by how much, from info and run
cp e.h5 latefetch.h5
$py -c "
import h5py
with h5py.File('latefetch.h5', 'r+') as f:
    fs, ft, ts = (f['timeline/' + k][()] for k in ('fetch_start', 'fetch_time', 'train_start'))
    for r, by in ((4, 0.5), (9, 2.0)):
        ft[r, 2] = ts[r, 2] - fs[r, 2] + by
    f['timeline/fetch_time'][...] = ft
" || fail "python edit latefetch"
late_ok() {
  [ "$(grep -c "fetch ends after" "$1")" -eq 1 ] &&
    grep -q "latefetch.h5: in 2 GPU-iterations the fetch ends after the training step began (first: row 4, GPU 2, by 0.5 s)" "$1"
}
printf '[trace]\npath = latefetch.h5\n[scenarios]\nmodel = pipeline\n' > latefetch.ini
"$stallsim" info latefetch.h5 >/dev/null 2>wl1 && late_ok wl1 && ok || fail "late fetches, info: $(cat wl1)"
"$stallsim" run latefetch.ini --out rl >/dev/null 2>wl2 && late_ok wl2 && ok || fail "late fetches, run: $(cat wl2)"
if [ "$have_mpi" = 1 ]; then
  mpirun_t 3 "$stallsim" run latefetch.ini --out rl3 >/dev/null 2>wl4 && late_ok wl4 && ok ||
    fail "late fetches, 3 ranks: $(cat wl4)"
fi
if [ "$have_mpi" = 1 ]; then
  for np in 2 3; do
    mpirun_t $np "$stallsim" run --explain --verbose long.ini --out "r-mpi$np" >/dev/null 2>"wm$np" || fail "mpirun -np $np"
    warned_once "wm$np" "mpirun -np $np"
  done
  # nodes of different sizes (a node of 2 ranks sharing each slab, one of 1 reading it
  # whole): their slabs start at different rows, and each row still counts once (it said 5)
  mpirun_t 3 -x STALLSIM_TEST_NODE_RANKS=2 "$stallsim" run --explain --verbose long.ini --out r-nodes >/dev/null 2>wn ||
    fail "mpirun -np 3, nodes of 2 and 1"
  warned_once wn "mpirun -np 3, nodes of 2 and 1"
fi

# many such rows (1,500 of 3,000, more than a first cap of 1,024 rows held): still exact,
# alone and at 3 ranks in nodes of 2 and 1
"$stallsim" gen -o many.h5 --gpus 4 --iterations 3000 --seed 3 >/dev/null || fail "gen many"
$py -c "
import h5py
with h5py.File('many.h5', 'r+') as f:
    s, it = f['timeline/stall_time'][()], f['timeline/iteration_time'][()]
    s[5:3000:2, 1] = it[5:3000:2, 1] + 0.5
    s[5, 2:] = it[5, 2:] + 0.5
    f['timeline/stall_time'][...] = s
" || fail "python edit many"
printf '[trace]\npath = many.h5\n[scenarios]\nmodel = pipeline, independent\nworkers = 1, 2\n' > many.ini
many_ok() { grep -q "many.h5: 1500 GPU-iterations have a stall longer than the iteration (first: row 5, GPU 1:" "$1"; }
"$stallsim" info many.h5 >/dev/null 2>wi && many_ok wi && ok || fail "1500 long stalls, info: $(cat wi)"
"$stallsim" run --explain --verbose many.ini --out many1 >/dev/null 2>wr && many_ok wr && ok || fail "1500 long stalls, run: $(cat wr)"
if [ "$have_mpi" = 1 ]; then
  mpirun_t 3 -x STALLSIM_TEST_NODE_RANKS=2 "$stallsim" run --explain --verbose many.ini --out many3 >/dev/null 2>wm && many_ok wm && ok ||
    fail "1500 long stalls, 3 ranks: $(cat wm)"
fi

# a bad value beyond the calibration's rows, in the share of one rank of a node that
# reads shared slabs: every rank stops at that slab, the error is printed once, no hang
"$stallsim" gen -o late.h5 --gpus 3 --iterations 25000 --seed 6 >/dev/null || fail "gen late"
$py -c "
import h5py
with h5py.File('late.h5', 'r+') as f:
    d = f['timeline/fetch_time']; v = d[24001]; v[2] = float('nan'); d[24001] = v
" || fail "python edit late"
printf '[trace]\npath = late.h5\n[scenarios]\nmodel = pipeline\n[run]\nslab_iterations = 7\n' > late.ini
if [ "$have_mpi" = 1 ]; then
  for np in 2 3; do
    mpirun_t $np "$stallsim" run --explain --verbose late.ini --out "late-$np" >/dev/null 2>"le$np"; rc=$?
    n=$(grep -c "^stallsim: late.h5: dataset /timeline/fetch_time: row 24001, GPU 2 holds nan" "le$np")
    [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$n" -eq 1 ] && [ ! -e "late-$np/summary.csv" ] && ok ||
      fail "late NaN, np=$np: status $rc, $n messages: $(cat "le$np")"
  done
fi

# an epoch that is not there
printf '[trace]\npath = e.h5\nepoch = 3\n' > e3.ini
"$stallsim" run --explain --verbose e3.ini --out r3 2>err; rc=$?
[ $rc -eq 2 ] && grep -q "stallsim: e3.ini:3: trace.epoch = 3: the trace .*e.h5 has no epoch 3 (its epochs: 1, 2)" err && ok ||
  fail "epoch 3: status $rc: $(cat err)"
# found before any work: nothing is replayed (no progress line) and no folder is left
"$stallsim" run --explain --verbose e3.ini --out r3p --progress 2>err; rc=$?
[ $rc -eq 2 ] && ! grep -q "of the replay" err && [ ! -e r3p ] && ok || fail "epoch 3 before the sweep: status $rc: $(cat err)"

# int64 epochs
printf '[trace]\npath = e.h5\nepoch = 2\n[scenarios]\nfetch_align = none, min\n' > n.ini
printf '[trace]\npath = wide.h5\nepoch = 2\n[scenarios]\nfetch_align = none, min\n' > w.ini
"$stallsim" run --explain --verbose n.ini --out rn --quiet || fail "int32 run"
"$stallsim" run --explain --verbose w.ini --out rw --quiet 2>err && same_file rn/summary.csv rw/summary.csv "int64 epochs" || fail "int64 epochs rejected: $(cat err)"
"$stallsim" info wide.h5 >out 2>err && grep -q "epochs:       2 (1, 2)" out && ok || fail "info on int64 epochs: $(cat err out)"
"$stallsim" info huge.h5 >/dev/null 2>err; rc=$?
[ $rc -eq 1 ] && grep -q "/timeline/epoch: row 40 holds an epoch outside the 32-bit range" err && ok || fail "epoch 2^40: status $rc: $(cat err)"

# the optional /fetch_cpu_time: wrong shapes and values are named; a good one is printed,
# and with fetch_cpu = 0 the sweep is the trace's without it, byte for byte
cp e.h5 cpu.h5; cp e.h5 cpu-neg.h5; cp e.h5 cpu-short.h5
$py - <<'PY' || fail "python edits (fetch_cpu_time)"
import h5py, numpy as np
for name, v in (("cpu.h5", [0.01, 0.02, 0.0]), ("cpu-neg.h5", [0.01, -1.0, 0.0]), ("cpu-short.h5", [0.01, 0.02])):
    with h5py.File(name, "r+") as f:
        f.create_dataset("fetch_cpu_time", data=np.array(v, dtype=np.float64))
PY
"$stallsim" info cpu-neg.h5 >/dev/null 2>en && fail "a negative fetch_cpu_time was accepted" ||
  { grep -q "cpu-neg.h5: dataset /fetch_cpu_time\[1\] = -1" en && ok || fail "negative fetch_cpu_time: $(cat en)"; }
"$stallsim" info cpu-short.h5 >/dev/null 2>es && fail "a short fetch_cpu_time was accepted" ||
  { grep -q "cpu-short.h5: dataset /fetch_cpu_time is not 3 floating-point values" es && ok || fail "short fetch_cpu_time: $(cat es)"; }
"$stallsim" info --verbose cpu.h5 | grep -q "^fetch_cpu_time 0.0100 0.0200 0.0000 s" && ok || fail "info does not print fetch_cpu_time"
for t in e cpu; do
  printf '[trace]\npath = %s.h5\n[scenarios]\nmodel = pipeline\nfetch_scale = 1, 0.5\n[pipeline]\nfetch_cpu = %s\n' "$t" \
    "$([ $t = cpu ] && echo 0 || echo auto)" > "$t-fs.ini"
  "$stallsim" run --explain --verbose "$t-fs.ini" --out "fs-$t" --quiet || fail "run fetch_scale on $t.h5"
done
same_file fs-e/summary.csv fs-cpu/summary.csv "fetch_cpu = 0 against a trace without /fetch_cpu_time"
printf '[trace]\npath = cpu.h5\n[scenarios]\nmodel = pipeline\nfetch_scale = 1, 0.5\n' > cpu-auto.ini
"$stallsim" run --explain --verbose cpu-auto.ini --out fs-auto --quiet || fail "run fetch_cpu = auto"
cmp -s fs-e/summary.csv fs-auto/summary.csv && fail "fetch_cpu = auto ignored the recorded CPU parts" || ok
# run says what fetch_scale scales: whole fetches without recorded CPU times, or as set
"$stallsim" run --explain --verbose e-fs.ini --out fs-e2 > fs-e.txt || fail "run e-fs"
grep -q "^note: the trace does not record the fetches' CPU time, so fetch_scale scales whole fetches" fs-e.txt && ok ||
  fail "no note on whole fetches: $(grep note fs-e.txt)"
"$stallsim" run --explain --verbose cpu-fs.ini --out fs-cpu2 > fs-cpu.txt || fail "run cpu-fs"
grep -q "^note: fetch_scale scales whole fetches (pipeline.fetch_cpu = 0)" fs-cpu.txt && ok ||
  fail "no note on fetch_cpu = 0: $(grep note fs-cpu.txt)"
"$stallsim" run --explain --verbose cpu-auto.ini --out fs-auto2 > fs-auto.txt || fail "run cpu-auto"
grep -q "^note: .*fetch_scale" fs-auto.txt && fail "a note on fetch_scale with the recorded CPU parts: $(grep note fs-auto.txt)" || ok
# pools of cores that cannot be: a GPU naming a later one, cores that differ within a pool,
# one dataset of the two
for bad in fwd cores half; do cp e.h5 pool-$bad.h5; done
$py - <<'PY' || fail "python edits (cpu_pool)"
import h5py, numpy as np
for name, pool, cores in (("fwd", [0, 2, 2], [1, 1, 1]), ("cores", [0, 0, 2], [2, 3, 1]), ("half", [0, 1, 2], None)):
    with h5py.File("pool-%s.h5" % name, "r+") as f:
        f["cpu_pool"] = np.array(pool, dtype=np.int32)
        if cores:
            f["cpu_pool_cores"] = np.array(cores, dtype=np.int32)
PY
"$stallsim" info pool-fwd.h5 >/dev/null 2>ep && fail "a forward cpu_pool was accepted" ||
  { grep -q "pool-fwd.h5: dataset /cpu_pool\[1\] = 2, expected the first GPU of its pool" ep && ok || fail "forward pool: $(cat ep)"; }
"$stallsim" info pool-cores.h5 >/dev/null 2>ep && fail "cores differing in a pool were accepted" ||
  { grep -q "pool-cores.h5: dataset /cpu_pool_cores\[1\] = 3, expected at least 1 and the same as its pool's first GPU 0 (2)" ep && ok ||
    fail "pool cores: $(cat ep)"; }
"$stallsim" info pool-half.h5 >/dev/null 2>ep && fail "cpu_pool without cpu_pool_cores was accepted" ||
  { grep -q "pool-half.h5: datasets /cpu_pool and /cpu_pool_cores come together" ep && ok || fail "half pool: $(cat ep)"; }
# the waits for a core (recorder format 3): the two come together, finite and >= 0
for bad in half neg start nan; do cp e.h5 wait-$bad.h5; done
$py - <<'PY' || fail "python edits (waits)"
import h5py, numpy as np
with h5py.File("wait-start.h5", "r+") as f:  # the first window's waits without the medians
    f["fetch_wait_start_time"] = np.array([0.1, 0.0, 0.02])
with h5py.File("wait-nan.h5", "r+") as f:
    f["fetch_wait_time"] = np.array([0.01, 0.0, 0.02])
    f["loop_wait_time"] = np.array([0.01, 0.0, 0.02])
    f["fetch_wait_start_time"] = np.array([0.1, np.nan, 0.02])
with h5py.File("wait-half.h5", "r+") as f:
    f["loop_wait_time"] = np.array([0.01, 0.0, 0.02])
with h5py.File("wait-neg.h5", "r+") as f:
    f["fetch_wait_time"] = np.array([0.01, -0.5, 0.02])
    f["loop_wait_time"] = np.array([0.01, 0.0, 0.02])
PY
"$stallsim" info wait-half.h5 >/dev/null 2>ep && fail "loop_wait_time without fetch_wait_time was accepted" ||
  { grep -q "wait-half.h5: datasets /fetch_wait_time and /loop_wait_time come together; the trace has only /loop_wait_time" ep &&
    ok || fail "half waits: $(cat ep)"; }
"$stallsim" info wait-neg.h5 >/dev/null 2>ep && fail "a negative wait was accepted" ||
  { grep -q "wait-neg.h5: dataset /fetch_wait_time\[1\] = -0.5, expected seconds from 0 to 1e9" ep && ok || fail "negative wait: $(cat ep)"; }
"$stallsim" info wait-start.h5 >/dev/null 2>ep && fail "fetch_wait_start_time without the waits was accepted" ||
  { grep -q "wait-start.h5: dataset /fetch_wait_start_time needs /fetch_wait_time and /loop_wait_time" ep &&
    ok || fail "start waits alone: $(cat ep)"; }
"$stallsim" info wait-nan.h5 >/dev/null 2>ep && fail "a NaN start wait was accepted" ||
  { grep -q "wait-nan.h5: dataset /fetch_wait_start_time\[1\] = nan, expected seconds from 0 to 1e9" ep && ok || fail "NaN start wait: $(cat ep)"; }
# the probe's second pass: its two datasets come together, and need the first pass's four
for bad in half alone; do cp e.h5 next-$bad.h5; done
$py - <<'PY' || fail "python edits (probe's second pass)"
import h5py, numpy as np
with h5py.File("next-half.h5", "r+") as f:
    f["probe_next_lead_time"] = np.array([0.01, 0.0, 0.02])
with h5py.File("next-alone.h5", "r+") as f:
    f["probe_next_lead_time"] = np.array([0.01, 0.0, 0.02])
    f["probe_next_startup_time"] = np.array([0.01, 0.0, 0.02])
PY
"$stallsim" info next-half.h5 >/dev/null 2>ep && fail "probe_next_lead_time alone was accepted" ||
  { grep -q "next-half.h5: datasets /probe_next_lead_time and /probe_next_startup_time come together; the trace has only /probe_next_lead_time" ep &&
    ok || fail "half second pass: $(cat ep)"; }
"$stallsim" info next-alone.h5 >/dev/null 2>ep && fail "a second pass without the probe was accepted" ||
  { grep -q "next-alone.h5: datasets /probe_next_lead_time and /probe_next_startup_time need the four /probe_\* datasets" ep &&
    ok || fail "second pass alone: $(cat ep)"; }
# the passes (per epoch, per GPU): a stop needs the starts, a stop is >= 0, a start is an
# instant; run refuses starts whose rows are not the trace's epochs
for bad in 1d stop neg nan rows; do cp e.h5 pass-$bad.h5; done
$py - <<'PY' || fail "python edits (passes)"
import h5py, numpy as np
with h5py.File("e.h5", "r") as f:
    E = len(set(f["timeline/epoch"][:].tolist()))
with h5py.File("pass-1d.h5", "r+") as f:
    f["pass_start_time"] = np.zeros(3)
with h5py.File("pass-stop.h5", "r+") as f:
    f["pass_stop_time"] = np.zeros((E, 3))
with h5py.File("pass-neg.h5", "r+") as f:
    f["pass_start_time"] = np.zeros((E, 3))
    f["pass_stop_time"] = np.full((E, 3), -0.25)
with h5py.File("pass-nan.h5", "r+") as f:
    f["pass_start_time"] = np.full((E, 3), np.nan)
with h5py.File("pass-rows.h5", "r+") as f:
    f["pass_start_time"] = np.zeros((E + 1, 3))
PY
# info_refuses FILE PATTERN WHAT: info refuses the trace with a message matching PATTERN
info_refuses() {
  "$stallsim" info "$1" >/dev/null 2>ep && fail "$3 was accepted" || { grep -q "$2" ep && ok || fail "$3: $(cat ep)"; }
}
info_refuses pass-1d.h5 "pass-1d.h5: dataset /pass_start_time is not a \[passes\]\[3\] array of floating-point seconds" \
  "a 1-D pass_start_time"
info_refuses pass-stop.h5 "pass-stop.h5: dataset /pass_stop_time needs /pass_start_time with as many rows" \
  "pass_stop_time without pass_start_time"
info_refuses pass-neg.h5 "pass-neg.h5: dataset /pass_stop_time\[0\]\[0\] = -0.25, expected seconds from 0 to 1e9" \
  "a negative stop"
info_refuses pass-nan.h5 \
  "pass-nan.h5: dataset /pass_start_time\[0\]\[0\] = nan, expected an instant within 1e9 s of time_origin" "a NaN pass start"
info_refuses pass-rows.h5 "pass-rows.h5: dataset /pass_start_time has [0-9]* rows, but the timeline has [0-9]* epochs" \
  "pass starts of another epoch count (info)"
printf '[trace]\npath = pass-rows.h5\n' > pass-rows.ini
"$stallsim" run pass-rows.ini --out pass-rows --quiet >/dev/null 2>ep && fail "pass starts of another epoch count were accepted" ||
  { grep -q "pass-rows.h5: dataset /pass_start_time has [0-9]* rows, but the timeline has [0-9]* epochs" ep && [ ! -e pass-rows/summary.csv ] &&
    ok || fail "pass rows: $(cat ep)"; }
# a negative epoch (import table and pytorch keep them) can be selected: run and compare agree,
# and results.h5 tells that epoch -1 from every epoch (epoch_all)
cp e.h5 neg.h5
$py -c "
import h5py; f = h5py.File('neg.h5', 'r+'); e = f['timeline/epoch']; e[...] = e[()] - 2" || fail "python edits"
printf '[trace]\npath = neg.h5\nepoch = -1\nwarmup_iterations = 0\n' > neg.ini
"$stallsim" run --explain --verbose neg.ini --out rneg --quiet && "$stallsim" compare neg.h5 rneg --csv neg.csv > /dev/null 2> ep &&
  $py -c "
import csv, h5py
rows = list(csv.DictReader(open('neg.csv')))
a = h5py.File('rneg/results.h5', 'r').attrs
assert a['epoch'] == -1 and a['epoch_all'] == 0, dict(a)
assert rows[0]['iterations'] == rows[1]['iterations'] == '40', rows
assert rows[0]['iter_time_mean'] == rows[1]['iter_time_mean'], rows" && ! grep -q . ep && ok || fail "epoch -1: $(cat ep)"
# a trace compressed with a filter this HDF5 lacks (h5py's LZF) names the filter, not damage
$py -c "
import h5py
with h5py.File('e.h5', 'r') as a, h5py.File('lzf.h5', 'w') as b:
    for k, v in a.attrs.items(): b.attrs[k] = v
    g = b.create_group('timeline')
    for k, d in a['timeline'].items(): g.create_dataset(k, data=d[()], compression='lzf', chunks=True)" || fail "python edits"
"$stallsim" info lzf.h5 >/dev/null 2>ep && fail "an LZF trace was read" ||
  { grep -q "lzf.h5: dataset /timeline/.* is compressed with filter 32000 (lzf), which this HDF5 library does not have" ep && ok || fail "LZF: $(cat ep)"; }
# a trace in chunks of one row (an append-by-row writer's), of 3 rows, or of one value each,
# reads as the same trace, under MPI too: reads span more than the 1024 chunks of one HDF5
# call, from rows off a chunk's boundary; gzip chunks larger than a read inflates are refused
"$stallsim" gen -o long2.h5 --gpus 3 --iterations 1100 --epochs 2 --seed 4 >/dev/null || fail "gen long2"
$py -c "
import h5py
for name, src, rows, cols, gz in (('row1.h5', 'long2.h5', 1, 3, None), ('row3.h5', 'long2.h5', 3, 3, None),
                                  ('cell1.h5', 'long2.h5', 1, 1, None), ('bigz.h5', 'e.h5', 3_000_000, 3, 'gzip')):
    with h5py.File(src, 'r') as a, h5py.File(name, 'w') as b:
        for k, v in a.attrs.items(): b.attrs[k] = v
        g = b.create_group('timeline')
        for k, d in a['timeline'].items():
            v = d[()]
            g.create_dataset(k, data=v, chunks=(rows,) + (cols,) * (v.ndim - 1), maxshape=(None,) + v.shape[1:], compression=gz)" ||
  fail "python edits"
printf '[trace]\npath = long2.h5\n[scenarios]\nmodel = pipeline\nworkers = auto, auto*2\n' > row1.ini
"$stallsim" run row1.ini --out r-long2 --quiet || fail "run long2"
for v in row1:1500 row3:3500 cell1:1300; do
  mpirun_t 2 "$stallsim" run row1.ini --set trace.path=${v%%:*}.h5 --set run.slab_iterations=${v##*:} --out r-${v%%:*} --quiet &&
    same_file r-long2/summary.csv r-${v%%:*}/summary.csv "chunks of ${v%%:*}" || fail "a trace in chunks of ${v%%:*}"
done
"$stallsim" info bigz.h5 >/dev/null 2>ep && fail "a trace in 68.7 MiB gzip chunks was read" ||
  { grep -q "bigz.h5: dataset /timeline/fetch_start is compressed in chunks of 68.7 MiB (3000000 rows); stallsim takes compressed chunks of up to 64 MiB" ep &&
    grep -q "h5repack -l /timeline/fetch_start:CHUNK=80x3 in.h5 out.h5" ep && ok || fail "big gzip chunks: $(cat ep)"; }
# a trace another process holds open for writing (HDF5's file lock) is said to be so
$py -c "
import h5py, time
f = h5py.File('e.h5', 'r+'); open('held', 'w').close(); time.sleep(30)" &
holder=$!
for _ in $(seq 100); do [ -e held ] && break; sleep 0.1; done
"$stallsim" info e.h5 >/dev/null 2>ep && fail "a locked trace was read (or no lock)" ||
  { grep -q "e.h5: another process has the file open for writing (HDF5's file lock)" ep && ok || fail "locked: $(cat ep)"; }
# ... and gen does not replace it (that process's writes would go to a file no longer there)
"$stallsim" gen -o e.h5 --gpus 2 --iterations 5 >/dev/null 2>ep && fail "gen replaced a locked trace" ||
  { grep -q "e.h5: another process has the file open for writing" ep && ok || fail "gen over a locked trace: $(cat ep)"; }
kill $holder 2>/dev/null; wait $holder 2>/dev/null
# the integer root attributes are bounded: a prefetch factor of 2^32 + 3 is refused by name (it
# was read as 3), as are negative counts and a non-integer
for bad in "prefetch_factor 4294967299 0 to 1024" "prefetch_factor -3 0 to 1024" "batch_size -1 0 to"; do
  set -- $bad
  cp e.h5 attr.h5
  $py -c "import h5py, numpy as np; h5py.File('attr.h5', 'r+').attrs['$1'] = np.int64($2)" || fail "python edits"
  "$stallsim" info attr.h5 >/dev/null 2>ep && fail "$1 = $2 was accepted" ||
    { grep -q "attr.h5: root attribute $1 = $2, expected $3 $4 $5" ep && ok || fail "$1 = $2: $(cat ep)"; }
done
cp e.h5 attr.h5
$py -c "import h5py; h5py.File('attr.h5', 'r+').attrs['epochs'] = 2.5" || fail "python edits"
"$stallsim" info attr.h5 >/dev/null 2>ep && fail "epochs = 2.5 was accepted" ||
  { grep -q "attr.h5: root attribute 'epochs' is not one integer" ep && ok || fail "epochs = 2.5: $(cat ep)"; }
# a time_origin that is a number, not the ISO 8601 text, is named as such (it read "missing")
cp e.h5 attr.h5
$py -c "import h5py; h5py.File('attr.h5', 'r+').attrs['time_origin'] = 0" || fail "python edits"
"$stallsim" info attr.h5 >/dev/null 2>ep && fail "time_origin = 0 was accepted" ||
  { grep -q "attr.h5: root attribute 'time_origin' is missing or not a string" ep && ok || fail "time_origin = 0: $(cat ep)"; }
# a time_origin that is text but not a time is only printed, and info says so
cp e.h5 attr.h5
$py -c "import h5py; h5py.File('attr.h5', 'r+').attrs['time_origin'] = 'yesterday'" || fail "python edits"
"$stallsim" info attr.h5 > io 2>ep && grep -q "^time origin:  yesterday (not an ISO 8601 time)$" io && ok ||
  fail "time_origin = yesterday: $(cat io ep)"
"$stallsim" info e.h5 > io 2>ep && grep "^time origin:" io | grep -qv "not an ISO" && ok || fail "an ISO time_origin: $(cat io ep)"
# a trace whose metadata is damaged so that the HDF5 library loops forever (a damaged global
# heap read with a string attribute) or crashes: status 1 and a message naming the file, by
# info and by run at 1 and 2 ranks, no folder left behind (bytes flipped in a committed run
# where a tester found this with this machine's libhdf5; another version may refuse them
# otherwise, which passes too: status 1, no crash)
grid=$src/datasets/pytorch-grid/w2-x1-p2-slow3.h5
if [ -e "$grid" ]; then
  /usr/bin/python3 - "$grid" <<'PY' || fail "python edits (flips)"
import sys
data = open(sys.argv[1], "rb").read()
for name, flips in (("loops", {2601: 2, 33092: 202, 40172: 238}), ("crashes", {2732: 1, 7650: 2, 43083: 193})):
    b = bytearray(data)
    for at, v in flips.items():
        b[at] = v
    open(name + ".h5", "wb").write(b)
PY
  printf '[trace]\npath = loops.h5\n' > loops.ini
  cases="loops crashes"
  # under AddressSanitizer the damaged heap is caught inside libhdf5 itself (its memcpy of
  # overlapping ranges), which ends the process before any crash: only the loop is checked
  if ldd "$stallsim" 2>/dev/null | grep -q libasan; then
    cases=loops
    echo "note: a sanitizer build: the libhdf5 crash case is left to the plain build"
  fi
  for f in $cases; do
    for how in info run run2; do
      rm -rf "out-$f"
      case $how in
        info) STALLSIM_OPEN_TIMEOUT=3 timeout 60 "$stallsim" info "$f.h5" > /dev/null 2> ep ;;
        run) STALLSIM_OPEN_TIMEOUT=3 timeout 60 "$stallsim" run --explain --verbose loops.ini --set trace.path="$f.h5" --out "out-$f" > /dev/null 2> ep ;;
        run2) [ "$have_mpi" = 1 ] || continue
          STALLSIM_OPEN_TIMEOUT=3 mpirun_t 2 -x STALLSIM_OPEN_TIMEOUT "$stallsim" run --explain --verbose loops.ini --set trace.path="$f.h5" --out "out-$f" > /dev/null 2> ep ;;
      esac
      rc=$?
      [ $rc -eq 1 ] && grep -q "$f.h5: " ep && ! grep -qi "segmentation\|core dumped" ep && [ ! -e "out-$f" ] && ok ||
        fail "damaged metadata ($f, $how): status $rc $(head -c 300 ep)"
    done
  done
fi

# loader settings as an h5py user writes them, scalars (f.attrs['loader_workers'] = 2): every
# GPU's; a list of another length than the GPUs is still refused
"$stallsim" gen -o lw.h5 --gpus 4 --iterations 30 --workers 4 --prefetch 2 --seed 3 >/dev/null || fail "gen lw.h5"
cp lw.h5 lw-scalar.h5 && cp lw.h5 lw-three.h5 && cp lw.h5 lw-list.h5
$py - <<'PY' || fail "python edits (loader attributes)"
import h5py, numpy as np
with h5py.File("lw-scalar.h5", "r+") as f:
    f.attrs["loader_workers"] = 4
    f.attrs["prefetch_factor"] = np.int64(2)
with h5py.File("lw-list.h5", "r+") as f:
    f.attrs["loader_workers"] = [4, 4, 4, 4]
with h5py.File("lw-three.h5", "r+") as f:
    f.attrs["loader_workers"] = [4, 4, 4]
PY
"$stallsim" info lw.h5 --warmup 0 | grep -v "^trace\|took" > lw.info
for v in scalar list; do
  "$stallsim" info lw-$v.h5 --warmup 0 2> lw.err | grep -v "^trace\|took" > lw-$v.info &&
    grep -q "^loader_workers 4 4 4 4" lw-$v.info && cmp -s lw.info lw-$v.info && ok ||
    fail "loader_workers as a $v: $(cat lw.err; diff lw.info lw-$v.info | head -5)"
done
"$stallsim" info lw-three.h5 > /dev/null 2> lw.err; [ $? -eq 1 ] &&
  grep -q "lw-three.h5: root attribute 'loader_workers' is not 4 integers (one per GPU" lw.err && ok ||
  fail "loader_workers of 3 for 4 GPUs: $(cat lw.err)"
# a trace overwritten in part: wherever 64 bytes of its first 4 kB are garbage, info ends
# without a crash (status 0, 1 or 2), and where HDF5 cannot follow /timeline's links the
# message says the file looks damaged
"$stallsim" gen -o dm.h5 --gpus 2 --iterations 50 --seed 1 > /dev/null || fail "gen dm"
damaged=0 crashed=""
for off in $(seq 400 400 4000); do
  cp dm.h5 dm-$off.h5
  $py -c "import sys; f = open(sys.argv[1], 'r+b'); f.seek(int(sys.argv[2])); f.write(b'\xff' * 64)" dm-$off.h5 $off
  timeout 60 "$stallsim" info dm-$off.h5 > /dev/null 2> dm.err; rc=$?
  [ $rc -le 2 ] || crashed="$crashed $off:$rc"
  grep -q "dm-$off.h5: .*/timeline.* the file looks damaged" dm.err && damaged=$((damaged + 1))
done
[ -z "$crashed" ] && [ $damaged -ge 1 ] && ok || fail "traces overwritten in part: crashed at$crashed, $damaged said damaged"
finish
