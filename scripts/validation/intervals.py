#!/usr/bin/python3
"""intervals.py - the pipeline model's 90 % intervals from its errors on real runs.

Every run of each idle-machine grid (w<W>-x<X>-p<P>.h5) predicts every other and itself
(its workers, prefetch factor and storage latency), and its slow-rank run predicts the
base run with the slow rank healed; each prediction falls in the class `run` gives it
(summary.csv's error_class), and its error is predicted / real - 1 for the mean iteration
time (steady) and the whole run's time (run). Two sets of grids give errors: the
development grids (DEV, which the model's rules were built on) and the calibration grids
(CAL: held out when they were recorded, so their errors are those of runs the model never
saw). Per class, each end is the wider of the two sets' 5 % and 95 % quantiles (linear
interpolation between order statistics, numpy's default); a class with fewer than 10
calibration errors takes the calibration errors of every class but the baseline; for the
whole run, "loader bound on calm cores" takes both loader-bound classes' errors together:
sim/models/MODELS-pipeline.md, "Intervals". Writes sim/models/ss_pipeline_intervals.c
(--write) or prints the table.

usage: /usr/bin/python3 scripts/validation/intervals.py [--stallsim BIN] [--datasets DIR] [--write]
"""
import argparse
import os
import sys
import tempfile

import numpy as np

from grid_predictions import grid_predictions

CLASSES = ["baseline", "from a synchronous trace", "from a probed synchronous trace", "near saturation", "heal",
           "loaders now ahead", "loader bound on calm cores", "loader bound"]
# no development run can fall in it (their synchronous traces have no probe): its calibration errors alone,
# and, as they come from one grid, whose sign elsewhere they cannot tell, an interval symmetric about 0
CAL_ONLY = ("from a probed synchronous trace",)
# calm is measured on the steady state; an epoch's start may crowd the cores all the same, so
# for the whole run this class takes the errors of both loader-bound classes together
RUN_POOLED = {"loader bound on calm cores": ("loader bound on calm cores", "loader bound")}
DEV = ["pytorch-grid-%s" % c for c in "defghijklmnopqrstvw"]
CAL = ["pytorch-grid-u", "pytorch-grid-zc"]
MIN_ERRORS = 10


def _ends(errs, k):
    """The 5 % and 95 % quantiles of the errors' k-th measure (1 steady, 2 whole run)."""
    return np.quantile([x[k] for x in errs], [0.05, 0.95])


def class_table(errs, cal_errs=()):
    """Per class, from (class, steady error, whole-run error) of the development and the
    calibration runs: the table [(class, n, steady 5/95 %, run 5/95 %)], n the development
    count (a CAL_ONLY class's: its calibration count), and its Markdown lines."""
    table = []
    lines = ["| class | development | calibration | steady: 5 % | 95 % | whole run: 5 % | 95 % |",
             "|---|---|---|---|---|---|---|"]
    for c in CLASSES:
        e = [x for x in errs if x[0] == c]
        u = [x for x in cal_errs if x[0] == c]
        ne, nu = len(e), len(u)
        if nu < MIN_ERRORS and c != "baseline":  # too few of its own: every class's unseen errors
            u = [x for x in cal_errs if x[0] != "baseline"]
        if c in CAL_ONLY:  # its own calibration errors, the development runs' count as none
            e, u = u if nu >= MIN_ERRORS else [], []
        # the whole run's errors: the class's own, or those of the classes it pools with
        er, ur = e, u
        if c in RUN_POOLED:
            er = [x for x in errs if x[0] in RUN_POOLED[c]]
            ur = [x for x in cal_errs if x[0] in RUN_POOLED[c]]
        if len(e) >= MIN_ERRORS:
            s, r = _ends(e, 1), _ends(er, 2)
            if len(u) >= MIN_ERRORS:
                us = _ends(u, 1)
                s = [min(s[0], us[0]), max(s[1], us[1])]
            if len(ur) >= MIN_ERRORS:
                ue = _ends(ur, 2)
                r = [min(r[0], ue[0]), max(r[1], ue[1])]
        else:  # too few to say: no interval
            s = r = [0.0, 0.0]
        if c in CAL_ONLY:  # the size of the errors, not their sign: the larger end both ways
            s = [-max(-s[0], s[1]), max(-s[0], s[1])]
            r = [-max(-r[0], r[1]), max(-r[0], r[1])]
        n = len(e) if len(e) >= MIN_ERRORS else 0
        table.append((c, n, s, r))
        lines.append("| %s | %d | %d%s | %+.2f %% | %+.2f %% | %+.2f %% | %+.2f %% |"
                     % (c, ne, nu, "" if nu >= MIN_ERRORS or c in ("baseline",) + CAL_ONLY else " (all: %d)" % len(u),
                        100 * s[0], 100 * s[1], 100 * r[0], 100 * r[1]))
    return table, lines


def errors_of(stallsim, datasets, names, tmp):
    """(class, steady error, whole-run error) of every grid prediction of these datasets."""
    errs = []
    for d in names:
        folder = os.path.join(datasets, d)
        if os.path.isdir(folder):
            errs += [(c, es, er) for _, _, c, es, er in grid_predictions(stallsim, folder, tmp) if c]
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
    table, lines = class_table(errors_of(a.stallsim, a.datasets, DEV, tmp),
                               errors_of(a.stallsim, a.datasets, CAL, tmp))
    print("\n".join(lines))
    path = os.path.join(here, "sim", "models", "ss_pipeline_intervals.c")
    text = ("/* ss_pipeline_intervals.c - the pipeline model's error classes and their 90 % intervals.\n"
            " * Generated by scripts/validation/intervals.py from the development and calibration runs;\n"
            " * do not edit. */\n"
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
