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
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.utils.data as tud
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/: the recorder
import ddp_launch  # noqa: E402
import stallsim_record  # noqa: E402

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
    ap = argparse.ArgumentParser()
    ap.add_argument("--nproc", type=int, default=0)
    ap.add_argument("--out", required=True)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--workers-rank", action="append", default=[], help="R:W")
    ap.add_argument("--prefetch", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--batches", type=int, default=120, help="batches per epoch per rank")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--latency", type=float, default=0.0015)
    ap.add_argument("--compute", type=float, default=0.030)
    ap.add_argument("--slow-rank", type=int, default=-1)
    ap.add_argument("--slow-factor", type=float, default=3.0)
    return ap.parse_args()


def main():
    a = parse()
    if a.nproc:
        return ddp_launch.launch(__file__, a.nproc)
    rank, world = ddp_launch.join()
    rec = stallsim_record.Recorder(a.out)
    workers = a.workers
    for spec in a.workers_rank:
        r, w = map(int, spec.split(":"))
        if r == rank:
            workers = w
    latency = a.latency * (a.slow_factor if rank == a.slow_rank else 1.0)
    blobs = make_images(NIMG)
    ds = JpegDataset(blobs, a.batches * a.batch * world, latency)
    sampler = tud.distributed.DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, seed=1)
    kw = dict(prefetch_factor=a.prefetch, persistent_workers=True) if workers > 0 else {}
    loader = tud.DataLoader(ds, batch_size=a.batch, sampler=sampler, num_workers=workers, drop_last=True, **kw)
    loader = rec.wrap(loader)
    torch.manual_seed(1)
    model = nn.parallel.DistributedDataParallel(TinyNet())
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    lossf = nn.CrossEntropyLoss()
    dist.barrier()
    t0 = time.time()
    its = []
    for epoch in range(a.epochs):
        sampler.set_epoch(epoch)
        rec.set_epoch(epoch)
        last = time.perf_counter()
        for k, (x, y) in enumerate(loader):
            time.sleep(a.compute)  # emulated accelerator
            opt.zero_grad()
            lossf(model(x), y).backward()
            opt.step()
            now = time.perf_counter()
            if k >= 10:
                its.append(now - last)
            last = now
    rec.close()
    dist.barrier()
    print("pytorch_vision rank %d: workers %d latency %.4f: %d epochs x %d batches in %.1f s, mean iter (k>=10, loop-side) %.4f s"
          % (rank, workers, latency, a.epochs, len(loader), time.time() - t0, float(np.mean(its))), file=sys.stderr)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
