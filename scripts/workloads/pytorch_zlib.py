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
import sys
import time
import warnings
import zlib

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.utils.data as tud

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/: the recorder
import stallsim_record  # noqa: E402

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
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(a.port))
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore", message="This DataLoader will create")
    dist.init_process_group("gloo", rank=rank, world_size=a.world)
    rec = stallsim_record.Recorder(a.out)  # after init_process_group
    delay = SLEEP_S * a.latency_scale * (a.slow_factor if rank == a.slow_rank else 1.0)
    ds = ZFiles(a.data, a.batches * a.batch * a.world, delay)
    sampler = tud.distributed.DistributedSampler(ds, num_replicas=a.world, rank=rank, shuffle=True, seed=11)
    kw = dict(prefetch_factor=4, persistent_workers=False) if a.workers > 0 else {}
    loader = tud.DataLoader(ds, batch_size=a.batch, sampler=sampler, num_workers=a.workers, drop_last=True, **kw)
    loader = rec.wrap(loader)
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(MLP())
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    lossf = nn.CrossEntropyLoss()
    t0 = time.time()
    n = 0
    for epoch in range(a.epochs):
        sampler.set_epoch(epoch)
        rec.set_epoch(epoch)
        for x, y in loader:
            opt.zero_grad()
            loss = lossf(model(x), y)
            loss.backward()
            opt.step()
            n += 1
    dist.barrier()
    if rank == 0:
        el = time.time() - t0
        print("rank0: %d iterations in %.2f s (%.4f s/it), last loss %.3f" % (n, el, el / n, loss.item()))
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--gen", metavar="DIR", help="generate the data files into DIR and exit")
    p.add_argument("--data", default="zlib-data")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--latency-scale", type=float, default=1.0)
    p.add_argument("--slow-rank", type=int, default=-1)
    p.add_argument("--slow-factor", type=float, default=1.0)
    p.add_argument("--out")
    p.add_argument("--world", type=int, default=3)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--batches", type=int, default=80, help="batches per epoch per rank")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--port", type=int, default=29731)
    p.add_argument("--bench-item", action="store_true", help="time __getitem__ and exit")
    a = p.parse_args()
    if a.gen:
        generate(a.gen)
        return
    if a.bench_item:
        ds = ZFiles(a.data, NFILES, SLEEP_S * a.latency_scale)
        t = time.perf_counter(); c = time.process_time()
        for i in range(400):
            ds[i]
        print("per item: wall %.3f ms cpu %.3f ms" % ((time.perf_counter() - t) / 0.4, (time.process_time() - c) / 0.4))
        return
    if not a.out:
        p.error("--out is required")
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    mp.spawn(worker, args=(a,), nprocs=a.world, join=True)


if __name__ == "__main__":
    main()
