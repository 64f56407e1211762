"""pytorch_vision.py - a small image-classification-like DDP job (gloo, CPU) recorded with
stallsim's recorder. Written by a helper session as a new user's own workload (datasets/pytorch-vision).

Dataset: NIMG (4000) 64x64 RGB JPEG images encoded once with PIL and kept as bytes in
memory; the sampler's length is batches*batch*world and index i maps to image i % NIMG.
__getitem__: sleep(latency) (emulated storage read), PIL decode, random 56x56 crop and
random horizontal flip with numpy, to a float tensor.
Step: time.sleep(0.030) (emulated accelerator), then a tiny CNN forward/backward; the
DDP all-reduce synchronises the ranks.

    /usr/bin/python3 scripts/workloads/pytorch_vision.py --nproc 4 --workers 2 --out rec/base/run
    # --workers-rank R:W overrides the worker count of rank R; --slow-rank R --slow-factor F
"""

import argparse
import io
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.utils.data as tud
from PIL import Image

import workload as wl

NIMG, SIDE, CROP = 4000, 64, 56


def make_images(n, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    grad = np.linspace(0, 180, SIDE)[None, :, None]
    for i in range(n):
        a = (rng.random((SIDE, SIDE, 3)) * 60 + grad + (i % 10) * 5).clip(0, 255).astype(np.uint8)
        b = io.BytesIO()
        Image.fromarray(a).save(b, format="JPEG", quality=85)
        out.append(b.getvalue())
    return out


class JpegDataset(tud.Dataset):
    def __init__(self, blobs, length, latency):
        self.blobs, self.length, self.latency = blobs, length, latency

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        time.sleep(self.latency)  # emulated storage read
        j = i % len(self.blobs)
        a = np.asarray(Image.open(io.BytesIO(self.blobs[j])).convert("RGB"))
        rng = np.random.default_rng(i * 7919 + int(time.time_ns() & 0xFFFF))
        y, x = rng.integers(0, SIDE - CROP + 1, 2)
        c = a[y:y + CROP, x:x + CROP]
        if rng.random() < 0.5:
            c = c[:, ::-1]
        t = torch.from_numpy(np.ascontiguousarray(c.transpose(2, 0, 1), dtype=np.float32) / 255.0)
        return t, j % 10


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.f = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2), nn.ReLU(), nn.Conv2d(8, 16, 3, stride=2), nn.ReLU(),
                               nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))

    def forward(self, x):
        return self.f(x)


def parse():
    ap = wl.options(argparse.ArgumentParser(), nproc=0, out=wl.REQUIRED, workers=2, workers_rank=([], "R:W"),
                    prefetch=2, batch=32, batches=(120, wl.PER_RANK), epochs=2, latency=0.0015, compute=0.030,
                    slow_rank=-1, slow_factor=3.0)
    return ap.parse_args()


def main():
    a = parse()
    rank, world = wl.launch_or_join(__file__, a.nproc)
    rec = wl.recorder(a.out)
    workers = wl.per_rank(a.workers_rank, rank, a.workers, int)
    latency = wl.slowed(a.latency, rank, a.slow_rank, a.slow_factor)
    blobs = make_images(NIMG)
    ds = JpegDataset(blobs, a.batches * a.batch * world, latency)
    sampler, loader = wl.sampled_loader(ds, rank, world, 1, a.batch, workers,
                                        dict(prefetch_factor=a.prefetch, persistent_workers=True), rec=rec)
    model, opt = wl.ddp_model(TinyNet, 1, lr=0.01)
    t0 = wl.barrier_time()
    its = []
    wl.run_epochs(a.epochs, sampler, rec, loader, model, opt, accel=a.compute,  # emulated accelerator
                  times=its, skip=10)
    rec.close()
    dist.barrier()
    print("pytorch_vision rank %d: workers %d latency %.4f: %d epochs x %d batches in %.1f s, mean iter (k>=10, loop-side) %.4f s"
          % (rank, workers, latency, a.epochs, len(loader), time.time() - t0, float(np.mean(its))), file=sys.stderr)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
