"""record_overhead.py - what stallsim_record costs per batch: iterates a DataLoader over an
in-memory dataset (no storage latency, a trivial step) with and without the recorder and
prints the extra time per batch, in the loop (num_workers=0: the fetch records are then
written by the training process too) and with 2 workers (the loop's share; the workers'
share is hidden behind the loop unless the loader is the bottleneck).

    /usr/bin/python3 scripts/validation/record_overhead.py [--batches 3000] [--repeats 5]
"""

import argparse
import os
import sys
import tempfile
import time

import torch
import torch.utils.data as tud

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # scripts/: the recorder
import stallsim_record  # noqa: E402


class Mem(tud.Dataset):
    def __init__(self, n):
        self.x = torch.randn(n, 16)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i]


def per_batch(loader, rec_prefix):
    if rec_prefix:
        rec = stallsim_record.Recorder(rec_prefix)
        loader = rec.wrap(loader)
    n = 0
    t = time.perf_counter()
    for _ in loader:
        n += 1
    dt = time.perf_counter() - t
    if rec_prefix:
        rec.close()
    return dt / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batches", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--batch", type=int, default=4)
    a = ap.parse_args()
    torch.set_num_threads(1)
    ds = Mem(a.batches * a.batch)
    with tempfile.TemporaryDirectory() as d:
        for w in (0, 2):
            kw = dict(num_workers=w, batch_size=a.batch)
            base, rec = [], []
            for r in range(a.repeats):  # interleaved, best of each
                base.append(per_batch(tud.DataLoader(ds, **kw), None))
                rec.append(per_batch(tud.DataLoader(ds, **kw), os.path.join(d, "r%d" % r)))
            b, c = min(base), min(rec)
            print("num_workers=%d, batch %d: %.1f us/batch without, %.1f us/batch with the recorder: "
                  "+%.1f us per batch (best of %d x %d batches)" % (w, a.batch, 1e6 * b, 1e6 * c, 1e6 * (c - b),
                                                                     a.repeats, a.batches))


if __name__ == "__main__":
    main()
