"""pytorch_spread.py - a new user's small DDP job (datasets/pytorch-spread): 2 ranks, gloo, CPU.
Each sample: a 2 ms sleep standing in for storage, then a few KB decompressed with zlib and
about 1 ms of numpy work. Step: 2 Linear layers after a 15 ms sleep (emulated accelerator).
Run with /usr/bin/python3: pytorch_spread.py --workers W --out PREFIX (records PREFIX.*.csv)."""
import argparse, os, time, zlib
import numpy as np
import workload as wl

a = wl.options(argparse.ArgumentParser(), workers=2, prefetch=2, out=wl.REQUIRED, nproc=2, epochs=2, batches=120,
               bs=16).parse_args()

if "RANK" not in os.environ:
    wl.launch_or_join(__file__, a.nproc)  # the ranks, each this script with RANK set

import torch, torch.nn as nn, torch.distributed as dist
rank, world = wl.ddp_launch.join()

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
sampler, loader = wl.sampled_loader(ds, rank, world, 0, a.bs, a.workers,
                                    dict(prefetch_factor=a.prefetch, persistent_workers=True), drop_last=False)
rec = wl.recorder(a.out)
loader = rec.wrap(loader)

model, opt = wl.ddp_model(lambda: nn.Sequential(nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)), None, lr=0.01)
t0 = time.time()
wl.run_epochs(a.epochs, sampler, rec, loader, model, opt, accel=0.015)  # accelerator
if rank == 0:
    print(f"workers={a.workers} wall={time.time()-t0:.2f}s", flush=True)
dist.destroy_process_group()
