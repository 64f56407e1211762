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

The DataLoader is recorded with scripts/stallsim_record.py (rec.set_epoch each epoch; what a
run writes and how to import it: workload.py).

Run (from the repository root; /usr/bin/python3 is Debian's python with torch):
    /usr/bin/python3 scripts/workloads/pytorch_epochs.py --workers 2 --out runs/base/run
    /usr/bin/python3 scripts/workloads/pytorch_epochs.py --workers 2 --latency-scale 0.5 --out runs/half/run
    /usr/bin/python3 scripts/workloads/pytorch_epochs.py --workers 2 --step-ms 10 --out runs/fast-step/run
    /usr/bin/python3 scripts/workloads/pytorch_epochs.py --workers 2 --slow-rank 3 --slow-factor 3 --out runs/slow3/run
A run takes about 10-20 s on 2 cores.
"""
import argparse
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data as tud

import workload as wl

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
    wl.join_spawned(rank, WORLD, a.port)
    rec = wl.recorder(a.out)  # after init_process_group (collective)
    scale = wl.slowed(a.latency_scale, rank, a.slow_rank, a.slow_factor)
    ds = WarmingDataset(a.batches * a.batch * WORLD, scale)
    sampler, loader = wl.sampled_loader(ds, rank, WORLD, 5, a.batch, a.workers,
                                        dict(prefetch_factor=1, persistent_workers=False,
                                             multiprocessing_context="fork"),
                                        rec=rec)
    model, opt = wl.ddp_model(MLP, 0, lr=0.05)
    step_s = a.step_ms / 1000.0
    t0 = time.time()
    steps = 0
    for epoch in wl.epochs(a.epochs, sampler, rec):
        ds.set_epoch(epoch)     # the workers forked for this epoch see it
        for x, y, e in loader:
            if int(e.min()) != epoch or int(e.max()) != epoch:
                raise RuntimeError("rank %d: batch of epoch %s in epoch %d" % (rank, e.tolist(), epoch))
            time.sleep(step_s)  # emulated accelerator
            loss = wl.train_step(model, opt, x, y)  # DDP all-reduce
            steps += 1
    wl.finish(rank, steps, t0, loss, rec=rec)


def main():
    p = wl.options(argparse.ArgumentParser(description=__doc__.split("\n")[0]), workers=2, latency_scale=1.0,
                   step_ms=20.0, slow_rank=-1, slow_factor=1.0, out=(wl.REQUIRED, wl.RECORD_PREFIX), batch=8,
                   batches=(30, wl.PER_RANK), epochs=4, port=29871)
    wl.spawn(train, p.parse_args(), WORLD)


if __name__ == "__main__":
    main()
