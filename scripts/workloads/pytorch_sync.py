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

The DataLoader is wrapped with scripts/stallsim_record.py, so each run writes
PREFIX.rank<R>.csv and PREFIX.rank<R>.worker<W>.csv; import them with
    build/stallsim import pytorch PREFIX -o run.h5

Run (from the repository root; /usr/bin/python3 is Debian's python with torch):
    /usr/bin/python3 scripts/workloads/pytorch_sync.py --workers 0 --out runs/w0/run
    /usr/bin/python3 scripts/workloads/pytorch_sync.py --workers 2 --out runs/w2/run
    /usr/bin/python3 scripts/workloads/pytorch_sync.py --workers 0 --latency-scale 0.5 --out runs/half0/run
    /usr/bin/python3 scripts/workloads/pytorch_sync.py --workers 0 --slow-rank 5 --slow-factor 3 --out runs/slow5/run
    /usr/bin/python3 scripts/workloads/pytorch_sync.py --bench-item     # time one sample's read+decode, then exit
"""
import argparse
import os
import sys
import time
import warnings

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data as tud

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/: the recorder
import stallsim_record  # noqa: E402

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
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore", message="This DataLoader will create")
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % a.port, rank=rank, world_size=WORLD)
    rec = stallsim_record.Recorder(a.out)  # after init_process_group (collective)
    latency = LATENCY_S * a.latency_scale * (a.slow_factor if rank == a.slow_rank else 1.0)
    ds = FileDataset(a.data, a.files, a.batches * a.batch * WORLD, latency)
    sampler = tud.distributed.DistributedSampler(ds, num_replicas=WORLD, rank=rank, shuffle=True, seed=5)
    extra = (dict(persistent_workers=True, prefetch_factor=2, multiprocessing_context="fork")
             if a.workers > 0 else {})
    loader = tud.DataLoader(ds, batch_size=a.batch, sampler=sampler, num_workers=a.workers,
                            drop_last=True, **extra)
    loader = rec.wrap(loader)
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(nn.Linear(1024, CLASSES))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    dist.barrier()
    t0 = time.time()
    steps = 0
    for epoch in range(a.epochs):
        sampler.set_epoch(epoch)
        rec.set_epoch(epoch)
        for x, y in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            steps += 1
    dist.barrier()
    if rank == 0:
        el = time.time() - t0
        print("rank0: %d iterations in %.2f s (%.4f s/it), last loss %.3f"
              % (steps, el, el / steps, loss.item()), flush=True)
    rec.close()
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--latency-scale", type=float, default=1.0)
    p.add_argument("--slow-rank", type=int, default=-1)
    p.add_argument("--slow-factor", type=float, default=1.0)
    p.add_argument("--out", help="record prefix (PREFIX.rank<R>.csv ...)")
    p.add_argument("--data", default="/work/helper9/data", help="folder of the sample files")
    p.add_argument("--files", type=int, default=2000)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--batches", type=int, default=30, help="batches per epoch per rank")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--port", type=int, default=29871)
    p.add_argument("--bench-item", action="store_true", help="time __getitem__ (1000 samples) and exit")
    a = p.parse_args()
    make_files(a.data, a.files)
    if a.bench_item:
        torch.set_num_threads(1)
        for lat in (LATENCY_S * a.latency_scale, 0.0):
            ds = FileDataset(a.data, a.files, 1000, lat)
            t, c = time.perf_counter(), time.process_time()
            for i in range(1000):
                ds[i]
            print("latency %.4f s: wall %.3f ms  cpu %.3f ms per sample"
                  % (lat, time.perf_counter() - t, time.process_time() - c))
        return
    if not a.out:
        p.error("--out is required")
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    mp.spawn(train, args=(a,), nprocs=WORLD, join=True)


if __name__ == "__main__":
    main()
