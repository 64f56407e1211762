#!/usr/bin/python3
"""pytorch_zlib.py - a third real workload for stallsim's validation (datasets/pytorch-zlib),
written by a helper session testing stallsim as a new user.

3-rank DDP (gloo, CPU) MLP trained on a folder of small zlib-compressed float32 arrays.
__getitem__: open+read the file, sleep 2 ms x --latency-scale (x --slow-factor on
--slow-rank) to emulate a slow disk, zlib-decompress, convert to a float tensor, normalise.

  /usr/bin/python3 scripts/workloads/pytorch_zlib.py --gen zlib-data          # once: writes the files
  /usr/bin/python3 scripts/workloads/pytorch_zlib.py --workers 1 --latency-scale 1 --out runs/base/run
"""
import argparse
import os
import time
import zlib

import numpy as np
import torch
import torch.nn as nn
import torch.utils.data as tud

import workload as wl

NFILES = 2000
DIM = 1024  # float32 values per sample (4 KB raw)
SLEEP_S = 0.002  # emulated disk latency per sample at --latency-scale 1 (tuned from 1 ms so the 1-worker loader dominates)


def generate(d):
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(42)
    total = 0
    for i in range(NFILES):
        # smooth-ish signal quantised to 1/32 so zlib has something to do (compresses ~2-3x)
        x = np.cumsum(rng.integers(-1000, 1001, size=DIM)).astype(np.float32) / 1024.0 + (i % 10)
        blob = zlib.compress(x.tobytes(), 6)
        with open(os.path.join(d, "s%05d.z" % i), "wb") as f:
            f.write(blob)
        total += len(blob)
    print("wrote %d files, mean %.0f bytes compressed" % (NFILES, total / NFILES))


class ZFiles(tud.Dataset):
    def __init__(self, d, n, delay):
        self.d, self.n, self.delay = d, n, delay

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        j = i % NFILES
        with open(os.path.join(self.d, "s%05d.z" % j), "rb") as f:
            blob = f.read()
        time.sleep(self.delay)  # emulated slow disk
        x = np.frombuffer(zlib.decompress(blob), dtype=np.float32)
        t = torch.from_numpy(x.copy())
        t = (t - t.mean()) / (t.std() + 1e-6)
        return t, j % 10


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(DIM, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))

    def forward(self, x):
        return self.net(x)


def worker(rank, a):
    wl.join_spawned(rank, a.world, a.port)
    rec = wl.recorder(a.out)  # after init_process_group
    delay = wl.slowed(SLEEP_S * a.latency_scale, rank, a.slow_rank, a.slow_factor)
    ds = ZFiles(a.data, a.batches * a.batch * a.world, delay)
    sampler, loader = wl.sampled_loader(ds, rank, a.world, 11, a.batch, a.workers,
                                        dict(prefetch_factor=4, persistent_workers=False), rec=rec)
    model, opt = wl.ddp_model(MLP, 0, lr=0.01)
    t0 = time.time()
    n, loss = wl.run_epochs(a.epochs, sampler, rec, loader, model, opt)
    wl.finish(rank, n, t0, loss, flush=False)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--gen", metavar="DIR", help="generate the data files into DIR and exit")
    wl.options(p, data="zlib-data", workers=1, latency_scale=1.0, slow_rank=-1, slow_factor=1.0, out=None, world=3,
               batch=32, batches=(80, wl.PER_RANK), epochs=2, port=29731,
               bench_item=(False, "time __getitem__ and exit"))
    a = p.parse_args()
    if a.gen:
        generate(a.gen)
        return
    if a.bench_item:
        ds = ZFiles(a.data, NFILES, SLEEP_S * a.latency_scale)
        print("per item: wall %.3f ms cpu %.3f ms" % wl.time_items(ds.__getitem__, 400))
        return
    wl.need_out(p, a)
    wl.spawn(worker, a, a.world)


if __name__ == "__main__":
    main()
