"""pytorch_accum.py - a DDP (gloo, CPU) workload with gradient accumulation: the ranks
all-reduce only every --accumulate steps (DDP's no_sync in between), one rank's storage
slower; recorded with stallsim_record (datasets/pytorch-accum). Both of stallsim's models
assume an all-reduce at every step: this workload shows what happens when there is none.

The samples and the step are pytorch_breakloop.py's (a wait per sample, a wait per step,
a linear layer), batch 8, persistent workers, whole epochs.

    /usr/bin/python3 scripts/pytorch_accum.py --nproc 2 --workers 2 --out runs/acc/run
"""
import argparse
import contextlib
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.utils.data import DataLoader, DistributedSampler

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ddp_launch  # noqa: E402
import stallsim_record  # noqa: E402
from pytorch_breakloop import SlowSamples  # noqa: E402


def parse():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nproc", type=int, default=0, help="start this many ranks here (0: be one rank)")
    ap.add_argument("--out", required=True, help="record PREFIX")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--accumulate", type=int, default=4, help="all-reduce every this many steps")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--latency", type=float, default=0.004, help="seconds of storage latency per sample")
    ap.add_argument("--compute", type=float, default=0.010, help="seconds of emulated accelerator time per step")
    ap.add_argument("--slow-rank", type=int, default=1)
    ap.add_argument("--slow-factor", type=float, default=3.0)
    return ap.parse_args()


def main():
    a = parse()
    if a.nproc:
        return ddp_launch.launch(__file__, a.nproc)
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
            time.sleep(a.compute)
            sync = (k + 1) % a.accumulate == 0
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
