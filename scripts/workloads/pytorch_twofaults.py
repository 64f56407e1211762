"""pytorch_twofaults.py - a new user's workload (datasets/pytorch-twofaults): a 4-rank DDP (gloo, CPU) job with two kinds of slow rank, recorded with stallsim_record.

Each sample: sleep(latency) (emulated storage read), then real CPU work in numpy
(`units` x [sort + rfft + abs-sum of 16384 float32], ~0.11 ms of CPU each), then a
64-float feature vector. Step: sleep(compute) (emulated accelerator) + a small MLP
forward/backward with the DDP all-reduce.

    /usr/bin/python3 scripts/workloads/pytorch_twofaults.py --nproc 4 --out runs/base/run --slow-storage 1:3.5 --slow-cpu 3:5
"""
import argparse
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.utils.data as tud

import workload as wl

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


def parse():
    return wl.options(argparse.ArgumentParser(), nproc=0, out=wl.REQUIRED, workers=2, prefetch=2, batch=8, batches=120,
                      epochs=2, latency=0.003, units=6, compute=0.018, slow_storage=([], "R:F"),
                      slow_cpu=([], "R:F")).parse_args()


def main():
    a = parse()
    rank, world = wl.launch_or_join(__file__, a.nproc)
    rec = wl.recorder(a.out)
    latency = a.latency * wl.per_rank(a.slow_storage, rank, 1.0)
    units = int(round(a.units * wl.per_rank(a.slow_cpu, rank, 1.0)))
    ds = SlowStore(a.batches * a.batch * world, latency, units)
    sampler, loader = wl.sampled_loader(ds, rank, world, 1, a.batch, a.workers,
                                        dict(prefetch_factor=a.prefetch, persistent_workers=True), rec=rec)
    model, opt = wl.ddp_model(MLP, 1, lr=0.01)
    t0 = wl.barrier_time()
    its = []
    wl.run_epochs(a.epochs, sampler, rec, loader, model, opt, accel=a.compute,  # emulated accelerator
                  times=its, skip=11)
    rec.close()
    dist.barrier()
    print("twofaults rank %d: latency %.4f units %d workers %d: %d x %d batches in %.1f s, loop mean iter (k>=11) %.4f s"
          % (rank, latency, units, a.workers, a.epochs, len(loader), time.time() - t0, float(np.mean(its))),
          file=sys.stderr)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
