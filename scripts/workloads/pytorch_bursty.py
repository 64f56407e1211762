"""pytorch_bursty.py - a new user's workload (datasets/pytorch-bursty): a 4-rank DDP (gloo, CPU) job whose dataset has bursty storage latency
(most samples ~1 ms, a random ~5 % of them 30-60 ms: a slow object store), recorded
with stallsim_record.

    /usr/bin/python3 scripts/workloads/pytorch_bursty.py --nproc 4 --workers 2 --prefetch 2 --out runs/w2p2/run
"""
import argparse
import os
import random
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.utils.data as tud

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/: the recorder
import ddp_launch  # noqa: E402
import stallsim_record  # noqa: E402

FEATURES = 32


class BurstyStore(tud.Dataset):
    """Sample i: sleeps `fast` s, or with probability `p_slow` (fixed per index, so every
    run reads the same latencies) a uniform 30-60 ms; then builds a tiny tensor."""

    def __init__(self, n, fast=0.001, p_slow=0.05, lo=0.030, hi=0.060, seed=7):
        self.n = n
        rng = random.Random(seed)
        self.lat = [rng.uniform(lo, hi) if rng.random() < p_slow else fast for _ in range(n)]

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        time.sleep(self.lat[i])
        x = torch.arange(FEATURES, dtype=torch.float32) * 0.01 + i * 0.001
        return x, torch.tensor(i % 10)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nproc", type=int, default=0)
    ap.add_argument("--out", required=True)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--prefetch", type=int, default=2)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--compute", type=float, default=0.020)
    ap.add_argument("--lat-seed", type=int, default=7, help="seed of which samples are slow (7: set A)")
    a = ap.parse_args()
    if a.nproc:
        return ddp_launch.launch(__file__, a.nproc)
    rank, world = ddp_launch.join()
    rec = stallsim_record.Recorder(a.out)
    ds = BurstyStore(a.iterations * a.batch * world, seed=a.lat_seed)
    sampler = tud.distributed.DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, seed=1)
    loader = tud.DataLoader(ds, batch_size=a.batch, sampler=sampler, num_workers=a.workers,
                            prefetch_factor=a.prefetch, persistent_workers=True, drop_last=True)
    loader = rec.wrap(loader)
    torch.manual_seed(1)
    model = nn.parallel.DistributedDataParallel(nn.Linear(FEATURES, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    lossf = nn.CrossEntropyLoss()
    t0 = time.time()
    for epoch in range(a.epochs):
        sampler.set_epoch(epoch)
        rec.set_epoch(epoch)
        for x, y in loader:
            time.sleep(a.compute)  # emulated accelerator
            opt.zero_grad()
            lossf(model(x), y).backward()  # all-reduce syncs the ranks
            opt.step()
    rec.close()
    if rank == 0:
        print("rank0 wall %.2f s" % (time.time() - t0), flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
