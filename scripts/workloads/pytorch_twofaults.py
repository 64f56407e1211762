"""pytorch_twofaults.py - a new user's workload (datasets/pytorch-twofaults): a 4-rank DDP (gloo, CPU) job with two kinds of slow rank, recorded with stallsim_record.

Each sample: sleep(latency) (emulated storage read), then real CPU work in numpy
(`units` x [sort + rfft + abs-sum of 16384 float32], ~0.11 ms of CPU each), then a
64-float feature vector. Step: sleep(compute) (emulated accelerator) + a small MLP
forward/backward with the DDP all-reduce.

    /usr/bin/python3 scripts/workloads/pytorch_twofaults.py --nproc 4 --out runs/base/run --slow-storage 1:3.5 --slow-cpu 3:5
"""
import argparse
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.utils.data as tud

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/: the recorder
import ddp_launch  # noqa: E402
import stallsim_record  # noqa: E402

FEAT = 64
N = 16384


class SlowStore(tud.Dataset):
    def __init__(self, length, latency, units, seed=0):
        self.length, self.latency, self.units = length, latency, units
        rng = np.random.default_rng(seed)
        self.base = rng.random(N).astype(np.float32)

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        time.sleep(self.latency)  # emulated storage read
        x = np.roll(self.base, i % 997)
        acc = 0.0
        for _ in range(self.units):  # emulated decode / preprocessing (real CPU)
            y = np.sort(x)
            z = np.abs(np.fft.rfft(y))
            acc += float(z[:8].sum())
        feat = z[:FEAT].astype(np.float32) / (1.0 + acc)
        return torch.from_numpy(feat), i % 10


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.f = nn.Sequential(nn.Linear(FEAT, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))

    def forward(self, x):
        return self.f(x)


def spec(vals, rank):
    f = 1.0
    for s in vals:
        r, v = s.split(":")
        if int(r) == rank:
            f = float(v)
    return f


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nproc", type=int, default=0)
    ap.add_argument("--out", required=True)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--prefetch", type=int, default=2)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--batches", type=int, default=120)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--latency", type=float, default=0.003)
    ap.add_argument("--units", type=int, default=6)
    ap.add_argument("--compute", type=float, default=0.018)
    ap.add_argument("--slow-storage", action="append", default=[], help="R:F")
    ap.add_argument("--slow-cpu", action="append", default=[], help="R:F")
    return ap.parse_args()


def main():
    a = parse()
    if a.nproc:
        return ddp_launch.launch(__file__, a.nproc)
    rank, world = ddp_launch.join()
    rec = stallsim_record.Recorder(a.out)
    latency = a.latency * spec(a.slow_storage, rank)
    units = int(round(a.units * spec(a.slow_cpu, rank)))
    ds = SlowStore(a.batches * a.batch * world, latency, units)
    sampler = tud.distributed.DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, seed=1)
    kw = dict(prefetch_factor=a.prefetch, persistent_workers=True) if a.workers > 0 else {}
    loader = tud.DataLoader(ds, batch_size=a.batch, sampler=sampler, num_workers=a.workers, drop_last=True, **kw)
    loader = rec.wrap(loader)
    torch.manual_seed(1)
    model = nn.parallel.DistributedDataParallel(MLP())
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    lossf = nn.CrossEntropyLoss()
    dist.barrier()
    t0 = time.time()
    its = []
    for epoch in range(a.epochs):
        sampler.set_epoch(epoch)
        rec.set_epoch(epoch)
        last = time.perf_counter()
        for k, (x, y) in enumerate(loader):
            time.sleep(a.compute)  # emulated accelerator
            opt.zero_grad()
            lossf(model(x), y).backward()
            opt.step()
            now = time.perf_counter()
            if k >= 11:
                its.append(now - last)
            last = now
    rec.close()
    dist.barrier()
    print("twofaults rank %d: latency %.4f units %d workers %d: %d x %d batches in %.1f s, loop mean iter (k>=11) %.4f s"
          % (rank, latency, units, a.workers, a.epochs, len(loader), time.time() - t0, float(np.mean(its))),
          file=sys.stderr)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
