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
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.utils.data as tud

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/: the recorder
import ddp_launch  # noqa: E402
import stallsim_record  # noqa: E402

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
    # a rank that torch.multiprocessing.spawn started joins its job as launch()'s ranks do
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(a.port), RANK=str(rank), WORLD_SIZE=str(a.world))
    ddp_launch.join()
    rec = stallsim_record.Recorder(a.out) if a.out else None  # every rank, after init_process_group
    wait = a.mean_wait * a.storage_scale * (a.slow_factor if rank == a.slow_rank else 1.0)
    ds = SlowStore(a.batches * a.batch * a.world, wait)
    sampler = tud.distributed.DistributedSampler(ds, num_replicas=a.world, rank=rank, shuffle=True, seed=3)
    kw = dict(prefetch_factor=a.prefetch, persistent_workers=False) if a.workers > 0 else {}
    loader = tud.DataLoader(ds, batch_size=a.batch, sampler=sampler, num_workers=a.workers, drop_last=True, **kw)
    if rec:
        loader = rec.wrap(loader)
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(make_model(a.hidden))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    lossf = nn.CrossEntropyLoss()
    dist.barrier()
    t0 = time.time()
    n = 0
    for epoch in range(a.epochs):
        sampler.set_epoch(epoch)
        if rec:
            rec.set_epoch(epoch)
        for x, y in loader:
            opt.zero_grad()
            for _ in range(a.reps):
                loss = lossf(model(x), y)
                loss.backward()
            opt.step()
            n += 1
    dist.barrier()
    if rec:
        rec.close()
    if rank == 0:
        el = time.time() - t0
        print("rank0: %d iterations in %.2f s (%.4f s/it wall incl. epoch starts), last loss %.3f"
              % (n, el, el / n, loss.item()), flush=True)
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default="")
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--prefetch", type=int, default=2)
    p.add_argument("--storage-scale", type=float, default=1.0)
    p.add_argument("--mean-wait", type=float, default=0.002)
    p.add_argument("--slow-rank", type=int, default=-1)
    p.add_argument("--slow-factor", type=float, default=1.0)
    p.add_argument("--world", type=int, default=3)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--batches", type=int, default=70, help="batches per epoch per rank")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--hidden", type=int, default=384)
    p.add_argument("--reps", type=int, default=1, help="forward+backward passes per step")
    p.add_argument("--port", type=int, default=29731)
    p.add_argument("--bench-item", action="store_true")
    p.add_argument("--bench-step", action="store_true")
    a = p.parse_args()
    torch.set_num_threads(1)
    if a.bench_item:
        ds = SlowStore(4000, a.mean_wait)
        t = time.perf_counter(); c = time.process_time()
        for i in range(400):
            ds[i]
        print("per item: wall %.3f ms cpu %.3f ms" % ((time.perf_counter() - t) / 0.4, (time.process_time() - c) / 0.4))
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
    if a.out:
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    mp.spawn(run_rank, args=(a,), nprocs=a.world, join=True)


if __name__ == "__main__":
    main()
