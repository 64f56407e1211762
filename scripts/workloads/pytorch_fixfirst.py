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
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.utils.data as tud

import workload as wl


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
    wl.options(ap, nproc=(0, "start this many ranks on this machine"),
               out=(None, "record PREFIX (no recording when absent)"), workers=1,
               latency=(0.003, "seconds of storage per sample"), slow_rank=-1, slow_factor=2.5,
               batches=(120, wl.PER_RANK), epochs=2)
    a = ap.parse_args()
    rank, world = wl.launch_or_join(__file__, a.nproc)
    rec = wl.recorder(a.out)
    lat = wl.slowed(a.latency, rank, a.slow_rank, a.slow_factor)
    ds = Store(a.batches * 16 * world, lat)
    sampler, loader = wl.sampled_loader(ds, rank, world, 0, 16, a.workers, rec=rec)
    model, opt = wl.ddp_model(lambda: nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                                    nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                                                    nn.Flatten(), nn.Linear(16, 10)), 0, lr=0.01)
    t0 = time.time()
    n, _ = wl.run_epochs(a.epochs, sampler, rec, loader, model, opt, accel=0.015)  # the emulated accelerator
    rec.close()
    dist.barrier()
    if rank == 0:
        print("pytorch_fixfirst: %d ranks, %d workers, slow rank %d: %d steps in %.2f s" %
              (world, a.workers, a.slow_rank, n, time.time() - t0), file=sys.stderr)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
