"""pytorch_breakloop.py - a DDP (gloo, CPU) workload whose loop leaves every epoch early
(`if k == STEPS: break`, before training the batch it just got), with one rank's storage
slower; recorded with stallsim_record (datasets/pytorch-breakloop).

--accumulate N all-reduces only every N steps (gradient accumulation; scripts/workloads/pytorch_accum.py
runs it with N = 4 and whole epochs). Each sample sleeps --latency seconds (rank --slow-rank: --slow-factor times that) and is a
random 64-float vector; each step sleeps --compute seconds (the emulated accelerator) and
trains a linear layer with the DDP all-reduce. Batch 8, persistent workers.

    /usr/bin/python3 scripts/workloads/pytorch_breakloop.py --nproc 2 --workers 2 --out runs/w2/run
"""
import argparse
import contextlib
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, DistributedSampler

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import ddp_launch  # noqa: E402
import stallsim_record  # noqa: E402


class SlowSamples(Dataset):
    def __init__(self, n, latency):
        self.n, self.latency = n, latency

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        time.sleep(self.latency)
        return torch.randn(64), i % 5


def parse(doc=__doc__, steps=60, accumulate=1):
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--nproc", type=int, default=0, help="start this many ranks here (0: be one rank)")
    ap.add_argument("--out", required=True, help="record PREFIX")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--steps", type=int, default=steps, help="the loop leaves each epoch at this batch (0: never)")
    ap.add_argument("--accumulate", type=int, default=accumulate, help="all-reduce every this many steps")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--latency", type=float, default=0.004, help="seconds of storage latency per sample")
    ap.add_argument("--compute", type=float, default=0.010, help="seconds of emulated accelerator time per step")
    ap.add_argument("--slow-rank", type=int, default=1)
    ap.add_argument("--slow-factor", type=float, default=3.0)
    return ap.parse_args()


def main(a=None, script=__file__):
    a = a or parse()
    if a.nproc:
        return ddp_launch.launch(script, a.nproc)
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    rec = stallsim_record.Recorder(a.out)
    ds = SlowSamples(2000, a.latency * (a.slow_factor if rank == a.slow_rank else 1.0))
    sampler = DistributedSampler(ds)
    loader = rec.wrap(DataLoader(ds, batch_size=8, sampler=sampler, num_workers=a.workers,
                                 persistent_workers=a.workers > 0))
    model = nn.parallel.DistributedDataParallel(nn.Linear(64, 5))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(a.epochs):
        sampler.set_epoch(epoch)
        rec.set_epoch(epoch)
        for k, (x, y) in enumerate(loader):
            if a.steps and k == a.steps:
                break
            time.sleep(a.compute)
            sync = (k + 1) % a.accumulate == 0  # DDP's no_sync on the other steps: no all-reduce
            with contextlib.nullcontext() if sync else model.no_sync():
                nn.functional.cross_entropy(model(x), y).backward()
            if sync:
                opt.step()
                opt.zero_grad()
    rec.close()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
