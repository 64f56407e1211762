"""pytorch_spread.py - a new user's small DDP job (datasets/pytorch-spread): 2 ranks, gloo, CPU.
Each sample: a 2 ms sleep standing in for storage, then a few KB decompressed with zlib and
about 1 ms of numpy work. Step: 2 Linear layers after a 15 ms sleep (emulated accelerator).
Run with /usr/bin/python3: pytorch_spread.py --workers W --out PREFIX (records PREFIX.*.csv)."""
import argparse, os, sys, time, zlib
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import numpy as np

p = argparse.ArgumentParser()
p.add_argument("--workers", type=int, default=2)
p.add_argument("--prefetch", type=int, default=2)
p.add_argument("--out", required=True)
p.add_argument("--nproc", type=int, default=2)
p.add_argument("--epochs", type=int, default=2)
p.add_argument("--batches", type=int, default=120)
p.add_argument("--bs", type=int, default=16)
a = p.parse_args()

if "RANK" not in os.environ:
    import ddp_launch
    sys.exit(ddp_launch.launch(__file__, a.nproc))

import torch, torch.nn as nn, torch.distributed as dist
import ddp_launch
import stallsim_record
rank, world = ddp_launch.join()

class Blobs(torch.utils.data.Dataset):
    def __init__(self, n):
        self.n = n
        rng = np.random.default_rng(0)
        base = rng.integers(0, 16, 8192, dtype=np.uint8)   # compressible
        self.blobs = [zlib.compress((base + i).tobytes(), 6) for i in range(64)]
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        time.sleep(0.002)                                  # storage latency
        raw = zlib.decompress(self.blobs[i % 64])
        x = np.frombuffer(raw, dtype=np.uint8).astype(np.float32)
        for _ in range(20):                                # ~1 ms of CPU per sample
            x = np.sqrt(x * 1.0001 + 1.0)
            y = np.fft.rfft(x)
        return torch.from_numpy(y.real[:256].astype(np.float32)), i % 10

ds = Blobs(a.batches * a.bs * world)
sampler = torch.utils.data.distributed.DistributedSampler(ds, world, rank, shuffle=True)
kw = dict(prefetch_factor=a.prefetch, persistent_workers=True) if a.workers > 0 else {}
loader = torch.utils.data.DataLoader(ds, batch_size=a.bs, sampler=sampler, num_workers=a.workers, **kw)
rec = stallsim_record.Recorder(a.out)
loader = rec.wrap(loader)

model = nn.parallel.DistributedDataParallel(nn.Sequential(nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
lossf = nn.CrossEntropyLoss()
t0 = time.time()
for ep in range(a.epochs):
    sampler.set_epoch(ep)
    rec.set_epoch(ep)
    for x, y in loader:
        time.sleep(0.015)                                  # accelerator
        opt.zero_grad()
        lossf(model(x), y).backward()
        opt.step()
if rank == 0:
    print(f"workers={a.workers} wall={time.time()-t0:.2f}s", flush=True)
dist.destroy_process_group()
