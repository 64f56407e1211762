#!/usr/bin/python3
"""intervals.py - the pipeline model's 90 % intervals from its errors on real runs.

Every run of each idle-machine grid (w<W>-x<X>-p<P>.h5) predicts every other and itself
(its workers, prefetch factor and storage latency), and its slow-rank run predicts the
base run with the slow rank healed; each prediction falls in the class `run` gives it
(summary.csv's error_class), and its error is predicted / real - 1 for the mean iteration
time (steady) and the whole run's time (run). Each error is divided by its scale
s = sqrt(m^2 + v^2): m is its class's model error in that measure (the median |error| of the
class's predictions, at least a floor f), v its base trace's noise: how much it varies within
itself and other processes' share of its cores while it was recorded, in quadrature. Two
sets of grids give these scaled errors: the development grids (DEV, which the model's rules
were built on) and the calibration grids (CAL: held out when they were recorded, so their
errors are those of runs the model never saw). Per class, each end is the wider of the two
sets' 5 % and 95 % quantiles (linear interpolation between order statistics, numpy's
default); a class with fewer than 10 calibration errors takes the calibration errors of
every class but the baseline; for the whole run, "loader bound on calm cores" takes both
loader-bound classes' errors together. The floor f is the candidate whose intervals, each
grid of DEV and CAL left out in turn and judged by the others', are narrowest in the
steady state while 90 % of that grid's real values fall inside:
sim/models/MODELS-pipeline.md, "Intervals". Writes sim/models/ss_pipeline_intervals.c
(--write) or prints the table.

usage: /usr/bin/python3 scripts/validation/intervals.py [--stallsim BIN] [--datasets DIR] [--write]
"""
import argparse
import os
import statistics
import sys
import tempfile

import h5py
import numpy as np

from grid_predictions import grid_predictions

CLASSES = ["baseline", "from a synchronous trace", "from a probed synchronous trace", "near saturation", "heal",
           "loaders now ahead", "loader bound on calm cores", "loader bound"]
# no development run can fall in it (their synchronous traces have no probe): its calibration errors alone,
# and, as they come from one machine, whose bias they carry, an interval symmetric about 0
CAL_ONLY = ("from a probed synchronous trace",)
# calm is measured on the steady state; an epoch's start may crowd the cores all the same, so
# for the whole run this class takes the errors of both loader-bound classes together
RUN_POOLED = {"loader bound on calm cores": ("loader bound on calm cores", "loader bound")}
DEV = ["pytorch-grid-%s" % c for c in "defghijklmnopqrstvw"]
# grid U, then the grids recorded held out, each of which has judged a release (datasets/VALIDATION.md)
CAL = ["pytorch-grid-%s" % c for c in ("u", "zc", "zl", "z", "za", "zb", "zd", "ze", "zf", "zh", "zi", "zj", "zk", "zm",
                                       "zn", "zo", "zp")]
MIN_ERRORS = 10
# the floors tried: 0.5 % to 6 %
FLOORS = [k / 200 for k in range(1, 13)]
WARMUP = 11  # the default warmup_iterations: the summarised rows


def variability(path):
    """How much a trace varies within itself (ss_summary_variability): v = |a - b| / ((a + b) / 2),
    a and b the mean of the rows' largest iteration time over the summarised rows (index >=
    WARMUP) of the trace's first and second halves of rows; 0 where a half has none."""
    with h5py.File(path, "r") as f:
        ix, it = f["timeline/index"][:], f["timeline/iteration_time"][:].max(axis=1)
    n = len(ix)
    first = np.arange(n) < n / 2
    a, b = it[(ix >= WARMUP) & first], it[(ix >= WARMUP) & ~first]
    if not len(a) or not len(b):
        return 0.0
    a, b = a.mean(), b.mean()
    return abs(a - b) / ((a + b) / 2) if a + b > 0 else 0.0


def host_others(path):
    """Other processes' largest share of a pool's cores while the trace was recorded
    (ss_trace_meta_host_others): max over the GPUs of /host_cpu_busy less /host_cpu_job, at
    least 0; 0 where the trace does not record them."""
    with h5py.File(path, "r") as f:
        if "host_cpu_busy" not in f or "host_cpu_job" not in f:
            return 0.0
        o = np.nan_to_num(f["host_cpu_busy"][:] - f["host_cpu_job"][:], nan=0.0)
    return max(0.0, float(o.max())) if o.size else 0.0


def noise(path):
    """The trace's own noise (ss_summary_trace_noise): its variability and other processes'
    share of its cores, in quadrature."""
    return float(np.hypot(variability(path), host_others(path)))


def scale(m, v):
    """The scale of a prediction's error: its class's model error m and its trace's noise
    v, in quadrature."""
    return (m * m + v * v) ** 0.5


def _ends(errs, k, m):
    """The 5 % and 95 % quantiles of the errors' k-th measure (1 steady, 2 whole run), each
    divided by its scale."""
    return np.quantile([x[k] / scale(m, x[3]) for x in errs], [0.05, 0.95])


def _model_error(errs, k, floor):
    """A class's model error in measure k: the median |error| of its predictions, at least the floor."""
    return max(float(np.median([abs(x[k]) for x in errs])), floor) if errs else floor


def class_table(errs, cal_errs=(), floor=0.01):
    """Per class, from (class, steady error, whole-run error, trace noise[, grid]) of the
    development and the calibration runs: the table [(class, n, steady 5/95 %, run 5/95 %,
    model errors (steady, run))] of scaled errors, n the development count (a CAL_ONLY
    class's: its calibration count), and its Markdown lines."""
    table = []
    lines = ["| class | development | calibration | model error: steady | whole run "
             "| steady: 5 % | 95 % | whole run: 5 % | 95 % |",
             "|---|---|---|---|---|---|---|---|---|"]
    for c in CLASSES:
        e = [x for x in errs if x[0] == c]
        u = [x for x in cal_errs if x[0] == c]
        ne, nu = len(e), len(u)
        own = e + u  # the class's own errors: its model error
        if nu < MIN_ERRORS and c != "baseline":  # too few of its own: every class's unseen errors
            u = [x for x in cal_errs if x[0] != "baseline"]
        if c in CAL_ONLY:  # its own calibration errors, the development runs' count as none
            e, u = u if nu >= MIN_ERRORS else [], []
            own = e
        # the whole run's errors: the class's own, or those of the classes it pools with
        er, ur, ownr = e, u, own
        if c in RUN_POOLED:
            er = [x for x in errs if x[0] in RUN_POOLED[c]]
            ur = [x for x in cal_errs if x[0] in RUN_POOLED[c]]
            ownr = er + ur
        m = (_model_error(own, 1, floor), _model_error(ownr, 2, floor))
        if len(e) >= MIN_ERRORS:
            s, r = _ends(e, 1, m[0]), _ends(er, 2, m[1])
            if len(u) >= MIN_ERRORS:
                us = _ends(u, 1, m[0])
                s = [min(s[0], us[0]), max(s[1], us[1])]
            if len(ur) >= MIN_ERRORS:
                ue = _ends(ur, 2, m[1])
                r = [min(r[0], ue[0]), max(r[1], ue[1])]
        else:  # too few to say: no interval
            s = r = [0.0, 0.0]
        if c in CAL_ONLY:  # the size of the errors, not their sign: the larger end both ways
            s = [-max(-s[0], s[1]), max(-s[0], s[1])]
            r = [-max(-r[0], r[1]), max(-r[0], r[1])]
        n = len(e) if len(e) >= MIN_ERRORS else 0
        table.append((c, n, s, r, m))
        lines.append("| %s | %d | %d%s | %.2f %% | %.2f %% | %+.3f | %+.3f | %+.3f | %+.3f |"
                     % (c, ne, nu, "" if nu >= MIN_ERRORS or c in ("baseline",) + CAL_ONLY else " (all: %d)" % len(u),
                        100 * m[0], 100 * m[1], s[0], s[1], r[0], r[1]))
    return table, lines


def judged(table, errs, k=1):
    """Each non-baseline prediction of errs with an interval in the table: (inside, half-width
    as a share of the prediction), of measure k (1 steady, 2 whole run)."""
    ends = {c: (s, r, m) for c, n, s, r, m in table if n > 0}
    out = []
    for x in errs:
        if x[0] == "baseline" or x[0] not in ends:
            continue
        z05, z95 = ends[x[0]][k - 1]
        sc = scale(ends[x[0]][2][k - 1], x[3])
        a, b = 1 + z95 * sc, 1 + z05 * sc
        if a <= 0 or b <= 0:
            continue
        real = 1 / (1 + x[k])  # the prediction is 1
        out.append((1 / a <= real <= 1 / b, (1 / b - 1 / a) / 2))
    return out


def left_out(dev, cal, floor):
    """Each grid of dev and cal left out in turn and judged by the others' table: the share of
    its real steady values inside and the median half-width, over every grid's predictions."""
    got = []
    for g in sorted({x[4] for x in dev + cal}):
        table = class_table([x for x in dev if x[4] != g], [x for x in cal if x[4] != g], floor)[0]
        got += judged(table, [x for x in dev + cal if x[4] == g])
    return sum(i for i, _ in got) / len(got), statistics.median(h for _, h in got)


def choose_floor(dev, cal):
    """The floor whose left-out intervals are narrowest in the steady state among those that
    keep 90 % of the real values inside (the widest coverage when none does), and the lines
    of the table of every candidate."""
    tried = [(f,) + left_out(dev, cal, f) for f in FLOORS]
    ok = [t for t in tried if t[1] >= 0.90]
    best = min(ok, key=lambda t: (t[2], -t[1]))[0] if ok else max(tried, key=lambda t: t[1])[0]
    lines = ["| floor | inside, each grid left out | median half-width |", "|---|---|---|"]
    lines += ["| %.1f %%%s | %.1f %% | %.1f %% |" % (100 * f, " (chosen)" if f == best else "", 100 * c, 100 * h)
              for f, c, h in tried]
    return best, lines


def errors_of(stallsim, datasets, names, tmp):
    """(class, steady error, whole-run error, base trace's noise, grid) of every grid
    prediction of these datasets."""
    errs, v = [], {}
    for d in names:
        folder = os.path.join(datasets, d)
        if os.path.isdir(folder):
            for b, _, c, es, er in grid_predictions(stallsim, folder, tmp):
                if c:
                    v[b] = v[b] if b in v else noise(b)
                    errs.append((c, es, er, v[b], d))
    return errs


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
    dev, cal = errors_of(a.stallsim, a.datasets, DEV, tmp), errors_of(a.stallsim, a.datasets, CAL, tmp)
    floor, flines = choose_floor(dev, cal)
    table, lines = class_table(dev, cal, floor)
    print("\n".join(flines + [""] + lines))
    path = os.path.join(here, "sim", "models", "ss_pipeline_intervals.c")
    text = ("/* ss_pipeline_intervals.c - the pipeline model's error classes and their 90 % intervals.\n"
            " * Generated by scripts/validation/intervals.py from the development and calibration runs;\n"
            " * do not edit. */\n"
            "#include \"ss_pipeline_internal.h\"\n\n"
            "const ss_error_class ssp_error_classes[SSP_NCLASSES] = {\n")
    for c, n, s, r, m in table:
        text += "    {\"%s\", %d, {%.17g, %.17g}, {%.17g, %.17g}, {%.17g, %.17g}},\n" % (c, n, s[0], s[1], r[0], r[1],
                                                                                  m[0], m[1])
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
