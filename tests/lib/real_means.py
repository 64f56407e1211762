"""real_means.py - the measured means the real-run checks of tests/validation/ compare
predictions with: a sweep's summary.csv as {scenario: mean iteration time}, and the mean
over committed real runs of `run`'s measured row (per iteration the slowest rank, past
each epoch's first `warmup` iterations)."""
import csv

import h5py
import numpy as np


def predicted(summary_csv):
    """{scenario name: iter_time_mean} of a sweep's summary.csv"""
    return {r["scenario"]: float(r["iter_time_mean"]) for r in csv.DictReader(open(summary_csv))}


def real(folder, names, warmup=11):
    """the mean over the traces folder/NAME.h5 of run's measured mean iteration time"""
    out = []
    for n in names:
        with h5py.File("%s/%s.h5" % (folder, n), "r") as f:
            it, idx = f["timeline/iteration_time"][()], f["timeline/index"][()]
        out.append(it[idx >= warmup].max(1).mean())
    return float(np.mean(out))
