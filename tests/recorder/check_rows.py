"""check_rows.py - does each row of an imported recording hold the fetch it should? Used by
tests/cli/cli_pytorch.sh on the recorder's cases: given which worker fetched the batch of each
row (from how PyTorch hands batches out: to its workers in turn, skipping those whose
iterator has run out), the row's fetch time must be that worker's fetch record's, exactly
(READY - START of its j-th record of the pass), whatever the machine's load did to the times."""
import h5py


def records(path, p):
    """(START, READY) of pass p's fetch records in one record file, in file order"""
    out = []
    for line in open(path):
        f = line.rstrip("\n").split(",")
        if f[0] == "fetch" and int(f[1]) == p:
            out.append((int(f[4]), int(f[5])))
    return out


def check(trace, prefix, rows, passes=2):
    """rows: per row of a pass, (worker, j): the worker's j-th fetch of the pass (worker -1:
    the rank file's, synchronous loading); the same for each of the passes"""
    t = h5py.File(trace, "r")["timeline"]
    ft = t["fetch_time"][:, 0]
    assert len(ft) == passes * len(rows), (trace, len(ft), rows)
    assert list(t["epoch"][:]) == [p for p in range(passes) for _ in rows], (trace, t["epoch"][:])
    assert (t["train_start"][:, 0] >= t["fetch_start"][:, 0] + ft - 1e-6).all(), trace
    for p in range(passes):
        for i, (w, j) in enumerate(rows):
            path = prefix + (".rank0.csv" if w < 0 else ".rank0.worker%d.csv" % w)
            s, r = records(path, p)[j]
            assert abs(ft[p * len(rows) + i] - 1e-9 * (r - s)) < 1e-12, (trace, p, i, w, j, ft[p * len(rows) + i])
