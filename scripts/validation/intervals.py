#!/usr/bin/python3
"""intervals.py - the pipeline model's 90 % intervals from its errors on the development runs.

Every run of each idle-machine grid (datasets/pytorch-grid-d to -t: w<W>-x<X>-p<P>.h5)
predicts every other and itself (its workers, prefetch factor and storage latency), and
its slow-rank run predicts the base run with the slow rank healed; each prediction
falls in the class `run` gives it (summary.csv's error_class), and its error is
predicted / real - 1 for the mean iteration time (steady) and the whole run's time (run).
Per class, the 5 % and 95 % quantiles of those errors (linear interpolation between order
statistics, numpy's default) are the interval's ends: sim/models/MODELS-pipeline.md,
"Intervals". Writes sim/models/ss_pipeline_intervals.c (--write) or prints the table.

usage: /usr/bin/python3 scripts/validation/intervals.py [--stallsim BIN] [--datasets DIR] [--write]
"""
import argparse
import csv
import glob
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

GRID = re.compile(r"^w(\d+)-x([\d.]+)-p(\d+)\.h5$")
CLASSES = ["baseline", "from a synchronous trace", "near saturation", "heal", "loaders now ahead", "loader bound"]
DEV = ["pytorch-grid-%s" % c for c in "defghijklmnopqrst"]


def run(stallsim, ini, out):
    p = subprocess.run([stallsim, "run", ini, "--out", out, "--quiet"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return list(csv.DictReader(open(os.path.join(out, "summary.csv")))) if p.returncode == 0 else None


def grid_errors(stallsim, folder, tmp):
    """(class, steady error, run error) of every prediction of a grid's runs of one another."""
    runs = {t: GRID.match(os.path.basename(t)) for t in sorted(glob.glob(os.path.join(folder, "*.h5")))}
    runs = {t: (int(m.group(1)), float(m.group(2)), int(m.group(3))) for t, m in runs.items() if m}
    real = {}
    for t in runs:
        with open(os.path.join(tmp, "m.ini"), "w") as f:
            f.write("[trace]\npath = %s\n[scenarios]\nmodel = independent\n" % t)
        rows = run(stallsim, os.path.join(tmp, "m.ini"), os.path.join(tmp, "m"))
        if rows:
            real[t] = (float(rows[0]["iter_time_mean"]), float(rows[0]["run_time"]))
    ws = sorted({w for w, _, _ in runs.values()})
    ps = sorted({p for _, _, p in runs.values()})
    out = []
    for base, (bw, bx, bp) in runs.items():
        xs = sorted({"%g" % (x / bx) for _, x, _ in runs.values()}, key=float)
        with open(os.path.join(tmp, "p.ini"), "w") as f:
            f.write("[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nworkers = auto, %s\nprefetch = auto, %s\n"
                    "fetch_scale = %s\n" % (base, ", ".join(map(str, ws)), ", ".join(map(str, ps)), ", ".join(xs)))
        rows = run(stallsim, os.path.join(tmp, "p.ini"), os.path.join(tmp, "p"))
        if not rows:
            continue
        pred = {}
        for r in rows[1:]:
            key = (int(r["workers"]), "%g" % float(r["fetch_scale"]), int(r["prefetch"]))
            if r["error_class"] == "baseline" or key not in pred:
                pred[key] = r
        for t, (w, x, p) in runs.items():
            if t not in real:
                continue
            key = (w, "%g" % (x / bx), p)
            r = pred.get(key)
            if r is None and w == 0:  # synchronous: any prefetch factor
                r = next((v for k, v in pred.items() if k[0] == 0 and k[1] == key[1]), None)
            if r is None or not r["error_class"]:
                continue
            out.append((r["error_class"], float(r["iter_time_mean"]) / real[t][0] - 1,
                        float(r["run_time"]) / real[t][1] - 1))
    # the slow rank healed (w2-x1-p2-slow3: rank 3's storage 3x slower) against the base run
    slow, base = os.path.join(folder, "w2-x1-p2-slow3.h5"), os.path.join(folder, "w2-x1-p2.h5")
    if os.path.exists(slow) and base in real:
        with open(os.path.join(tmp, "h.ini"), "w") as f:
            f.write("[trace]\npath = %s\n[scenarios]\nmodel = pipeline\nprefetch = auto\nheal = 3\n" % slow)
        rows = run(stallsim, os.path.join(tmp, "h.ini"), os.path.join(tmp, "h"))
        for r in rows[1:] if rows else []:
            if r["error_class"]:
                out.append((r["error_class"], float(r["iter_time_mean"]) / real[base][0] - 1,
                            float(r["run_time"]) / real[base][1] - 1))
    return out


def main():
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stallsim", default=os.path.join(here, "build", "stallsim"))
    ap.add_argument("--datasets", default=os.path.join(here, "datasets"))
    ap.add_argument("--write", action="store_true", help="write sim/models/ss_pipeline_intervals.c")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 when sim/models/ss_pipeline_intervals.c is not what these runs give")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="intervals-")
    errs = []
    for d in DEV:
        folder = os.path.join(a.datasets, d)
        if os.path.isdir(folder):
            errs += grid_errors(a.stallsim, folder, tmp)
    table = []
    print("| class | predictions | steady: 5 % | 95 % | whole run: 5 % | 95 % |")
    print("|---|---|---|---|---|---|")
    for c in CLASSES:
        e = [x for x in errs if x[0] == c]
        if len(e) >= 10:
            s = np.quantile([x[1] for x in e], [0.05, 0.95])
            r = np.quantile([x[2] for x in e], [0.05, 0.95])
        else:  # too few to say: no interval
            s = r = [0.0, 0.0]
        n = len(e) if len(e) >= 10 else 0
        table.append((c, n, s, r))
        print("| %s | %d | %+.2f %% | %+.2f %% | %+.2f %% | %+.2f %% |" % (c, len(e), 100 * s[0], 100 * s[1],
                                                                       100 * r[0], 100 * r[1]))
    path = os.path.join(here, "sim", "models", "ss_pipeline_intervals.c")
    text = ("/* ss_pipeline_intervals.c - the pipeline model's error classes and their 90 % intervals.\n"
            " * Generated by scripts/validation/intervals.py from the development runs; do not edit. */\n"
            "#include \"ss_pipeline_internal.h\"\n\n"
            "const ss_error_class ssp_error_classes[SSP_NCLASSES] = {\n")
    for c, n, s, r in table:
        text += "    {\"%s\", %d, {%.17g, %.17g}, {%.17g, %.17g}},\n" % (c, n, s[0], s[1], r[0], r[1])
    text += "};\n"
    if a.check:
        same = os.path.exists(path) and open(path).read() == text
        print("%s is %s" % (path, "up to date" if same else "OUT OF DATE: run intervals.py --write"))
        return 0 if same else 1
    if a.write:
        with open(path, "w") as f:
            f.write(text)
        print("wrote", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
