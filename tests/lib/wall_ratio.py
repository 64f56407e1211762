"""wall_ratio.py - the whole run's wall ratio of a trace, recomputed here from its timeline
(sim/models/MODELS-pipeline.md, "The rows in wall time"), for the tests' hand checks."""
import numpy as np


def epochs(ep):
    """Each epoch's first and last row."""
    first = [i for i in range(len(ep)) if i == 0 or ep[i] != ep[i - 1]]
    return first, [i - 1 for i in first[1:]] + [len(ep) - 1]


def span(ep, ts, st, it):
    """The passes' wall time P: per epoch, the last GPU's end of its last row less its
    earliest first ask, or less the epoch before's end where that is later; summed."""
    ask = ts - st
    first, last = epochs(ep)
    total, end = 0.0, None
    for a, z in zip(first, last):
        start = ask[a].min() if end is None else max(ask[a].min(), end)
        end = (ask[z] + it[z]).max()
        total += end - start
    return total


def chains(ep, ts, st, it):
    """Each pass's first two rows and the trace's last two: the second asks where the first's
    iterations end, on every GPU, to within a microsecond."""
    ask = ts - st
    first, last = epochs(ep)
    pairs = [(a, a + 1) for a, z in zip(first, last) if z > a]
    if last[-1] > first[-1]:
        pairs.append((len(ep) - 2, len(ep) - 1))
    return all(np.all(np.abs(ask[j] - (ask[i] + it[i])) <= 1e-6) for i, j in pairs)


def wall_ratio(ep, ts, st, it):
    """rho = P / R, R the rows' longest iterations summed; 1 where the asks do not chain or
    P is not below R."""
    rows = float(it.max(axis=1).sum())
    p = span(ep, ts, st, it)
    return p / rows if chains(ep, ts, st, it) and rows > 0 and 0 < p < rows else 1.0
