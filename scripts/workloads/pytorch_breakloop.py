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
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.utils.data import Dataset

import workload as wl


class SlowSamples(Dataset):
    def __init__(self, n, latency):
        self.n, self.latency = n, latency

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        time.sleep(self.latency)
        return torch.randn(64), i % 5


def parse(doc=__doc__, steps=60, accumulate=1):
    return wl.options(argparse.ArgumentParser(description=doc.split("\n")[0]),
                      nproc=(0, "start this many ranks here (0: be one rank)"), out=(wl.REQUIRED, "record PREFIX"),
                      workers=2, steps=(steps, "the loop leaves each epoch at this batch (0: never)"),
                      accumulate=(accumulate, "all-reduce every this many steps"), epochs=2,
                      latency=(0.004, "seconds of storage latency per sample"),
                      compute=(0.010, "seconds of emulated accelerator time per step"), slow_rank=1,
                      slow_factor=3.0).parse_args()


def main(a=None, script=__file__):
    a = a or parse()
    if a.nproc:
        return wl.ddp_launch.launch(script, a.nproc)
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    rec = wl.recorder(a.out)
    ds = SlowSamples(2000, wl.slowed(a.latency, rank, a.slow_rank, a.slow_factor))
    sampler, loader = wl.sampled_loader(ds, rank, world, 0, 8, a.workers, dict(persistent_workers=True),
                                        drop_last=False, rec=rec)
    model = nn.parallel.DistributedDataParallel(nn.Linear(64, 5))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in wl.epochs(a.epochs, sampler, rec):
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
