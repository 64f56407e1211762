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
import threading
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.utils.data as tud

import workload as wl

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
    wl.join_spawned(rank, a.world, a.port)
    rec = wl.recorder(a.out)  # every rank, after init_process_group
    ds = DiskFiles(a.data, a.batches * a.batch * a.world, a.files)
    sampler, loader = wl.sampled_loader(ds, rank, a.world, 3, a.batch, a.workers,
                                        dict(prefetch_factor=a.prefetch, persistent_workers=False), rec=rec)
    model, opt = wl.ddp_model(lambda: make_model(a.hidden), 0, lr=0.01, momentum=0.9)
    t0 = wl.barrier_time()
    # per batch a sleep (the emulated accelerator), then a step with DDP's all-reduce
    n, loss = wl.run_epochs(a.epochs, sampler, rec, loader, model, opt, accel=a.accel)
    dist.barrier()
    rec.close()
    wl.report(rank, n, t0, loss, per="s/it wall incl. epoch starts")
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
    p = wl.options(argparse.ArgumentParser(), out="", data="/tmp/diskdata",
                   files=(3200, "files in --data (made if absent)"),
                   file_kb=(FILE_BYTES // 1024, "size of each file, KB (at least 4; the decoding reads the first %d KB)"
                            % (FILE_BYTES // 1024)),
                   workers=1, prefetch=2, world=2, batch=16, batches=(100, wl.PER_RANK), epochs=2,
                   accel=(0.015, "emulated accelerator time per step (s)"), hidden=64, port=29741, bench_read=False)
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
    wl.spawn(run_rank, a, a.world)


if __name__ == "__main__":
    main()
