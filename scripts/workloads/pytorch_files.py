"""pytorch_files.py - a new user's DDP job (datasets/pytorch-files): 3 ranks, gloo, CPU.
Each sample reads one file of 20-60 KB of random bytes (the page cache once read) and does
about 0.6 ms of numpy work on it (block means and deviations, a sort); one rank can sleep
longer per sample (--slow-rank, --slow-sleep). Step: a 3-layer MLP, no emulated accelerator.
Persistent workers, a DistributedSampler with shuffle, batch 16, 125 batches per rank.
Run with /usr/bin/python3: pytorch_files.py --workers W --out PREFIX [--data DIR]
(records PREFIX.*.csv; DIR, made on the first run, holds the 2000 files)."""
import argparse, os, time
import numpy as np
import workload as wl

a = wl.options(argparse.ArgumentParser(), workers=2, prefetch=2, out=wl.REQUIRED, data="/tmp/stallsim-files-data",
               nproc=3, epochs=2, slow_rank=(2, "this rank's samples sleep --slow-sleep more (-1: none)"),
               slow_sleep=0.004).parse_args()

FILES = 2000

if "RANK" not in os.environ:
    if not os.path.isdir(a.data) or len(os.listdir(a.data)) != FILES:
        os.makedirs(a.data, exist_ok=True)
        rng = np.random.default_rng(1)
        for i in range(FILES):
            n = int(rng.integers(20 * 1024, 60 * 1024 + 1))
            with open(os.path.join(a.data, "s%05d.bin" % i), "wb") as f:
                f.write(rng.integers(0, 256, n, dtype=np.uint8).tobytes())
    wl.launch_or_join(__file__, a.nproc)  # the ranks, each this script with RANK set

import torch, torch.nn as nn, torch.distributed as dist
rank, world = wl.ddp_launch.join()


class Files(torch.utils.data.Dataset):
    """Every file three times over (6000 samples): 125 batches of 16 per rank on 3 ranks."""
    def __init__(self, slow):
        self.paths = sorted(os.path.join(a.data, n) for n in os.listdir(a.data))
        self.slow = slow

    def __len__(self):
        return 3 * len(self.paths)

    def __getitem__(self, i):
        with open(self.paths[i % len(self.paths)], "rb") as f:
            raw = f.read()
        x = np.frombuffer(raw, dtype=np.uint8).astype(np.float32)
        blocks = x[: x.size // 64 * 64].reshape(-1, 64)
        feat = np.concatenate([blocks.mean(0), blocks.std(0)])
        feat += np.sort(x[:16384])[::128][:128] * 1e-3
        if self.slow:
            time.sleep(a.slow_sleep)
        return torch.from_numpy(feat / 255.0), raw[0] % 10


ds = Files(rank == a.slow_rank)
sampler, loader = wl.sampled_loader(ds, rank, world, 0, 16, a.workers,
                                    dict(prefetch_factor=a.prefetch, persistent_workers=True))
rec = wl.recorder(a.out)
loader = rec.wrap(loader)

model, opt = wl.ddp_model(lambda: nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                                                nn.Linear(256, 10)), 0, lr=0.01)
t0 = time.time()
wl.run_epochs(a.epochs, sampler, rec, loader, model, opt)
rec.close()
if rank == 0:
    print("pytorch_files: %d ranks, %d workers, %d epochs in %.1f s" % (world, a.workers, a.epochs, time.time() - t0))
dist.destroy_process_group()
