#!/usr/bin/python3
"""pytorch_bigbatch.py - a fourth real workload for stallsim's validation
(datasets/pytorch-bigbatch), written by a helper session testing stallsim as a new user:
4-rank DDP (gloo, CPU) training of a small CNN on synthetic 3x64x64 images, batch 64.

Each sample: sleep 1 ms x latency-scale (x slow-factor on slow-rank; emulated storage),
then real torch CPU work: random 64x64 crop of a 3x72x72 image, random horizontal flip,
per-channel normalisation. Recorded with scripts/stallsim_record.py.
"""
import argparse
import os
import sys
import time
import warnings

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.utils.data as tud

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/: the recorder
import stallsim_record  # noqa: E402

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
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(a.port))
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore", message="This DataLoader will create")
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)
    rec = stallsim_record.Recorder(a.out)
    delay = 0.001 * a.latency_scale * (a.slow_factor if rank == a.slow_rank else 1.0)
    ds = SynthImages(WORLD * BATCHES * BATCH, delay)
    sampler = tud.distributed.DistributedSampler(ds, num_replicas=WORLD, rank=rank, shuffle=True, seed=1)
    kw = dict(prefetch_factor=2) if a.workers > 0 else {}
    loader = tud.DataLoader(ds, batch_size=BATCH, sampler=sampler, num_workers=a.workers,
                            drop_last=True, persistent_workers=False, **kw)
    loader = rec.wrap(loader)
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(SmallCNN())
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    lossf = nn.CrossEntropyLoss()
    t0 = time.time()
    n = 0
    for epoch in range(EPOCHS):
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
        print("rank0: %d iterations in %.2f s (%.4f s/it), loss %.3f" % (n, el, el / n, loss.item()), flush=True)
    rec.close() if hasattr(rec, "close") else None
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--latency-scale", type=float, default=1.0)
    p.add_argument("--slow-rank", type=int, default=-1)
    p.add_argument("--slow-factor", type=float, default=1.0)
    p.add_argument("--out", required=True)
    p.add_argument("--port", type=int, default=29533)
    a = p.parse_args()
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    mp.spawn(run, args=(a,), nprocs=WORLD, join=True)


if __name__ == "__main__":
    main()
