#!/usr/bin/python3
"""pytorch_sync.py - a small-file image-decoding workload for stallsim (datasets/pytorch-sync),
written by a helper session testing stallsim as a new user.

6-rank DDP (gloo, CPU, torch.set_num_threads(1) in every process; more ranks than the
machine's 2 cores) training a linear classifier, SGD, batch 8, drop_last=True,
DistributedSampler; when --workers > 0: persistent_workers=True, prefetch_factor 2, fork
workers (multiprocessing_context="fork").

Data: --files files of 16 KB of random bytes under --data (created once, seeded, on the
first run). Each sample: os.open/os.read of its file, then "decoding" with numpy:
np.frombuffer -> reshape (128, 128) -> float32 -> (x - mean) / std normalisation ->
4 x 4 average pooling to 32 x 32 -> 1024 features; label = file number % 10. Before the read,
an emulated storage latency: time.sleep(1 ms x --latency-scale [x --slow-factor on
--slow-rank]).

The DataLoader is recorded with scripts/stallsim_record.py (what a run writes and how to
import it: workload.py).

Run (from the repository root; /usr/bin/python3 is Debian's python with torch):
    /usr/bin/python3 scripts/workloads/pytorch_sync.py --workers 0 --out runs/w0/run
    /usr/bin/python3 scripts/workloads/pytorch_sync.py --workers 2 --out runs/w2/run
    /usr/bin/python3 scripts/workloads/pytorch_sync.py --workers 0 --latency-scale 0.5 --out runs/half0/run
    /usr/bin/python3 scripts/workloads/pytorch_sync.py --workers 0 --slow-rank 5 --slow-factor 3 --out runs/slow5/run
    /usr/bin/python3 scripts/workloads/pytorch_sync.py --bench-item     # time one sample's read+decode, then exit
"""
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.utils.data as tud

import workload as wl

WORLD = 6
FILE_BYTES = 16384          # 128 x 128 uint8
CLASSES = 10
LATENCY_S = 0.001           # emulated storage latency per sample at --latency-scale 1


def make_files(d, n, seed=11):
    """Create n files of FILE_BYTES random bytes once (skipped when they exist)."""
    os.makedirs(d, exist_ok=True)
    last = os.path.join(d, "f%05d.bin" % (n - 1))
    if os.path.exists(last) and os.path.getsize(last) == FILE_BYTES:
        return
    rng = np.random.default_rng(seed)
    for i in range(n):
        with open(os.path.join(d, "f%05d.bin" % i), "wb") as f:
            f.write(rng.integers(0, 256, FILE_BYTES, dtype=np.uint8).tobytes())


class FileDataset(tud.Dataset):
    def __init__(self, d, nfiles, length, latency):
        self.paths = [os.path.join(d, "f%05d.bin" % i) for i in range(nfiles)]
        self.length = length
        self.latency = latency

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        j = i % len(self.paths)
        if self.latency > 0:
            time.sleep(self.latency)                       # emulated storage latency
        fd = os.open(self.paths[j], os.O_RDONLY)
        try:
            buf = os.read(fd, FILE_BYTES)
        finally:
            os.close(fd)
        x = np.frombuffer(buf, dtype=np.uint8).reshape(128, 128).astype(np.float32)
        x = (x - x.mean()) / (x.std() + 1e-6)              # normalisation
        x = x.reshape(32, 4, 32, 4).mean(axis=(1, 3))      # 4x4 average pool -> 32 x 32
        return torch.from_numpy(np.ascontiguousarray(x).reshape(-1)), j % CLASSES


def train(rank, a):
    wl.join_spawned(rank, WORLD, a.port)
    rec = wl.recorder(a.out)  # after init_process_group (collective)
    latency = wl.slowed(LATENCY_S * a.latency_scale, rank, a.slow_rank, a.slow_factor)
    ds = FileDataset(a.data, a.files, a.batches * a.batch * WORLD, latency)
    sampler, loader = wl.sampled_loader(ds, rank, WORLD, 5, a.batch, a.workers,
                                        dict(persistent_workers=True, prefetch_factor=2,
                                             multiprocessing_context="fork"),
                                        rec=rec)
    model, opt = wl.ddp_model(lambda: nn.Linear(1024, CLASSES), 0, lr=0.05)
    t0 = wl.barrier_time()
    steps, loss = wl.run_epochs(a.epochs, sampler, rec, loader, model, opt)
    wl.finish(rank, steps, t0, loss, rec=rec)


def main():
    p = wl.options(argparse.ArgumentParser(description=__doc__.split("\n")[0]), workers=0, latency_scale=1.0,
                   slow_rank=-1, slow_factor=1.0, out=(None, wl.RECORD_PREFIX),
                   data=("/work/helper9/data", "folder of the sample files"), files=2000, batch=8,
                   batches=(30, wl.PER_RANK), epochs=2, port=29871,
                   bench_item=(False, "time __getitem__ (1000 samples) and exit"))
    a = p.parse_args()
    make_files(a.data, a.files)
    if a.bench_item:
        torch.set_num_threads(1)
        for lat in (LATENCY_S * a.latency_scale, 0.0):
            ds = FileDataset(a.data, a.files, 1000, lat)
            print("latency %.4f s: wall %.3f ms  cpu %.3f ms per sample"
                  % ((lat,) + wl.time_items(ds.__getitem__, 1000)))
        return
    wl.need_out(p, a)
    wl.spawn(train, a, WORLD)


if __name__ == "__main__":
    main()
