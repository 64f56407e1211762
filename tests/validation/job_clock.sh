#!/usr/bin/env bash
# job_clock.sh - the measured row's run_time against the job's own clock: each committed
# run whose record.log line gives the workload's wall time of its training loop (rank 0's,
# from before the first epoch's iter(loader) to the end of the last epoch). With pass stops
# (recorder format 5) the two must agree within 0.5 %, once the clock is moved to the job's
# ends: run_time starts at the pass start of the GPU that asks first and ends as the last
# GPU's last shutdown does, where rank 0's clock starts and ends at rank 0's. Without them
# the last pass's workers' shutdown is not timed, so run_time may only fall short of the
# clock.
. "$(dirname "$0")/../lib/lib_cli.sh" "$@"
py=/usr/bin/python3
$py -c "import h5py" 2>/dev/null || { echo "skipped: /usr/bin/python3 lacks h5py"; exit 77; }
logs=("$src"/datasets/*/record.log)
[ -e "${logs[0]}" ] || { echo "skipped: no datasets/*/record.log"; exit 77; }

$py - "$stallsim" "$work" "${logs[@]}" <<'PY' && ok || fail "run_time against the job's own clock"
import csv, os, re, subprocess, sys, h5py
stallsim, work, logs = sys.argv[1], sys.argv[2], sys.argv[3:]
n_stops = n_none = 0
worst = 0.0
for log in logs:
    folder = os.path.dirname(log)
    for line in open(log):
        m = re.match(r"\S+ (\S+) .* steps in ([\d.]+) s", line)
        if not m:
            continue
        name, clock = m.group(1), float(m.group(2))
        trace = os.path.join(folder, name + ".h5")
        if not os.path.exists(trace):
            continue
        f = h5py.File(trace, "r")
        stops = "pass_stop_time" in f
        ini = os.path.join(work, "m.ini")
        open(ini, "w").write("[trace]\npath = %s\n[scenarios]\nmodel = independent\n" % os.path.abspath(trace))
        out = os.path.join(work, "o")
        subprocess.run([stallsim, "run", ini, "--out", out, "--quiet"], check=True, capture_output=True)
        run = float(next(csv.DictReader(open(os.path.join(out, "summary.csv"))))["run_time"])
        if stops:  # the clock moved from rank 0's start and end to the job's
            t = f["timeline"]
            ask0 = t["train_start"][0] - t["stall_time"][0]
            ends = t["train_start"][-1] - t["stall_time"][-1] + t["iteration_time"][-1] + f["pass_stop_time"][-1]
            ps = f["pass_start_time"][0]
            clock += (ends.max() - ends[0]) + (ps[0] - ps[ask0.argmin()])
        d = 100.0 * (run / clock - 1.0)
        what = "%s/%s: run_time %.3f s, the job's clock %.3f s (%+.2f %%)" % (os.path.basename(folder), name, run, clock, d)
        if stops:
            assert abs(d) <= 0.5, what
            worst = max(worst, abs(d))
            n_stops += 1
        else:
            # (the clock is printed to the millisecond, and starts a moment before the
            # first pass does)
            assert d <= 0.1, what
            n_none += 1
assert n_stops > 0, "no run with pass stops and a logged clock"
print("job clock: %d runs with pass stops within %.2f %%; %d without, none longer" % (n_stops, worst, n_none))
PY
finish
