"""pytorch_startup.py - a DDP workload (2 ranks unless --ranks) whose DataLoader workers take long to start at every epoch, for stallsim's epoch-start model (datasets/pytorch-startup).

--ranks ranks (default 2) via torch.multiprocessing.spawn, DDP (gloo, CPU), torch.set_num_threads(1) in
every rank and worker. A map-style dataset whose __getitem__ waits --storage-ms (default
4 ms; x --slow-factor on --slow-rank) as emulated storage, then does light numpy work (a
seeded 16x16 matrix, its row norms and a small product, about 0.1 ms); batch 8; a
DistributedSampler with set_epoch every epoch. The step emulates an accelerator
(time.sleep(--step-ms / 1000), default 15 ms) and then trains a tiny MLP (32-16-4) under
DDP (the all-reduce synchronises the ranks), SGD.

The loader: --workers W (0: the loop fetches itself), multiprocessing_context --start
(spawn by default: each worker imports torch and unpickles the dataset before its first
fetch; fork: a fork), --persistent (persistent_workers=True), and a worker_init_fn that
burns --init-ms of the worker's CPU (default 300 ms), so that starting the workers is
CPU-bound: the ranks' W workers each share the machine's cores at every epoch's start.
--index-files N gives the dataset an index of N file names (ImageNet-style paths, as a
list of str), as many real datasets hold. A spawned worker receives its own copy through
a pipe, so iter(loader) waits for each worker in turn while it imports and unpickles.

The DataLoader is wrapped with scripts/stallsim_record.py, so each run writes
PREFIX.rank<R>.csv and PREFIX.rank<R>.worker<W>.csv; import them with
    build/stallsim import pytorch PREFIX -o run.h5

Run from the repository root (/usr/bin/python3 is the python with torch):
    /usr/bin/python3 scripts/workloads/pytorch_startup.py --workers 2 --out runs/w2/run
    /usr/bin/python3 scripts/workloads/pytorch_startup.py --workers 2 --persistent --out runs/w2-pers/run
    /usr/bin/python3 scripts/workloads/pytorch_startup.py --workers 2 --start fork --out runs/w2-fork/run
    /usr/bin/python3 scripts/workloads/pytorch_startup.py --workers 2 --epochs 2 --batches 400 --out runs/w2-long/run
    /usr/bin/python3 scripts/workloads/pytorch_startup.py --workers 2 --slow-rank 1 --slow-factor 3 --out runs/w2-slow1/run
A run takes 10-30 s on 2 cores. Written by a helper session (branch startup) after the
model was frozen at commit 50a4612.
"""
import argparse
import os
import socket
import sys
import time
import warnings

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data as tud

# the recorder lives in scripts/, one folder up
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import stallsim_record  # noqa: E402

FEATURES = 32
CLASSES = 4


class EmulatedStorage(tud.Dataset):
    """n samples; sample i waits `wait_s` (the storage), then a little numpy work on a
    matrix seeded by i gives its FEATURES features."""

    def __init__(self, n, wait_s, index_files=0):
        self.n = n
        self.wait_s = wait_s
        # an index of file names, as an image folder's dataset holds; every worker gets a copy
        self.files = ["train/n%08d/n%08d_%d.JPEG" % (k % 1000, k % 1000, k) for k in range(index_files)]

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        time.sleep(self.wait_s)
        if self.files:
            _ = self.files[i % len(self.files)]  # the file this sample would open
        m = np.random.default_rng(i).standard_normal((16, 16))
        norms = np.sqrt((m * m).sum(axis=1))
        prod = (m @ m.T).diagonal()
        feat = np.concatenate([norms, prod / 16.0]).astype(np.float32)
        return torch.from_numpy(feat), i % CLASSES


class BurnInit:
    """worker_init_fn: burns `ms` milliseconds of the worker's own CPU before its first
    fetch (a picklable object, so spawned workers receive it)."""

    def __init__(self, ms):
        self.ms = ms

    def __call__(self, worker_id):
        torch.set_num_threads(1)
        end = time.thread_time() + self.ms / 1000.0
        acc = 0
        while time.thread_time() < end:
            acc += sum(range(300))
        return acc


class TinyMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(FEATURES, 16)
        self.b = nn.Linear(16, CLASSES)

    def forward(self, x):
        return self.b(F.relu(self.a(x)))


def rank_main(rank, a):
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore", message="This DataLoader will create")  # more workers than cores, on purpose
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % a.port, rank=rank, world_size=a.ranks)
    rec = stallsim_record.Recorder(a.out, probe=a.start)  # after init_process_group; a loader without workers:
    # its probe's worker starts as the job's workers would (--start)
    wait_s = a.storage_ms / 1000.0 * (a.slow_factor if rank == a.slow_rank else 1.0)
    ds = EmulatedStorage(a.batches * a.batch * a.ranks, wait_s, a.index_files)
    sampler = tud.distributed.DistributedSampler(ds, num_replicas=a.ranks, rank=rank, shuffle=True, seed=11)
    kw = {}
    if a.workers > 0:
        kw = dict(multiprocessing_context=a.start, persistent_workers=a.persistent,
                  worker_init_fn=BurnInit(a.init_ms) if a.init_ms > 0 else None)
    loader = tud.DataLoader(ds, batch_size=a.batch, sampler=sampler, num_workers=a.workers, drop_last=True, **kw)
    loader = rec.wrap(loader)
    torch.manual_seed(3)
    model = nn.parallel.DistributedDataParallel(TinyMLP())
    opt = torch.optim.SGD(model.parameters(), lr=0.02)
    step_s = a.step_ms / 1000.0
    dist.barrier()
    t0 = time.time()
    steps = 0
    epoch_walls = []
    for epoch in range(a.epochs):
        te = time.time()
        sampler.set_epoch(epoch)
        rec.set_epoch(epoch)
        for x, y in loader:
            time.sleep(step_s)  # the emulated accelerator
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()  # DDP's all-reduce
            opt.step()
            steps += 1
        epoch_walls.append(time.time() - te)
    wall = time.time() - t0
    rec.close()
    dist.barrier()
    if rank == 0:
        print("pytorch_startup: %d ranks, %d workers (%s%s), init %g ms, index %d files, %d epochs x %d batches: %d steps in %.3f s;"
              " epochs %s s" % (a.ranks, a.workers, a.start, ", persistent" if a.persistent else "", a.init_ms,
                                a.index_files, a.epochs, a.batches, steps, wall, " ".join("%.3f" % w for w in epoch_walls)),
              flush=True)
    dist.destroy_process_group()


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ranks", type=int, default=2, help="DDP ranks (processes)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--start", choices=("spawn", "fork"), default="spawn", help="the workers' multiprocessing_context")
    p.add_argument("--persistent", action="store_true", help="persistent_workers=True")
    p.add_argument("--init-ms", type=float, default=300.0, help="CPU milliseconds each worker burns in worker_init_fn")
    p.add_argument("--index-files", type=int, default=0, help="file names in the dataset's index (sent to each spawned worker)")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batches", type=int, default=100, help="batches per epoch per rank")
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--storage-ms", type=float, default=4.0, help="emulated storage wait per sample")
    p.add_argument("--step-ms", type=float, default=15.0, help="emulated accelerator time per step")
    p.add_argument("--slow-rank", type=int, default=-1)
    p.add_argument("--slow-factor", type=float, default=1.0)
    p.add_argument("--port", type=int, default=0, help="the rendezvous port (0: a free one)")
    p.add_argument("--out", required=True, help="record PREFIX (PREFIX.rank<R>.csv ...)")
    a = p.parse_args()
    if a.port == 0:
        a.port = free_port()
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    mp.spawn(rank_main, args=(a,), nprocs=a.ranks, join=True)


if __name__ == "__main__":
    main()
