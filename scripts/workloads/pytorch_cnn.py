#!/usr/bin/python3
"""pytorch_cnn.py - a second real workload for stallsim's validation (datasets/pytorch-cnn): a small CNN on synthetic 3x32x32 images,
DDP (gloo, CPU), 2 ranks via torch.multiprocessing.spawn, map-style dataset whose
__getitem__ sleeps a seeded lognormal "storage latency" (mean ~2 ms x --latency-scale)
and then does real numpy augmentation work (~0.5-1 ms)."""
import argparse
import math
import os
import sys
import time
import warnings

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.utils.data as tud

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/: the recorder
import stallsim_record  # noqa: E402

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
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(a.port))
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore", message="This DataLoader will create")
    dist.init_process_group("gloo", rank=rank, world_size=a.world)
    rec = stallsim_record.Recorder(a.out)  # after init_process_group
    ds = SyntheticImages(a.batches * a.batch * a.world, a.latency_scale, a.aug_reps)
    sampler = tud.distributed.DistributedSampler(ds, num_replicas=a.world, rank=rank, shuffle=True, seed=7)
    kw = dict(persistent_workers=True) if a.workers > 0 else {}
    loader = tud.DataLoader(ds, batch_size=a.batch, sampler=sampler, num_workers=a.workers, drop_last=True, **kw)
    loader = rec.wrap(loader)
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(SmallCNN())
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    lossf = nn.CrossEntropyLoss()
    t0 = time.time()
    n = 0
    for epoch in range(a.epochs):
        sampler.set_epoch(epoch)
        rec.set_epoch(epoch)
        for x, y in loader:
            opt.zero_grad()
            loss = lossf(model(x), y)
            loss.backward()
            opt.step()
            n += 1
    dist.barrier()
    if rank == 0:
        el = time.time() - t0
        print("rank0: %d iterations in %.2f s (%.4f s/it), last loss %.3f" % (n, el, el / n, loss.item()))
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--latency-scale", type=float, default=1.0)
    p.add_argument("--out", required=True)
    p.add_argument("--world", type=int, default=2)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--batches", type=int, default=100, help="batches per epoch per rank")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--aug-reps", type=int, default=12)
    p.add_argument("--port", type=int, default=29611)
    p.add_argument("--bench-item", action="store_true", help="time __getitem__ and exit")
    a = p.parse_args()
    if a.bench_item:
        ds = SyntheticImages(2000, a.latency_scale, a.aug_reps)
        t = time.perf_counter(); c = time.process_time()
        for i in range(400):
            ds[i]
        print("per item: wall %.3f ms cpu %.3f ms" % ((time.perf_counter() - t) / 0.4, (time.process_time() - c) / 0.4))
        return
    d = os.path.dirname(os.path.abspath(a.out))
    os.makedirs(d, exist_ok=True)
    mp.spawn(worker, args=(a,), nprocs=a.world, join=True)


if __name__ == "__main__":
    main()
