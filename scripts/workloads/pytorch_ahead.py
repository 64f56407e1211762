#!/usr/bin/python3
"""pytorch_ahead.py - a new user's DDP job (gloo, CPU) whose loaders keep ahead at its base
setting (datasets/pytorch-ahead): 3 ranks via torch.multiprocessing.spawn, each with its own
DataLoader over a DistributedSampler. Each sample waits a lognormal storage latency
(time.sleep, mean ~2 ms x --storage-scale, rank --slow-rank x --slow-factor more) and then
does ~0.3 ms of numpy work; the step is an MLP on 1 thread. Recorded with
scripts/stallsim_record.py when --out PREFIX is given (import with `stallsim import pytorch
PREFIX -o TRACE.h5`). Written by a helper session as a new user; see the dataset's README."""
import argparse
import math
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.utils.data as tud

import workload as wl

FEAT = 1024


class SlowStore(tud.Dataset):
    def __init__(self, n, mean_wait, sigma=0.5, seed=99):
        self.n, self.sigma, self.seed = n, sigma, seed
        self.mu = math.log(mean_wait) - sigma ** 2 / 2

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        rng = np.random.default_rng(self.seed * 7919 + i)
        time.sleep(rng.lognormal(self.mu, self.sigma))  # storage wait
        x = rng.standard_normal(FEAT).astype(np.float32)  # "decode" + light CPU work
        for _ in range(4):
            x = np.tanh(x * 1.01 + 0.1)
            x = np.sort(x)[::-1].copy()
        x = (x - x.mean()) / (x.std() + 1e-6)
        return torch.from_numpy(x), int(i % 10)


def make_model(hidden):
    return nn.Sequential(nn.Linear(FEAT, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                         nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 10))


def run_rank(rank, a):
    wl.join_spawned(rank, a.world, a.port)
    rec = wl.recorder(a.out)  # every rank, after init_process_group
    wait = wl.slowed(a.mean_wait * a.storage_scale, rank, a.slow_rank, a.slow_factor)
    ds = SlowStore(a.batches * a.batch * a.world, wait)
    sampler, loader = wl.sampled_loader(ds, rank, a.world, 3, a.batch, a.workers,
                                        dict(prefetch_factor=a.prefetch, persistent_workers=False), rec=rec)
    model, opt = wl.ddp_model(lambda: make_model(a.hidden), 0, lr=0.01, momentum=0.9)
    lossf = nn.CrossEntropyLoss()
    t0 = wl.barrier_time()
    n = 0
    for epoch in wl.epochs(a.epochs, sampler, rec):
        for x, y in loader:
            opt.zero_grad()
            for _ in range(a.reps):
                loss = lossf(model(x), y)
                loss.backward()
            opt.step()
            n += 1
    dist.barrier()
    rec.close()
    wl.report(rank, n, t0, loss, per="s/it wall incl. epoch starts")
    dist.destroy_process_group()


def main():
    p = wl.options(argparse.ArgumentParser(), out="", workers=4, prefetch=2, storage_scale=1.0, mean_wait=0.002,
                   slow_rank=-1, slow_factor=1.0, world=3, batch=8, batches=(70, wl.PER_RANK), epochs=3, hidden=384,
                   reps=(1, "forward+backward passes per step"), port=29731, bench_item=False, bench_step=False)
    a = p.parse_args()
    torch.set_num_threads(1)
    if a.bench_item:
        ds = SlowStore(4000, a.mean_wait)
        print("per item: wall %.3f ms cpu %.3f ms" % wl.time_items(ds.__getitem__, 400))
        return
    if a.bench_step:
        m = make_model(a.hidden); opt = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
        x = torch.randn(a.batch, FEAT); y = torch.randint(0, 10, (a.batch,))
        for k in range(60):
            if k == 10:
                t = time.perf_counter()
            opt.zero_grad()
            for _ in range(a.reps):
                nn.functional.cross_entropy(m(x), y).backward()
            opt.step()
        print("step (no allreduce): %.2f ms" % ((time.perf_counter() - t) / 50 * 1e3))
        return
    wl.spawn(run_rank, a, a.world)


if __name__ == "__main__":
    main()
