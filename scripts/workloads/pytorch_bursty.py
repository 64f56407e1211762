"""pytorch_bursty.py - a new user's workload (datasets/pytorch-bursty): a 4-rank DDP (gloo, CPU) job whose dataset has bursty storage latency
(most samples ~1 ms, a random ~5 % of them 30-60 ms: a slow object store), recorded
with stallsim_record.

    /usr/bin/python3 scripts/workloads/pytorch_bursty.py --nproc 4 --workers 2 --prefetch 2 --out runs/w2p2/run
"""
import argparse
import random
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.utils.data as tud

import workload as wl

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
    ap = wl.options(argparse.ArgumentParser(), nproc=0, out=wl.REQUIRED, workers=2, prefetch=2, batch=8,
                    iterations=100, epochs=2, compute=0.020, lat_seed=(7, "seed of which samples are slow (7: set A)"))
    a = ap.parse_args()
    rank, world = wl.launch_or_join(__file__, a.nproc)
    rec = wl.recorder(a.out)
    ds = BurstyStore(a.iterations * a.batch * world, seed=a.lat_seed)
    sampler, loader = wl.sampled_loader(ds, rank, world, 1, a.batch, a.workers,
                                        dict(prefetch_factor=a.prefetch, persistent_workers=True), rec=rec)
    model, opt = wl.ddp_model(lambda: nn.Linear(FEATURES, 10), 1, lr=0.01)
    t0 = time.time()
    wl.run_epochs(a.epochs, sampler, rec, loader, model, opt, accel=a.compute)  # the step's all-reduce syncs the ranks
    rec.close()
    if rank == 0:
        print("rank0 wall %.2f s" % (time.time() - t0), flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
