"""pytorch_stream.py - a new user's DDP (gloo, CPU) job over a streaming IterableDataset,
recorded with stallsim_record (datasets/pytorch-stream; written by a helper session trying
the recorder's IterableDataset support as a new user).

Each rank streams its share of a global sample stream (i % world == rank); within a rank the
stream is split over the DataLoader workers via get_worker_info(). Each sample: sleep
`latency` s (emulated object-store read) + zlib compress/decompress of 8 KB (CPU decode).
Step: tiny MLP forward/backward (DDP all-reduce) + sleep `compute` s (emulated accelerator).

  /usr/bin/python3 scripts/workloads/pytorch_stream.py --nproc 2 --workers 1 --out runs/base/run
"""
import argparse
import sys
import time
import warnings
import zlib

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.utils.data as tud

import workload as wl

warnings.filterwarnings("ignore", message="This DataLoader will create")
FEAT = 64


class Stream(tud.IterableDataset):
    def __init__(self, per_rank, rank, world, latency, nbytes, uneven=False, with_len=True, seed=0):
        self.per_rank, self.rank, self.world = per_rank, rank, world
        self.latency, self.nbytes, self.uneven, self.with_len = latency, nbytes, uneven, with_len
        self.seed = seed
        self.epoch = 0
        self.shards = 0

    def __len__(self):
        if not self.with_len:
            raise TypeError("no len")
        return self.per_rank

    def _my_ids(self):
        ids = [i for i in range(self.per_rank * self.world) if i % self.world == self.rank]
        info = tud.get_worker_info()
        if info is None:
            return ids
        W, w = info.num_workers, info.id
        if self.shards:  # the rank's stream is `shards` contiguous files; worker w reads files w, w+W, ...
            S = self.shards
            files = [ids[len(ids) * f // S:len(ids) * (f + 1) // S] for f in range(S)]
            return [i for f in range(w, S, W) for i in files[f]]
        if not self.uneven:
            return ids[w::W]
        # uneven: worker w gets a contiguous chunk proportional to w+1
        wts = [k + 1 for k in range(W)]
        tot = sum(wts)
        bounds = [0]
        for k in range(W):
            bounds.append(bounds[-1] + len(ids) * wts[k] // tot)
        bounds[-1] = len(ids)
        return ids[bounds[w]:bounds[w + 1]]

    def __iter__(self):
        for i in self._my_ids():
            if self.latency > 0:
                time.sleep(self.latency)
            rng = np.random.default_rng(i + 1000003 * self.seed)
            raw = rng.integers(0, 16, self.nbytes, dtype=np.uint8).tobytes()
            dec = np.frombuffer(zlib.decompress(zlib.compress(raw, 6)), np.uint8)
            x = torch.from_numpy(dec.astype(np.float32).reshape(-1, FEAT).mean(0))
            yield i, x, i % 10


def parse():
    return wl.options(argparse.ArgumentParser(), nproc=0, out=None, workers=1, prefetch=2, batch=16,
                      per_rank=(1600, "samples per rank per epoch"), epochs=2, latency=0.004, nbytes=8192,
                      compute=0.015, uneven=False,
                      shards=(0, "split each rank's stream into this many files; workers take whole files"),
                      no_len=False, drop_last=False, persistent=False, spawn=False,
                      break_at=(-1, "leave each epoch after this many batches"),
                      dump=(None, "write received sample ids per batch to DUMP.rank<R>.txt"),
                      no_ddp_check=False).parse_args()


def main():
    a = parse()
    if a.nproc:
        sys.exit(wl.ddp_launch.launch(__file__, a.nproc))
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    rec = wl.recorder(a.out)
    ds = Stream(a.per_rank, rank, world, a.latency, a.nbytes, a.uneven, not a.no_len)
    ds.shards = a.shards
    kw = dict(batch_size=a.batch, num_workers=a.workers, drop_last=a.drop_last)
    if a.workers > 0:
        kw.update(prefetch_factor=a.prefetch, persistent_workers=a.persistent)
        if a.spawn:
            kw["multiprocessing_context"] = "spawn"
    loader = rec.wrap(tud.DataLoader(ds, **kw))
    model = nn.parallel.DistributedDataParallel(nn.Sequential(nn.Linear(FEAT, 64), nn.ReLU(), nn.Linear(64, 10)))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    lossf = nn.CrossEntropyLoss()
    dump = open("%s.rank%d.txt" % (a.dump, rank), "w") if a.dump else None
    t0 = time.time()
    nb = 0
    for ep in range(a.epochs):
        rec.set_epoch(ep)
        n = 0
        for ids, x, y in loader:
            if a.break_at >= 0 and n >= a.break_at:
                break
            if dump:
                dump.write("%d %d %s\n" % (ep, n, ",".join(map(str, ids.tolist()))))
            opt.zero_grad()
            loss = lossf(model(x), y)
            loss.backward()
            opt.step()
            time.sleep(a.compute)
            n += 1
        nb += n
        print("rank %d epoch %d: %d batches" % (rank, ep, n), flush=True)
    el = time.time() - t0
    rec.close()
    if dump:
        dump.close()
    print("rank %d done: %d batches in %.2fs (%.4f s/batch)" % (rank, nb, el, el / max(nb, 1)), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
