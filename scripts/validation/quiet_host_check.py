#!/usr/bin/python3
"""quiet_host_check.py - [pipeline] quiet_host on datasets/pytorch-quiet-host: each base recorded
beside another process (hog-*, half-*) predicts 1, 2 and 4 workers with quiet_host false and
true, against the mean of the quiet runs of that setting (quiet-wN-a, -b): the error of the
mean iteration time (steady) and of the whole run, and whether each quiet run lies inside the
prediction's 90 % interval.

usage: /usr/bin/python3 scripts/validation/quiet_host_check.py [--stallsim BIN] [--data DIR]
"""
import argparse
import csv
import glob
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def summary(stallsim, ini, out):
    subprocess.run([stallsim, "run", ini, "--out", out, "--quiet"], check=True)
    return list(csv.DictReader(open(os.path.join(out, "summary.csv"))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stallsim", default=os.path.join(HERE, "build", "stallsim"))
    ap.add_argument("--data", default=os.path.join(HERE, "datasets", "pytorch-quiet-host"))
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="quiet-host-")
    a.data = os.path.abspath(a.data)  # (the scenario files lie elsewhere)
    if os.sep in a.stallsim:
        a.stallsim = os.path.abspath(a.stallsim)
    traces = sorted(glob.glob(os.path.join(a.data, "*.h5")))
    if not traces:
        sys.exit("quiet_host_check.py: no traces in %s" % a.data)
    real = {}  # workers -> [(steady, run)] of the quiet runs
    for t in traces:
        m = re.match(r"quiet-w(\d+)-", os.path.basename(t))
        if m:
            with open(os.path.join(tmp, "m.ini"), "w") as f:
                f.write("[trace]\npath = %s\n[scenarios]\nmodel = independent\n" % t)
            r = summary(a.stallsim, os.path.join(tmp, "m.ini"), os.path.join(tmp, "m"))[0]
            real.setdefault(int(m.group(1)), []).append((float(r["iter_time_mean"]), float(r["run_time"])))
    ws = sorted(real)
    print("| base | other processes | quiet_host | workers | steady error | whole-run error | quiet runs inside (steady, whole run) |")
    print("|---|---|---|---|---|---|---|")
    errs = {"false": [], "true": []}
    inside = {"false": [0, 0, 0], "true": [0, 0, 0]}
    for t in traces:
        b = os.path.basename(t)[:-3]
        if b.startswith("quiet-"):
            continue
        out = subprocess.run([a.stallsim, "info", t], capture_output=True, text=True).stdout
        host = re.search(r"other processes used (\d+) %", out)
        for q in ("false", "true"):
            ini = os.path.join(tmp, "p.ini")
            with open(ini, "w") as f:
                f.write("[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = %s\n[pipeline]\nquiet_host = %s\n"
                        % (t, ", ".join(map(str, ws)), q))
            for r in summary(a.stallsim, ini, os.path.join(tmp, "p"))[1:]:
                w = int(r["workers"])
                rs = [x[0] for x in real[w]]
                rr = [x[1] for x in real[w]]
                es = 100 * (float(r["iter_time_mean"]) / (sum(rs) / len(rs)) - 1)
                er = 100 * (float(r["run_time"]) / (sum(rr) / len(rr)) - 1)
                errs[q].append((abs(es), abs(er)))
                ins = sum(float(r["iter_time_lo"] or "nan") <= x <= float(r["iter_time_hi"] or "nan") for x in rs)
                inr = sum(float(r["run_time_lo"] or "nan") <= x <= float(r["run_time_hi"] or "nan") for x in rr)
                inside[q][0] += ins
                inside[q][1] += inr
                inside[q][2] += len(rs)
                print("| %s | %s %% | %s | %d | %+.1f %% | %+.1f %% | %d, %d of %d |"
                      % (b, host.group(1) if host else "?", q, w, es, er, ins, inr, len(rs)))
    for q in ("false", "true"):
        e = errs[q]
        print("quiet_host = %s: mean |error| steady %.1f %%, whole run %.1f %% over %d predictions; quiet runs inside: "
              "%d and %d of %d" % (q, sum(x[0] for x in e) / len(e), sum(x[1] for x in e) / len(e), len(e),
                                   inside[q][0], inside[q][1], inside[q][2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
