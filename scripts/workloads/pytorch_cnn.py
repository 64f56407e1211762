#!/usr/bin/python3
"""pytorch_cnn.py - a second real workload for stallsim's validation (datasets/pytorch-cnn): a small CNN on synthetic 3x32x32 images,
DDP (gloo, CPU), 2 ranks via torch.multiprocessing.spawn, map-style dataset whose
__getitem__ sleeps a seeded lognormal "storage latency" (mean ~2 ms x --latency-scale)
and then does real numpy augmentation work (~0.5-1 ms)."""
import argparse
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.utils.data as tud

import workload as wl

SIGMA = 0.6
MEAN_LAT = 0.002  # 2 ms mean storage latency at scale 1


class SyntheticImages(tud.Dataset):
    def __init__(self, n, latency_scale, aug_reps, seed=1234):
        self.n, self.scale, self.reps, self.seed = n, latency_scale, aug_reps, seed
        self.mu = math.log(MEAN_LAT) - SIGMA ** 2 / 2

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        rng = np.random.default_rng(self.seed * 1_000_003 + i)
        time.sleep(self.scale * rng.lognormal(self.mu, SIGMA))  # storage latency
        img = rng.standard_normal((3, 40, 40)).astype(np.float32)  # "decoded" raw image
        # real CPU work: random crop, flip, repeated 3x3 box blur, per-channel normalise
        y0, x0 = rng.integers(0, 9, size=2)
        img = img[:, y0:y0 + 32, x0:x0 + 32]
        if rng.random() < 0.5:
            img = img[:, :, ::-1]
        img = np.ascontiguousarray(img)
        for _ in range(self.reps):
            p = np.pad(img, ((0, 0), (1, 1), (1, 1)), mode="edge")
            img = (p[:, :-2, :-2] + p[:, :-2, 1:-1] + p[:, :-2, 2:] + p[:, 1:-1, :-2] + p[:, 1:-1, 1:-1]
                   + p[:, 1:-1, 2:] + p[:, 2:, :-2] + p[:, 2:, 1:-1] + p[:, 2:, 2:]) / 9.0
        m = img.mean(axis=(1, 2), keepdims=True)
        s = img.std(axis=(1, 2), keepdims=True) + 1e-6
        img = (img - m) / s
        label = int(i % 10)
        return torch.from_numpy(img.astype(np.float32)), label


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 8 * 8, 10)

    def forward(self, x):
        x = nn.functional.max_pool2d(torch.relu(self.c1(x)), 2)
        x = nn.functional.max_pool2d(torch.relu(self.c2(x)), 2)
        return self.fc(x.flatten(1))


def worker(rank, a):
    wl.join_spawned(rank, a.world, a.port)
    rec = wl.recorder(a.out)  # after init_process_group
    ds = SyntheticImages(a.batches * a.batch * a.world, a.latency_scale, a.aug_reps)
    sampler, loader = wl.sampled_loader(ds, rank, a.world, 7, a.batch, a.workers, dict(persistent_workers=True),
                                        rec=rec)
    model, opt = wl.ddp_model(SmallCNN, 0, lr=0.01, momentum=0.9)
    t0 = time.time()
    n, loss = wl.run_epochs(a.epochs, sampler, rec, loader, model, opt)
    wl.finish(rank, n, t0, loss, flush=False)


def main():
    p = wl.options(argparse.ArgumentParser(), workers=1, latency_scale=1.0, out=wl.REQUIRED, world=2, batch=16,
                   batches=(100, wl.PER_RANK), epochs=2, aug_reps=12, port=29611,
                   bench_item=(False, "time __getitem__ and exit"))
    a = p.parse_args()
    if a.bench_item:
        ds = SyntheticImages(2000, a.latency_scale, a.aug_reps)
        print("per item: wall %.3f ms cpu %.3f ms" % wl.time_items(ds.__getitem__, 400))
        return
    wl.spawn(worker, a, a.world)


if __name__ == "__main__":
    main()
