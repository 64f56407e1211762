#!/usr/bin/python3
"""pytorch_seq.py - a variable-length sequence workload for stallsim (datasets/pytorch-seq),
written by a helper session testing stallsim as a new user.

2-rank DDP (gloo, CPU, torch.set_num_threads(1) per process) training of a 1-layer GRU
sequence classifier over token embeddings: embedding(2000, 16) -> GRU(16, 32) -> linear
over the last valid hidden state, SGD, batch 24, DistributedSampler, pin_memory=True,
persistent workers, prefetch factor 3 (when --workers > 0), fork for the workers.

Samples have VARIABLE length: each sample's length is drawn per sample with a seeded RNG
between 16 and 256 tokens (96 % uniform in 16..80, 4 % uniform in 81..256, so about a
third of the batches hold only short sequences and the rest one or more long ones).
__getitem__ sleeps an emulated read latency proportional to the length
(--token-us, default 40 us per token, x --latency-scale, x --slow-factor on --slow-rank)
and then builds the token tensor (seeded per sample). The collate function pads to the
longest sequence of the batch, so both the loader's work (the sum of the lengths) and the
training step (the GRU runs over the padded length) vary from batch to batch.
--compute-slow-rank R2 --compute-slow-factor F2 makes rank R2's step repeat its
forward/backward F2 times (the extra passes under DDP's no_sync, so the collectives
still match): a slow compute node whose loader is as fast as the others'.

The DataLoader is wrapped with scripts/stallsim_record.py, so each run writes
PREFIX.rank<R>.csv and PREFIX.rank<R>.worker<W>.csv; import them with
    build/stallsim import pytorch PREFIX -o run.h5

Run (from the repository root; /usr/bin/python3 is Debian's python with torch):
    /usr/bin/python3 scripts/workloads/pytorch_seq.py --workers 1 --latency-scale 1 --out runs/base/run
    /usr/bin/python3 scripts/workloads/pytorch_seq.py --workers 1 --slow-rank 1 --slow-factor 3 --out runs/slow1/run
    /usr/bin/python3 scripts/workloads/pytorch_seq.py --workers 1 --compute-slow-rank 1 --compute-slow-factor 2 --out runs/cslow1/run
    /usr/bin/python3 scripts/workloads/pytorch_seq.py --bench      # time fetches and steps alone, then exit
"""
import argparse
import os
import random
import sys
import time
import warnings

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data as tud

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/: the recorder
import stallsim_record  # noqa: E402

WORLD = 2
VOCAB = 2000
CLASSES = 4
MIN_LEN, SHORT_MAX, MAX_LEN = 16, 80, 256
LONG_PROB = 0.04
PAD = 0


def draw_lengths(n, seed=1234):
    rng = random.Random(seed)
    return [rng.randint(SHORT_MAX + 1, MAX_LEN) if rng.random() < LONG_PROB
            else rng.randint(MIN_LEN, SHORT_MAX) for _ in range(n)]


class SeqDataset(tud.Dataset):
    """n sequences of per-sample lengths; reading one sleeps latency_per_token x length."""

    def __init__(self, n, latency_per_token, seed=1234):
        self.lengths = draw_lengths(n, seed)
        self.lat = latency_per_token
        self.seed = seed

    def __len__(self):
        return len(self.lengths)

    def __getitem__(self, i):
        n = self.lengths[i]
        time.sleep(self.lat * n)  # emulated read, proportional to the length
        g = torch.Generator().manual_seed(self.seed * 100003 + i)
        toks = torch.randint(1, VOCAB, (n,), generator=g)
        label = int(toks[:4].sum().item()) % CLASSES
        return toks, label


def pad_collate(batch):
    lens = torch.tensor([len(t) for t, _ in batch], dtype=torch.long)
    x = torch.full((len(batch), int(lens.max())), PAD, dtype=torch.long)
    for k, (t, _) in enumerate(batch):
        x[k, :len(t)] = t
    y = torch.tensor([lab for _, lab in batch], dtype=torch.long)
    return x, lens, y


class GRUClassifier(nn.Module):
    def __init__(self, emb=16, hidden=32):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, emb, padding_idx=PAD)
        self.gru = nn.GRU(emb, hidden, num_layers=1, batch_first=True)
        self.fc = nn.Linear(hidden, CLASSES)

    def forward(self, x, lens):
        out, _ = self.gru(self.emb(x))               # runs over the padded length
        last = out[torch.arange(x.shape[0]), lens - 1]
        return self.fc(last)


def train(rank, a):
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore", message="This DataLoader will create")
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % a.port, rank=rank, world_size=WORLD)
    rec = stallsim_record.Recorder(a.out)  # after init_process_group (collective)
    lat = a.token_us * 1e-6 * a.latency_scale * (a.slow_factor if rank == a.slow_rank else 1.0)
    reps = max(1, int(round(a.compute_slow_factor))) if rank == a.compute_slow_rank else 1
    ds = SeqDataset(a.batches * a.batch * WORLD, lat)
    sampler = tud.distributed.DistributedSampler(ds, num_replicas=WORLD, rank=rank, shuffle=True, seed=3)
    extra = dict(persistent_workers=True, prefetch_factor=3, multiprocessing_context="fork") \
        if a.workers > 0 else {}
    loader = tud.DataLoader(ds, batch_size=a.batch, sampler=sampler, num_workers=a.workers,
                            collate_fn=pad_collate, pin_memory=True, drop_last=True, **extra)
    loader = rec.wrap(loader)
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(GRUClassifier())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    t0 = time.time()
    steps = 0
    for epoch in range(a.epochs):
        sampler.set_epoch(epoch)
        rec.set_epoch(epoch)
        for x, lens, y in loader:
            opt.zero_grad()
            for _ in range(reps - 1):            # slow compute node: extra passes, no all-reduce
                with model.no_sync():
                    F.cross_entropy(model(x, lens), y).backward()
            loss = F.cross_entropy(model(x, lens), y)
            loss.backward()
            opt.step()
            steps += 1
    dist.barrier()
    if rank == 0:
        el = time.time() - t0
        print("rank0: %d iterations in %.2f s (%.4f s/it), last loss %.3f"
              % (steps, el, el / steps, loss.item()), flush=True)
    dist.destroy_process_group()


def bench(a):
    torch.set_num_threads(1)
    ds = SeqDataset(a.batches * a.batch * WORLD, a.token_us * 1e-6 * a.latency_scale)
    idx = list(range(len(ds)))
    random.Random(5).shuffle(idx)
    fetch, step, pad = [], [], []
    model = GRUClassifier()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for b in range(40):
        t = time.perf_counter()
        x, lens, y = pad_collate([ds[i] for i in idx[b * a.batch:(b + 1) * a.batch]])
        fetch.append(time.perf_counter() - t)
        t = time.perf_counter()
        opt.zero_grad()
        F.cross_entropy(model(x, lens), y).backward()
        opt.step()
        step.append(time.perf_counter() - t)
        pad.append(x.shape[1])
    m = lambda v: sum(v) / len(v)  # noqa: E731
    print("fetch %.4f s (min %.4f max %.4f)  step %.4f s (min %.4f max %.4f)  padded len %.0f (min %d max %d)"
          % (m(fetch), min(fetch), max(fetch), m(step), min(step), max(step), m(pad), min(pad), max(pad)))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--latency-scale", type=float, default=1.0)
    p.add_argument("--token-us", type=float, default=40.0, help="emulated read latency per token at scale 1 (us)")
    p.add_argument("--slow-rank", type=int, default=-1)
    p.add_argument("--slow-factor", type=float, default=1.0)
    p.add_argument("--compute-slow-rank", type=int, default=-1)
    p.add_argument("--compute-slow-factor", type=float, default=1.0)
    p.add_argument("--out", help="record prefix (PREFIX.rank<R>.csv ...)")
    p.add_argument("--batch", type=int, default=24)
    p.add_argument("--batches", type=int, default=60, help="batches per epoch per rank")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--port", type=int, default=29871)
    p.add_argument("--bench", action="store_true", help="time 40 fetches and steps in one process, then exit")
    a = p.parse_args()
    if a.bench:
        bench(a)
        return
    if not a.out:
        p.error("--out is required")
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    mp.spawn(train, args=(a,), nprocs=WORLD, join=True)


if __name__ == "__main__":
    main()
