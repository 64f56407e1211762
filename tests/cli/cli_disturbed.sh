#!/usr/bin/env bash
# cli_disturbed.sh - disturbed and uneven runs, measured: real 2-rank DDP jobs
# (scripts/workloads/pytorch_bench.py) recorded beside two busy processes, and with a
# quarter of the steps twice as slow. Checks that the recorder's host sampling reaches the
# trace (/host_cpu_busy, /host_cpu_job) and agrees with /proc/stat read around the job by
# this test, that info and run say how much of the cores other processes used, and that
# info and run name the slow stretch where it is. Also the level-change rule on
# hand-made traces: a flat run is not flagged, a step up is, at its rows.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
need_torch
bench=(timeout -k 5 180 $py "$src/scripts/workloads/pytorch_bench.py" --nproc 2 --workers 2 --batch 4)

# busy share of the cores this test may run on, from two reads of /proc/stat
ticks() { awk -v set="$(taskset -pc $$ 2>/dev/null | sed 's/.*: //')" '
  BEGIN { n = split(set, parts, ","); for (i = 1; i <= n; i++) { split(parts[i], r, "-");
          if (r[2] == "") r[2] = r[1]; for (c = r[1]; c <= r[2]; c++) want[c] = 1 } }
  /^cpu[0-9]/ { c = substr($1, 4) + 0; if (n && !(c in want)) next;
                t = $2+$3+$4+$5+$6+$7+$8+$9; busy += t - $5 - $6; total += t }
  END { print busy, total }' /proc/stat; }

# 1. beside two busy processes: other processes took much of the cores
hogs=()
for i in 1 2; do timeout 120 $py -c "while True: pass" & hogs+=($!); done
sleep 0.5
read -r b0 t0 < <(ticks)
"${bench[@]}" --iterations 120 --epochs 1 --latency 0.002 --compute 0.01 --out "$work/hog/run" \
  2>"$work/hog.log" || { fail "the job beside the hogs"; cat "$work/hog.log" >&2; }
read -r b1 t1 < <(ticks)
kill "${hogs[@]}" 2>/dev/null; wait "${hogs[@]}" 2>/dev/null
[ -s "$work/hog/run.rank0.host.csv" ] && [ -s "$work/hog/run.rank1.host.csv" ] && ok ||
  fail "the recorder wrote no host file per rank"
"$stallsim" import pytorch "$work/hog/run" -o "$work/hog.h5" >/dev/null 2>&1 && ok || fail "import the hog run"
$py - "$work/hog.h5" "$b0" "$t0" "$b1" "$t1" <<'PY' && ok || fail "host CPU datasets of the hog run"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
busy, job = f["host_cpu_busy"][:], f["host_cpu_job"][:]
b0, t0, b1, t1 = map(float, sys.argv[2:])
outside = (b1 - b0) / (t1 - t0)  # this test's own reading around the whole job
assert len(busy) == 2 and busy[0] == busy[1] and job[0] == job[1], (busy, job)  # one pool: one value
assert 0 < job[0] <= busy[0] <= 1, (busy, job)
assert abs(busy[0] - outside) < 0.15, (busy[0], outside)  # the same cores, nearly the same window
assert busy[0] - job[0] > 0.4, (busy, job)  # two busy loops on these cores
PY
out=$("$stallsim" info "$work/hog.h5")
grep -qE '^host_cpu +other processes used [0-9]+ % of the [0-9]+ cores of its host' <<<"$out" && ok ||
  fail "info does not say what other processes used: $(grep host_cpu <<<"$out")"
other=$(sed -n 's/^host_cpu .*other processes used \([0-9]*\) %.*/\1/p' <<<"$out")
[ "${other:-0}" -ge 40 ] && ok || fail "info: other processes used ${other:-?} %, expected 40 or more"
cat >"$work/hog.ini" <<INI
[trace]
path = $work/hog.h5
[scenarios]
model = pipeline
workers = auto, auto*2
[output]
dir = $work/hog-out
INI
"$stallsim" run "$work/hog.ini" 2>&1 | grep -q "^note: other processes used [0-9]* % of the job's cores" && ok ||
  fail "run does not say what other processes used"
"$stallsim" run "$work/hog.ini" --json 2>/dev/null | $py -c '
import json, sys
d = json.load(sys.stdin)
h = d["findings"]["host_cpu"]
assert h["gpu"] == 0 and h["other_share"] > 0.4 and 0 < h["job_share"] < 1, h
assert any("other processes used" in n for n in d["notes"]), d["notes"]' && ok ||
  fail "run --json does not carry the host finding and note"
# compare --match names a real run, and a base run, recorded beside other work, with its share
"$stallsim" compare "$work/hog-out" "$work/hog.h5" --match > "$work/hog-cmp.txt" 2>&1 &&
  grep -qE "^busy while recorded .*: the base run of .*hog-out ${other}%, .*hog.h5 ${other}%" "$work/hog-cmp.txt" && ok ||
  fail "compare --match does not name the busy runs: $(tail -2 "$work/hog-cmp.txt")"

# 2. a quarter of the steps twice as slow (steps 100 to 149 of 200)
"${bench[@]}" --iterations 200 --epochs 1 --latency 0.001 --compute 0.02 --slowdown 100:150:2 \
  --out "$work/slow/run" 2>"$work/slow.log" || { fail "the job with a slowdown"; cat "$work/slow.log" >&2; }
"$stallsim" import pytorch "$work/slow/run" -o "$work/slow.h5" >/dev/null 2>&1 && ok || fail "import the slow run"
line=$("$stallsim" info "$work/slow.h5" | grep '^level change:')
# the stretch lies on the slow steps (blocks of 10 rows: within a block of their edges)
from=$(sed -n 's/.*from epoch 0 step \([0-9]*\) to.*/\1/p' <<<"$line")
to=$(sed -n 's/.*to epoch 0 step \([0-9]*\) (.*/\1/p' <<<"$line")
ratio=$(sed -n 's/.* took \([0-9.]*\)x the rest.*/\1/p' <<<"$line")
# (a real job: where other work on the machine slowed the steps after 149 too, the stretch may
# reach on over them, but only as far as the trace's own steps stayed at the slow level)
slow_until=$($py - "$work/slow.h5" <<'PY'
import sys, h5py, numpy as np
it = h5py.File(sys.argv[1], "r")["timeline/iteration_time"][:].max(axis=1)
rest = np.median(np.r_[it[11:100], it[150:]])
mid = (rest + np.median(it[100:150])) / 2
k = 150  # the last step from 150 on whose block of 10 (it and the next 9) ran at the slow level
while k + 10 <= len(it) and np.median(it[k:k + 10]) > mid:
    k += 10
print(k + 10)
PY
)
[ -n "$from" ] && [ "$from" -ge 90 ] && [ "$from" -le 111 ] && [ "$to" -ge 139 ] && [ "$to" -le "${slow_until:-160}" ] && ok ||
  fail "info's level change is not at steps 100 to 149 (nor as far as the steps stayed slow, $slow_until): '$line'"
awk -v r="${ratio:-0}" 'BEGIN { exit !(r > 1.3 && r < 2.2) }' && ok || fail "the slow stretch's ratio '$ratio'"
sed "s|$work/hog|$work/slow|" "$work/hog.ini" >"$work/slow.ini"
"$stallsim" run "$work/slow.ini" 2>&1 | grep -qE '^level change: epoch 0 step [0-9]+ to epoch 0 step [0-9]+ ran [0-9.]+x the rest' &&
  ok || fail "run does not name the slow stretch"
"$stallsim" run "$work/slow.ini" --explain 2>&1 |
  grep -q '^level change (measured): iteration times change level within the run: from epoch 0' && ok ||
  fail "run --explain does not give the level change in full"
"$stallsim" run "$work/slow.ini" --json 2>/dev/null | $py -c '
import json, sys
d = json.load(sys.stdin)["findings"]["level_change"]
assert d["epoch_from"] == 0 and 90 <= d["step_from"] <= 111 and 139 <= d["step_to"] <= int(sys.argv[1]), d
assert 1.3 < d["level"] / d["rest"] < 2.2, d' "${slow_until:-160}" && ok || fail "run --json's findings.level_change"

# 3. the rule on hand-made traces: flat noise is not flagged; a step up at row 300 of 400 is
for kind in flat step; do
  $py - "$work/$kind.h5" $kind <<'PY' || fail "write the $kind trace"
import sys, h5py, numpy as np
path, kind = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(7)
n, G = 400, 2
it = 0.05 * (1 + 0.1 * rng.standard_normal(n))
if kind == "step":
    it[300:] *= 1.3
it = np.repeat(it[:, None], G, axis=1)
stall = np.full((n, G), 0.001)
train = np.cumsum(it[:, 0]) - it[0, 0]
train = np.repeat(train[:, None], G, axis=1) + 0.001
fs = train - stall - 0.002
with h5py.File(path, "w") as f:
    f.attrs["schema"] = "stalltrace"; f.attrs["schema_version"] = 1; f.attrs["gpus"] = G
    f.attrs["iterations"] = n; f.attrs["time_origin"] = "2026-01-01T00:00:00.000000"
    t = f.create_group("timeline")
    t["epoch"] = np.zeros(n, np.int32); t["index"] = np.arange(n, dtype=np.int64)
    for name, v in (("fetch_start", fs), ("fetch_time", np.full((n, G), 0.002)), ("train_start", train),
                    ("iteration_time", it), ("stall_time", stall)):
        t[name] = v
        t[name].attrs["units"] = "s"
PY
done
"$stallsim" info "$work/flat.h5" >"$work/flat.out" 2>&1 || fail "info on the flat trace: $(tail -2 "$work/flat.out")"
grep -q '^level change' "$work/flat.out" && fail "a flat run is flagged: $(grep '^level' "$work/flat.out")" || ok
line=$("$stallsim" info "$work/step.h5" 2>&1 | grep '^level change:')
grep -qE 'from epoch 0 step (29[0-9]|30[0-9]|31[0-9]) to epoch 0 step 399 .* took 1\.[23][0-9]x' <<<"$line" && ok ||
  fail "the step at row 300 is not found there: '$line'"
finish
