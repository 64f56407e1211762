#!/usr/bin/python3
"""pytorch_epochs.py - a 4-rank workload whose read latency depends on the epoch (a page
cache that warms up), for stallsim (datasets/pytorch-epochs); written by a helper session
testing stallsim as a new user.

4-rank DDP (gloo, CPU, torch.set_num_threads(1) per process), 4 epochs x 30 batches per
rank, batch 8, DistributedSampler (set_epoch every epoch), non-persistent workers
(multiprocessing_context="fork"), prefetch factor 1 when --workers > 0.

Each sample: the dataset's read latency depends on the epoch, passed to the dataset by
its set_epoch() hook before each epoch (non-persistent workers are forked at the start of
every epoch, so they see it): epoch 0 ("cold") sleeps 6 ms x --latency-scale, later epochs
("warm", in the page cache) 2 ms x --latency-scale (x --slow-factor on --slow-rank); then
a little CPU work: the magnitude of a 64x64 numpy FFT of the sample's seeded image,
reduced to 64 features. The epoch the sample was read in goes with it and the loop checks it.

The training step emulates an accelerator: time.sleep(--step-ms, default 20 ms), then a
tiny MLP's forward/backward (64-32-4) with DDP's all-reduce, SGD.

The DataLoader is wrapped with scripts/stallsim_record.py (rec.set_epoch each epoch), so
each run writes PREFIX.rank<R>.csv and PREFIX.rank<R>.worker<W>.csv; import them with
    build/stallsim import pytorch PREFIX -o run.h5

Run (from the repository root; /usr/bin/python3 is Debian's python with torch):
    /usr/bin/python3 scripts/workloads/pytorch_epochs.py --workers 2 --out runs/base/run
    /usr/bin/python3 scripts/workloads/pytorch_epochs.py --workers 2 --latency-scale 0.5 --out runs/half/run
    /usr/bin/python3 scripts/workloads/pytorch_epochs.py --workers 2 --step-ms 10 --out runs/fast-step/run
    /usr/bin/python3 scripts/workloads/pytorch_epochs.py --workers 2 --slow-rank 3 --slow-factor 3 --out runs/slow3/run
A run takes about 10-20 s on 2 cores.
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

WORLD = 4
COLD_S = 0.006   # per-sample latency in epoch 0 at --latency-scale 1
WARM_S = 0.002   # per-sample latency in later epochs
SIDE = 64


class WarmingDataset(tud.Dataset):
    """n seeded 64x64 images; reading one sleeps a latency that depends on the epoch."""

    def __init__(self, n, scale):
        self.n = n
        self.scale = scale
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        time.sleep((COLD_S if self.epoch == 0 else WARM_S) * self.scale)  # emulated storage
        img = np.random.default_rng(i).standard_normal((SIDE, SIDE)).astype(np.float32)
        mag = np.abs(np.fft.fft2(img))                                      # emulated decoding
        feat = torch.from_numpy(np.log1p(mag).mean(axis=0).astype(np.float32))
        return feat, i % 4, self.epoch


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(SIDE, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def train(rank, a):
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore", message="This DataLoader will create")
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % a.port, rank=rank, world_size=WORLD)
    rec = stallsim_record.Recorder(a.out)  # after init_process_group (collective)
    scale = a.latency_scale * (a.slow_factor if rank == a.slow_rank else 1.0)
    ds = WarmingDataset(a.batches * a.batch * WORLD, scale)
    sampler = tud.distributed.DistributedSampler(ds, num_replicas=WORLD, rank=rank, shuffle=True, seed=5)
    extra = dict(prefetch_factor=1, persistent_workers=False, multiprocessing_context="fork") if a.workers > 0 else {}
    loader = tud.DataLoader(ds, batch_size=a.batch, sampler=sampler, num_workers=a.workers,
                            drop_last=True, **extra)
    loader = rec.wrap(loader)
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(MLP())
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    step_s = a.step_ms / 1000.0
    t0 = time.time()
    steps = 0
    for epoch in range(a.epochs):
        sampler.set_epoch(epoch)
        ds.set_epoch(epoch)     # the workers forked for this epoch see it
        rec.set_epoch(epoch)
        for x, y, e in loader:
            if int(e.min()) != epoch or int(e.max()) != epoch:
                raise RuntimeError("rank %d: batch of epoch %s in epoch %d" % (rank, e.tolist(), epoch))
            time.sleep(step_s)  # emulated accelerator
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()     # DDP all-reduce
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
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--latency-scale", type=float, default=1.0)
    p.add_argument("--step-ms", type=float, default=20.0)
    p.add_argument("--slow-rank", type=int, default=-1)
    p.add_argument("--slow-factor", type=float, default=1.0)
    p.add_argument("--out", required=True, help="record prefix (PREFIX.rank<R>.csv ...)")
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--batches", type=int, default=30, help="batches per epoch per rank")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--port", type=int, default=29871)
    a = p.parse_args()
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    mp.spawn(train, args=(a,), nprocs=WORLD, join=True)


if __name__ == "__main__":
    main()
