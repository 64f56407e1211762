#!/usr/bin/python3
"""whole_run.py - the whole run's figures on the committed real runs: the pipeline model's
baseline replay of every trace with warmup_iterations = 0 (every epoch's start included),
and on each grid (datasets/pytorch-grid*, w<W>-x<X>-p<P>.h5) every run predicting every
other, the whole run's time (run_time) beside the steady state (iter_time_mean).

usage: /usr/bin/python3 scripts/validation/whole_run.py [--stallsim BIN] [--datasets DIR] [--grids]
Prints the tables that datasets/VALIDATION.md gives; needs only the committed traces.
"""
import argparse
import csv
import glob
import os
import re
import statistics
import subprocess
import sys
import tempfile

GRID = re.compile(r"^w(\d+)-x([\d.]+)-p(\d+)\.h5$")


def run(stallsim, ini, out):
    """Runs stallsim on a scenario file; the summary's rows, or None when it fails."""
    p = subprocess.run([stallsim, "run", ini, "--out", out, "--quiet"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    if p.returncode != 0:
        return None
    return list(csv.DictReader(open(os.path.join(out, "summary.csv"))))


def baselines(stallsim, traces, tmp):
    """Each trace's pipeline baseline with every row summarised: (trace, whole-run error %)."""
    out = []
    for t in traces:
        ini = os.path.join(tmp, "b.ini")
        with open(ini, "w") as f:
            f.write("[trace]\npath = %s\nwarmup_iterations = 0\n[scenarios]\nmodel = pipeline\nprefetch = auto\n" % t)
        rows = run(stallsim, ini, os.path.join(tmp, "b"))
        base = [r for r in rows or [] if r["fidelity_iter_time_err_pct"]]
        if base:
            out.append((t, float(base[0]["run_change_pct"])))
    return out


def grid_pairs(stallsim, folder, tmp):
    """Every run of a grid predicts every other: (base, target, whole-run err %, steady err %)."""
    runs = {}
    for t in sorted(glob.glob(os.path.join(folder, "*.h5"))):
        m = GRID.match(os.path.basename(t))
        if m:
            runs[t] = (int(m.group(1)), float(m.group(2)), int(m.group(3)))
    real = {}
    for t in runs:
        ini = os.path.join(tmp, "m.ini")
        with open(ini, "w") as f:
            f.write("[trace]\npath = %s\n[scenarios]\nmodel = independent\n" % t)
        rows = run(stallsim, ini, os.path.join(tmp, "m"))
        if rows:
            real[t] = (float(rows[0]["run_time"]), float(rows[0]["iter_time_mean"]))
    out = []
    for base, (bw, bx, bp) in runs.items():
        if base not in real:
            continue
        ws = sorted({w for w, _, _ in runs.values()})
        xs = sorted({x for _, x, _ in runs.values()})
        ps = sorted({p for _, _, p in runs.values()})
        ini = os.path.join(tmp, "p.ini")
        with open(ini, "w") as f:
            f.write("[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = %s\nprefetch = %s\nfetch_scale = %s\n"
                    % (base, ", ".join(map(str, ws)), ", ".join(map(str, ps)),
                       ", ".join("%g" % (x / bx) for x in xs)))
        rows = run(stallsim, ini, os.path.join(tmp, "p"))
        if not rows:
            continue
        pred = {}
        for r in rows[1:]:
            pred[(int(r["workers"]), float(r["fetch_scale"]), int(r["prefetch"]))] = r
        for t, (w, x, p) in runs.items():
            if t == base or t not in real:
                continue
            r = pred.get((w, float("%g" % (x / bx)), p))
            if r is None and w == 0:  # synchronous: the prefetch factor means nothing
                r = next((v for k, v in pred.items() if k[0] == 0 and abs(k[1] - x / bx) < 1e-9), None)
            if r is None:
                continue
            out.append((base, t, 100 * (float(r["run_time"]) / real[t][0] - 1),
                        100 * (float(r["iter_time_mean"]) / real[t][1] - 1)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--stallsim", default=os.path.join(here, "build", "stallsim"))
    ap.add_argument("--datasets", default=os.path.join(here, "datasets"))
    ap.add_argument("--grids", action="store_true", help="also every grid's all pairs (slower)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="whole-run-")
    traces = sorted(glob.glob(os.path.join(a.datasets, "pytorch-*", "*.h5")))
    b = baselines(a.stallsim, traces, tmp)
    errs = [abs(e) for _, e in b]
    print("## The baseline replay, every row summarised (warmup_iterations = 0)\n")
    print("| traces with a baseline | within 2 % | within 5 % | mean abs error | largest |")
    print("|---|---|---|---|---|")
    worst = max(b, key=lambda x: abs(x[1]))
    print("| %d | %d | %d | %.2f %% | %+.1f %% (%s) |" % (len(b), sum(e <= 2 for e in errs), sum(e <= 5 for e in errs),
                                                   statistics.mean(errs), worst[1],
                                                   os.path.relpath(worst[0], a.datasets)))
    over = [(os.path.relpath(t, a.datasets), e) for t, e in b if abs(e) > 2]
    if over:
        print("\nBeyond 2 %%: %s" % ", ".join("%s %+.1f %%" % x for x in over))
    if not a.grids:
        return 0
    print("\n## Every grid run predicting every other: the whole run beside the steady state\n")
    print("| grid | predictions | whole run: mean abs error | within 5 % | steady state: mean abs error | within 5 % |")
    print("|---|---|---|---|---|---|")
    allr, alls = [], []
    for folder in sorted(glob.glob(os.path.join(a.datasets, "pytorch-grid*"))):
        pairs = grid_pairs(a.stallsim, folder, tmp)
        if not pairs:
            continue
        r = [abs(p[2]) for p in pairs]
        s = [abs(p[3]) for p in pairs]
        allr += r
        alls += s
        print("| %s | %d | %.2f %% | %d | %.2f %% | %d |" % (os.path.basename(folder), len(pairs), statistics.mean(r),
                                                          sum(x <= 5 for x in r), statistics.mean(s),
                                                          sum(x <= 5 for x in s)))
    if allr:
        print("| all | %d | %.2f %% | %d | %.2f %% | %d |" % (len(allr), statistics.mean(allr), sum(x <= 5 for x in allr),
                                                          statistics.mean(alls), sum(x <= 5 for x in alls)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
