#!/usr/bin/python3
"""pytorch_bigbatch.py - a fourth real workload for stallsim's validation
(datasets/pytorch-bigbatch), written by a helper session testing stallsim as a new user:
4-rank DDP (gloo, CPU) training of a small CNN on synthetic 3x64x64 images, batch 64.

Each sample: sleep 1 ms x latency-scale (x slow-factor on slow-rank; emulated storage),
then real torch CPU work: random 64x64 crop of a 3x72x72 image, random horizontal flip,
per-channel normalisation. Recorded with scripts/stallsim_record.py.
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.utils.data as tud

import workload as wl

WORLD = 4
BATCH = 64
BATCHES = 40
EPOCHS = 2


class SynthImages(tud.Dataset):
    def __init__(self, n, delay_s, pool=256):
        g = torch.Generator().manual_seed(123)
        self.n = n
        self.delay = delay_s
        self.pool = torch.rand(pool, 3, 72, 72, generator=g)  # raw "stored" images
        self.labels = torch.randint(0, 10, (n,), generator=g)
        self.mean = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
        self.std = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.delay > 0:
            time.sleep(self.delay)  # emulated storage latency
        img = self.pool[i % self.pool.shape[0]]
        y0, x0 = torch.randint(0, 9, (2,)).tolist()
        x = img[:, y0:y0 + 64, x0:x0 + 64]
        if torch.rand(()) < 0.5:
            x = torch.flip(x, dims=[2])
        m = x.mean(dim=(1, 2), keepdim=True)
        s = x.std(dim=(1, 2), keepdim=True) + 1e-6
        x = ((x - m) / s) * self.std + self.mean
        return x.contiguous(), int(self.labels[i])


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)    # 32x32
        self.c2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)   # 16x16
        self.fc = nn.Linear(16 * 8 * 8, 10)

    def forward(self, x):
        x = torch.relu(self.c1(x))
        x = nn.functional.max_pool2d(torch.relu(self.c2(x)), 2)  # 8x8
        return self.fc(x.flatten(1))


def run(rank, a):
    wl.join_spawned(rank, WORLD, a.port)
    rec = wl.recorder(a.out)
    delay = wl.slowed(0.001 * a.latency_scale, rank, a.slow_rank, a.slow_factor)
    ds = SynthImages(WORLD * BATCHES * BATCH, delay)
    sampler, loader = wl.sampled_loader(ds, rank, WORLD, 1, BATCH, a.workers, dict(prefetch_factor=2), rec=rec)
    model, opt = wl.ddp_model(SmallCNN, 0, lr=0.01)
    t0 = time.time()
    n, loss = wl.run_epochs(EPOCHS, sampler, rec, loader, model, opt)
    wl.finish(rank, n, t0, loss, what="loss", rec=rec)


def main():
    p = wl.options(argparse.ArgumentParser(), workers=1, latency_scale=1.0, slow_rank=-1, slow_factor=1.0,
                   out=wl.REQUIRED, port=29533)
    wl.spawn(run, p.parse_args(), WORLD)


if __name__ == "__main__":
    main()
