#!/usr/bin/python3
"""pytorch_disk.py - a new user's DDP job (gloo, CPU) whose DataLoader reads real files from
the local disk (datasets/pytorch-disk): 2 ranks via torch.multiprocessing.spawn, each with its
own DataLoader over a DistributedSampler. Each sample opens one 256 KB file (--file-kb) of --data (made
once with a fixed seed if absent), reads it whole, evicts it from the page cache
(posix_fadvise DONTNEED, so every epoch reads the device again), and does light numpy work
(uint8 -> float32 -> 1024 means of a quarter of the bytes); the step is an emulated
accelerator (time.sleep 15 ms) and a tiny MLP under DDP on 1 thread. Recorded with scripts/stallsim_record.py when --out PREFIX is
given (import with `stallsim import pytorch PREFIX -o TRACE.h5`). Written by a helper session
as a new user; see the dataset's README."""
import argparse
import os
import sys
import threading
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.utils.data as tud

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/: the recorder
import ddp_launch  # noqa: E402
import stallsim_record  # noqa: E402

FEAT = 1024
FILE_BYTES = 256 * 1024


def file_name(folder, k):
    return os.path.join(folder, "f%05d.bin" % k)


def make_files(folder, n, size=FILE_BYTES, seed=1234):
    """n files of `size` random bytes; files already there (of the right size) are kept"""
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)
    made = 0
    for k in range(n):
        data = rng.integers(0, 256, size, dtype=np.uint8)  # drawn for every k: fixed contents
        p = file_name(folder, k)
        if os.path.exists(p) and os.path.getsize(p) == size:
            continue
        with open(p + ".tmp", "wb") as f:
            f.write(data.tobytes())
            f.flush()
            os.fsync(f.fileno())
            os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
        os.rename(p + ".tmp", p)
        made += 1
    return made


def read_file(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while True:
            b = os.read(fd, 1 << 20)
            if not b:
                break
            chunks.append(b)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)  # the next epoch reads the device again
    finally:
        os.close(fd)
    return b"".join(chunks)


class DiskFiles(tud.Dataset):
    def __init__(self, folder, n, nfiles):
        self.folder, self.n, self.nfiles = folder, n, nfiles

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        raw = read_file(file_name(self.folder, i % self.nfiles))
        # "decode" the first FILE_BYTES (the same CPU work for every file of at least that size)
        n = min(FILE_BYTES, len(raw))
        x = np.frombuffer(raw, dtype=np.uint8, count=n).reshape(FEAT, -1)[:, ::4].astype(np.float32)
        x = x.mean(axis=1) * (1.0 / 128.0) - 1.0
        return torch.from_numpy(x), int(raw[0] % 10)


def make_model(hidden):
    return nn.Sequential(nn.Linear(FEAT, hidden), nn.ReLU(), nn.Linear(hidden, 10))


def run_rank(rank, a):
    # a rank that torch.multiprocessing.spawn started joins its job as launch()'s ranks do
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(a.port), RANK=str(rank), WORLD_SIZE=str(a.world))
    ddp_launch.join()
    rec = stallsim_record.Recorder(a.out) if a.out else None  # every rank, after init_process_group
    ds = DiskFiles(a.data, a.batches * a.batch * a.world, a.files)
    sampler = tud.distributed.DistributedSampler(ds, num_replicas=a.world, rank=rank, shuffle=True, seed=3)
    kw = dict(prefetch_factor=a.prefetch, persistent_workers=False) if a.workers > 0 else {}
    loader = tud.DataLoader(ds, batch_size=a.batch, sampler=sampler, num_workers=a.workers, drop_last=True, **kw)
    if rec:
        loader = rec.wrap(loader)
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(make_model(a.hidden))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    lossf = nn.CrossEntropyLoss()
    dist.barrier()
    t0 = time.time()
    n = 0
    for epoch in range(a.epochs):
        sampler.set_epoch(epoch)
        if rec:
            rec.set_epoch(epoch)
        for x, y in loader:
            time.sleep(a.accel)  # the emulated accelerator
            opt.zero_grad()
            loss = lossf(model(x), y)
            loss.backward()  # DDP's all-reduce: the ranks step together
            opt.step()
            n += 1
    dist.barrier()
    if rec:
        rec.close()
    if rank == 0:
        el = time.time() - t0
        print("rank0: %d iterations in %.2f s (%.4f s/it wall incl. epoch starts), last loss %.3f"
              % (n, el, el / n, loss.item()), flush=True)
    dist.destroy_process_group()


def bench_read(a):
    """per-file read time (with DONTNEED) with T threads reading at once, and the item's CPU"""
    ds = DiskFiles(a.data, a.files, a.files)
    for t in (1, 2, 4, 8):
        per = 400 // t
        times = [[] for _ in range(t)]

        def go(j):
            for k in range(per):
                i = (j * per + k) * 7 % a.files
                s = time.perf_counter()
                read_file(file_name(a.data, i))
                times[j].append(time.perf_counter() - s)
        th = [threading.Thread(target=go, args=(j,)) for j in range(t)]
        s = time.perf_counter()
        for x in th:
            x.start()
        for x in th:
            x.join()
        el = time.perf_counter() - s
        allt = np.concatenate([np.array(v) for v in times])
        print("threads %d: mean read %.3f ms (median %.3f), %.0f files/s" %
              (t, allt.mean() * 1e3, np.median(allt) * 1e3, len(allt) / el))
    s = time.perf_counter(); c = time.process_time()
    for i in range(200):
        ds[i]
    print("item (read + numpy): wall %.3f ms cpu %.3f ms" %
          ((time.perf_counter() - s) / 0.2, (time.process_time() - c) / 0.2))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default="")
    p.add_argument("--data", default="/tmp/diskdata")
    p.add_argument("--files", type=int, default=3200, help="files in --data (made if absent)")
    p.add_argument("--file-kb", type=int, default=FILE_BYTES // 1024,
                   help="size of each file, KB (at least 4; the decoding reads the first %d KB)" % (FILE_BYTES // 1024))
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--prefetch", type=int, default=2)
    p.add_argument("--world", type=int, default=2)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--batches", type=int, default=100, help="batches per epoch per rank")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--accel", type=float, default=0.015, help="emulated accelerator time per step (s)")
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--port", type=int, default=29741)
    p.add_argument("--bench-read", action="store_true")
    a = p.parse_args()
    torch.set_num_threads(1)
    if a.file_kb < 4:
        p.error("--file-kb must be at least 4")
    made = make_files(a.data, a.files, a.file_kb * 1024)
    if made:
        print("made %d files of %d bytes in %s" % (made, a.file_kb * 1024, a.data), flush=True)
    if a.bench_read:
        bench_read(a)
        return
    if a.out:
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    mp.spawn(run_rank, args=(a,), nprocs=a.world, join=True)


if __name__ == "__main__":
    main()
