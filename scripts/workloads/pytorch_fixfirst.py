"""pytorch_fixfirst.py - a new user's DDP (gloo, CPU) job asking "which rank should I fix
first, and what would 2 or 4 workers buy?" (datasets/pytorch-fixfirst; written by a helper
session as a new user, recorded with stallsim_record).

A map-style dataset: each sample sleeps `latency` s (emulated storage; rank `--slow-rank`'s
`--slow-factor` times longer), then a numpy FFT, mask and inverse FFT of a 32 x 32 array (a
little decoding); batch 16, a DistributedSampler; each step sleeps 15 ms (an emulated
accelerator) and then runs a tiny CNN's forward and backward under DDP.

  /usr/bin/python3 scripts/workloads/pytorch_fixfirst.py --nproc 4 --workers 1 --slow-rank 2 --out runs/base/run
"""
import argparse
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.utils.data as tud

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import ddp_launch  # noqa: E402
import stallsim_record  # noqa: E402


class Store(tud.Dataset):
    def __init__(self, n, latency):
        self.n, self.latency = n, latency

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        time.sleep(self.latency)  # emulated storage
        rng = np.random.default_rng(i)
        img = rng.standard_normal((32, 32)).astype(np.float32)
        spec = np.abs(np.fft.rfft2(img))  # a little decoding
        img = np.fft.irfft2(np.fft.rfft2(img) * (spec > spec.mean()), s=(32, 32)).astype(np.float32)
        return torch.from_numpy(img).unsqueeze(0), int(i % 10)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nproc", type=int, default=0, help="start this many ranks on this machine")
    ap.add_argument("--out", help="record PREFIX (no recording when absent)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--latency", type=float, default=0.003, help="seconds of storage per sample")
    ap.add_argument("--slow-rank", type=int, default=-1)
    ap.add_argument("--slow-factor", type=float, default=2.5)
    ap.add_argument("--batches", type=int, default=120, help="batches per epoch per rank")
    ap.add_argument("--epochs", type=int, default=2)
    a = ap.parse_args()
    if a.nproc:
        return ddp_launch.launch(__file__, a.nproc)
    rank, world = ddp_launch.join()
    rec = stallsim_record.Recorder(a.out) if a.out else None
    lat = a.latency * (a.slow_factor if rank == a.slow_rank else 1.0)
    ds = Store(a.batches * 16 * world, lat)
    sampler = tud.distributed.DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, seed=0)
    loader = tud.DataLoader(ds, batch_size=16, sampler=sampler, num_workers=a.workers, drop_last=True)
    if rec:
        loader = rec.wrap(loader)
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                        nn.Flatten(), nn.Linear(16, 10))
    model = nn.parallel.DistributedDataParallel(net)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    lossf = nn.CrossEntropyLoss()
    t0, n = time.time(), 0
    for ep in range(a.epochs):
        sampler.set_epoch(ep)
        if rec:
            rec.set_epoch(ep)
        for x, y in loader:
            time.sleep(0.015)  # the emulated accelerator
            opt.zero_grad()
            lossf(model(x), y).backward()
            opt.step()
            n += 1
    if rec:
        rec.close()
    dist.barrier()
    if rank == 0:
        print("pytorch_fixfirst: %d ranks, %d workers, slow rank %d: %d steps in %.2f s" %
              (world, a.workers, a.slow_rank, n, time.time() - t0), file=sys.stderr)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
