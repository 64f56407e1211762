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

The DataLoader is recorded with scripts/stallsim_record.py (what a run writes and how to
import it: workload.py).

Run (from the repository root; /usr/bin/python3 is Debian's python with torch):
    /usr/bin/python3 scripts/workloads/pytorch_seq.py --workers 1 --latency-scale 1 --out runs/base/run
    /usr/bin/python3 scripts/workloads/pytorch_seq.py --workers 1 --slow-rank 1 --slow-factor 3 --out runs/slow1/run
    /usr/bin/python3 scripts/workloads/pytorch_seq.py --workers 1 --compute-slow-rank 1 --compute-slow-factor 2 --out runs/cslow1/run
    /usr/bin/python3 scripts/workloads/pytorch_seq.py --bench      # time fetches and steps alone, then exit
"""
import argparse
import random
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data as tud

import workload as wl

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
    wl.join_spawned(rank, WORLD, a.port)
    rec = wl.recorder(a.out)  # after init_process_group (collective)
    lat = wl.slowed(a.token_us * 1e-6 * a.latency_scale, rank, a.slow_rank, a.slow_factor)
    reps = max(1, int(round(a.compute_slow_factor))) if rank == a.compute_slow_rank else 1
    ds = SeqDataset(a.batches * a.batch * WORLD, lat)
    sampler, loader = wl.sampled_loader(ds, rank, WORLD, 3, a.batch, a.workers,
                                        dict(persistent_workers=True, prefetch_factor=3,
                                             multiprocessing_context="fork"),
                                        collate_fn=pad_collate, pin_memory=True, rec=rec)
    model, opt = wl.ddp_model(GRUClassifier, 0, lr=0.1)
    t0 = time.time()
    steps = 0
    for epoch in wl.epochs(a.epochs, sampler, rec):
        for x, lens, y in loader:
            opt.zero_grad()
            for _ in range(reps - 1):            # slow compute node: extra passes, no all-reduce
                with model.no_sync():
                    F.cross_entropy(model(x, lens), y).backward()
            loss = F.cross_entropy(model(x, lens), y)
            loss.backward()
            opt.step()
            steps += 1
    wl.finish(rank, steps, t0, loss)


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
    p = wl.options(argparse.ArgumentParser(description=__doc__.split("\n")[0]), workers=1, latency_scale=1.0,
                   token_us=(40.0, "emulated read latency per token at scale 1 (us)"), slow_rank=-1, slow_factor=1.0,
                   compute_slow_rank=-1, compute_slow_factor=1.0, out=(None, wl.RECORD_PREFIX), batch=24,
                   batches=(60, wl.PER_RANK), epochs=2, port=29871,
                   bench=(False, "time 40 fetches and steps in one process, then exit"))
    wl.spawn_or_bench(p, train, WORLD, bench)


if __name__ == "__main__":
    main()
