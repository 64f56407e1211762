#!/usr/bin/python3
"""pytorch_tail.py - a heavy-tailed storage-latency workload for stallsim (datasets/pytorch-tail),
written by a helper session testing stallsim as a new user.

3-rank DDP (gloo, CPU, torch.set_num_threads(1) in every process, started with
torch.multiprocessing.spawn) MLP classifier on 1024-dim inputs (1024 -> 256 -> 256 -> 10, ReLU;
--hidden/--layers change it), SGD with momentum, batch 16, DistributedSampler (shuffled, seed 5),
drop_last=False with a per-rank share that is not a multiple of the batch (793 samples per rank:
49 batches of 16 and a short one of 9 each epoch, 50 batches), pin_memory=False,
persistent_workers=False, default prefetch factor (2), 2 epochs. The loader's workers are
forked (multiprocessing_context="fork"): under mp.spawn the default would be "spawn", and
re-importing torch in 3 x W workers at every epoch took ~6 s per epoch on 2 cores.

Each sample's __getitem__ emulates a storage read with a heavy tail: it sleeps a lognormal
latency (median 1 ms x --latency-scale, sigma 0.5), or, with probability 2 %, a slow read of
15 ms x --latency-scale instead; both are drawn from a numpy generator seeded by (2024, index),
so a given sample is always fast or always slow, in every run. On --slow-rank the latency is
multiplied by --slow-factor. Then a little numpy work: a 32x32 float32 array (from the same
generator) normalised to zero mean and unit variance, flattened to 1024 values (~0.1 ms CPU).

On a 2-core machine the step (forward, backward with DDP's all-reduce, SGD: ~8 ms of CPU per
rank) bounds the run with 2 or more workers per rank (~0.021 s per iteration, the cores ~80 %
busy), the loader with 0 or 1 worker (~0.043 and ~0.030 s per iteration).

The DataLoader is recorded with scripts/stallsim_record.py (what a run writes and how to
import it: workload.py).

Run (from the repository root; /usr/bin/python3 is Debian's python with torch; run one job at a
time on an otherwise idle machine, each takes under 15 s):
    /usr/bin/python3 scripts/workloads/pytorch_tail.py --workers 1 --latency-scale 1 --out runs/base/run
    /usr/bin/python3 scripts/workloads/pytorch_tail.py --workers 2 --latency-scale 0.5 --out runs/w2-half/run
    /usr/bin/python3 scripts/workloads/pytorch_tail.py --workers 1 --slow-rank 2 --slow-factor 3 --out runs/slow2/run
    build/stallsim import pytorch runs/base/run -o base.h5
    /usr/bin/python3 scripts/workloads/pytorch_tail.py --bench       # time __getitem__ and one step, then exit
Rank 0 prints the wall time per iteration over both epochs (worker start-up included; the
trace's measured row leaves each epoch's first 11 iterations out).
"""
import argparse
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data as tud

import workload as wl

WORLD = 3
MEDIAN_S = 0.001        # median of the lognormal latency at --latency-scale 1
SIGMA = 0.5             # lognormal shape
SLOW_P = 0.02           # probability of a slow read
SLOW_S = 0.015          # a slow read's latency at --latency-scale 1
CLASSES = 10
DIM = 1024
HIDDEN = 256
LAYERS = 2            # hidden layers
PER_RANK = 793          # samples per rank and epoch: 49 batches of 16 and one of 9


class TailDataset(tud.Dataset):
    """n samples; latency and data are drawn from a generator seeded by (seed, index)."""

    def __init__(self, n, scale, seed=2024):
        self.n, self.scale, self.seed = n, scale, seed

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        rng = np.random.default_rng((self.seed, i))
        if rng.random() < SLOW_P:
            lat = SLOW_S
        else:
            lat = MEDIAN_S * float(np.exp(SIGMA * rng.standard_normal()))
        time.sleep(lat * self.scale)  # emulated storage read
        x = rng.standard_normal((32, 32), dtype=np.float32) * 3.0 + float(i % 7)
        x = (x - x.mean()) / (x.std() + 1e-6)
        label = int(i % CLASSES)
        return torch.from_numpy(x.reshape(DIM)), label


def make_model(hidden=HIDDEN, layers=LAYERS):
    mods = [nn.Linear(DIM, hidden), nn.ReLU()]
    for _ in range(layers - 1):
        mods += [nn.Linear(hidden, hidden), nn.ReLU()]
    return nn.Sequential(*mods, nn.Linear(hidden, CLASSES))


def train(rank, a):
    wl.join_spawned(rank, WORLD, a.port)
    rec = wl.recorder(a.out)  # after init_process_group (collective)
    scale = wl.slowed(a.latency_scale, rank, a.slow_rank, a.slow_factor)
    ds = TailDataset(PER_RANK * WORLD, scale)
    sampler, loader = wl.sampled_loader(ds, rank, WORLD, 5, a.batch, a.workers, dict(multiprocessing_context="fork"),
                                        drop_last=False, rec=rec)
    model, opt = wl.ddp_model(lambda: make_model(a.hidden, a.layers), 0, lr=0.05, momentum=0.9)
    t0 = wl.barrier_time()
    steps, loss = wl.run_epochs(a.epochs, sampler, rec, loader, model, opt)
    dist.barrier()
    rec.close()
    wl.report(rank, steps, t0, loss)
    dist.destroy_process_group()


def bench(a):
    torch.set_num_threads(1)
    ds = TailDataset(PER_RANK * WORLD, a.latency_scale)
    print("__getitem__: wall %.3f ms, cpu %.3f ms per sample" % wl.time_items(ds.__getitem__, 800))
    model = make_model(a.hidden, a.layers)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = torch.randn(a.batch, DIM), torch.randint(0, CLASSES, (a.batch,))
    for _ in range(5):
        opt.zero_grad(); F.cross_entropy(model(x), y).backward(); opt.step()
    t = time.perf_counter()
    for _ in range(100):
        opt.zero_grad(); F.cross_entropy(model(x), y).backward(); opt.step()
    print("step (no all-reduce, alone): %.3f ms" % ((time.perf_counter() - t) * 10))


def main():
    p = wl.options(argparse.ArgumentParser(description=__doc__.split("\n")[0]), workers=1, latency_scale=1.0,
                   slow_rank=-1, slow_factor=1.0, out=(None, wl.RECORD_PREFIX), batch=16,
                   hidden=(HIDDEN, "hidden units per layer"), layers=(LAYERS, "hidden layers"), epochs=2, port=29871,
                   bench=(False, "time __getitem__ and one step, then exit"))
    wl.spawn_or_bench(p, train, WORLD, bench)


if __name__ == "__main__":
    main()
