#!/usr/bin/python3
"""pytorch_text.py - a text-classification workload for stallsim (datasets/pytorch-text),
written by a helper session testing stallsim as a new user.

2-rank DDP (gloo, CPU, one thread per process) bag-of-embeddings text classifier:
embedding + masked mean pool + linear classifier, SGD, batch 32, DistributedSampler,
persistent workers, prefetch factor 4 (when --workers > 0).

Each sample is a generated "document": 60-120 words drawn with a seeded RNG from a fixed
vocabulary (4 topics, each with its own preferred words; the label is the topic), with
capitals and punctuation. __getitem__ sleeps an emulated storage latency of
1.5 ms x --latency-scale (x --slow-factor on --slow-rank), then tokenizes in Python:
lower-case, strip punctuation, split, dictionary lookup (unknown words -> <unk>), hashed
word bigrams into extra buckets, truncate/pad to a fixed length, build a LongTensor.

The DataLoader is recorded with scripts/stallsim_record.py (what a run writes and how to
import it: workload.py).

Run (from the repository root; /usr/bin/python3 is Debian's python with torch):
    /usr/bin/python3 scripts/workloads/pytorch_text.py --workers 1 --latency-scale 1 --out runs/base/run
    /usr/bin/python3 scripts/workloads/pytorch_text.py --workers 1 --slow-rank 1 --slow-factor 3 --out runs/slow1/run
    /usr/bin/python3 scripts/workloads/pytorch_text.py --bench-item      # time __getitem__ (1000 samples) and exit
"""
import argparse
import random
import string
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data as tud

import workload as wl

WORLD = 2
TOPICS = 4
VOCAB_WORDS = 3000          # generated words; the tokenizer knows the first KNOWN of them
KNOWN = 2500
BIGRAM_BUCKETS = 2048
SEQ_LEN = 160               # unigrams + bigrams, truncated / padded
LATENCY_S = 0.0015          # emulated storage latency per sample at --latency-scale 1
PAD, UNK = 0, 1
_PUNCT = str.maketrans("", "", string.punctuation)


def make_vocab(seed=7):
    rng = random.Random(seed)
    words, seen = [], set()
    while len(words) < VOCAB_WORDS:
        w = "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 9)))
        if w not in seen:
            seen.add(w)
            words.append(w)
    return words


class TextDataset(tud.Dataset):
    """n generated documents; the text is made once (seeded), tokenization happens per fetch."""

    def __init__(self, n, latency, seed=1234):
        self.latency = latency
        words = make_vocab()
        self.stoi = {w: i + 2 for i, w in enumerate(words[:KNOWN])}
        rng = random.Random(seed)
        topic_words = [words[t * 600:(t + 1) * 600] for t in range(TOPICS)]
        self.docs, self.labels = [], []
        for _ in range(n):
            t = rng.randrange(TOPICS)
            toks = []
            for _ in range(rng.randint(60, 120)):
                w = rng.choice(topic_words[t]) if rng.random() < 0.4 else rng.choice(words)
                if rng.random() < 0.1:
                    w = w.capitalize()
                if rng.random() < 0.08:
                    w += rng.choice(",.;!?")
                toks.append(w)
            self.docs.append(" ".join(toks))
            self.labels.append(t)

    def __len__(self):
        return len(self.docs)

    def tokenize(self, text):
        ws = text.lower().translate(_PUNCT).split()
        ids = [self.stoi.get(w, UNK) for w in ws]
        base = KNOWN + 2
        ids += [base + (hash((a, b)) % BIGRAM_BUCKETS) for a, b in zip(ids, ids[1:])]
        ids = ids[:SEQ_LEN]
        ids += [PAD] * (SEQ_LEN - len(ids))
        return torch.tensor(ids, dtype=torch.long)

    def __getitem__(self, i):
        time.sleep(self.latency)  # emulated storage
        return self.tokenize(self.docs[i]), self.labels[i]


class BagClassifier(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.emb = nn.Embedding(KNOWN + 2 + BIGRAM_BUCKETS, dim, padding_idx=PAD)
        self.fc = nn.Linear(dim, TOPICS)

    def forward(self, x):
        mask = (x != PAD).unsqueeze(-1).float()
        pooled = (self.emb(x) * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.fc(pooled)


def train(rank, a):
    wl.join_spawned(rank, WORLD, a.port)
    rec = wl.recorder(a.out)  # after init_process_group (collective)
    latency = wl.slowed(LATENCY_S * a.latency_scale, rank, a.slow_rank, a.slow_factor)
    ds = TextDataset(a.batches * a.batch * WORLD, latency)
    sampler, loader = wl.sampled_loader(ds, rank, WORLD, 3, a.batch, a.workers,
                                        dict(persistent_workers=True, prefetch_factor=4), rec=rec)
    model, opt = wl.ddp_model(BagClassifier, 0, lr=0.5)
    t0 = time.time()
    steps, correct, seen = 0, 0, 0
    for epoch in wl.epochs(a.epochs, sampler, rec):
        for x, y in loader:
            opt.zero_grad()
            out = model(x)
            loss = F.cross_entropy(out, y)
            loss.backward()
            opt.step()
            steps += 1
            if epoch == a.epochs - 1:
                correct += (out.argmax(1) == y).sum().item()
                seen += len(y)
    wl.finish(rank, steps, t0, loss, more=", last-epoch acc %.2f" % (correct / max(seen, 1)))


def bench_item(a):
    torch.set_num_threads(1)
    ds = TextDataset(2000, LATENCY_S * a.latency_scale)
    for name, f in (("__getitem__", ds.__getitem__), ("tokenize only", lambda i: ds.tokenize(ds.docs[i]))):
        print("%-14s wall %.3f ms  cpu %.3f ms per sample" % ((name,) + wl.time_items(f, 1000)))


def main():
    p = wl.options(argparse.ArgumentParser(description=__doc__.split("\n")[0]), workers=1, latency_scale=1.0,
                   slow_rank=-1, slow_factor=1.0, out=(None, wl.RECORD_PREFIX), batch=32,
                   batches=(60, wl.PER_RANK), epochs=2, port=29853,
                   bench_item=(False, "time __getitem__ and tokenize, then exit"))
    wl.spawn_or_bench(p, train, WORLD, bench_item, "bench_item")


if __name__ == "__main__":
    main()
