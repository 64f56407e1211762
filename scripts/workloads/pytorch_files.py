"""pytorch_files.py - a new user's DDP job (datasets/pytorch-files): 3 ranks, gloo, CPU.
Each sample reads one file of 20-60 KB of random bytes (the page cache once read) and does
about 0.6 ms of numpy work on it (block means and deviations, a sort); one rank can sleep
longer per sample (--slow-rank, --slow-sleep). Step: a 3-layer MLP, no emulated accelerator.
Persistent workers, a DistributedSampler with shuffle, batch 16, 125 batches per rank.
Run with /usr/bin/python3: pytorch_files.py --workers W --out PREFIX [--data DIR]
(records PREFIX.*.csv; DIR, made on the first run, holds the 2000 files)."""
import argparse, os, sys, time
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import numpy as np

p = argparse.ArgumentParser()
p.add_argument("--workers", type=int, default=2)
p.add_argument("--prefetch", type=int, default=2)
p.add_argument("--out", required=True)
p.add_argument("--data", default="/tmp/stallsim-files-data")
p.add_argument("--nproc", type=int, default=3)
p.add_argument("--epochs", type=int, default=2)
p.add_argument("--slow-rank", type=int, default=2, help="this rank's samples sleep --slow-sleep more (-1: none)")
p.add_argument("--slow-sleep", type=float, default=0.004)
a = p.parse_args()

FILES = 2000

if "RANK" not in os.environ:
    if not os.path.isdir(a.data) or len(os.listdir(a.data)) != FILES:
        os.makedirs(a.data, exist_ok=True)
        rng = np.random.default_rng(1)
        for i in range(FILES):
            n = int(rng.integers(20 * 1024, 60 * 1024 + 1))
            with open(os.path.join(a.data, "s%05d.bin" % i), "wb") as f:
                f.write(rng.integers(0, 256, n, dtype=np.uint8).tobytes())
    import ddp_launch
    sys.exit(ddp_launch.launch(__file__, a.nproc))

import torch, torch.nn as nn, torch.distributed as dist
import ddp_launch
import stallsim_record
rank, world = ddp_launch.join()


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


torch.manual_seed(0)
ds = Files(rank == a.slow_rank)
sampler = torch.utils.data.distributed.DistributedSampler(ds, world, rank, shuffle=True, seed=0)
kw = dict(prefetch_factor=a.prefetch, persistent_workers=True) if a.workers > 0 else {}
loader = torch.utils.data.DataLoader(ds, batch_size=16, sampler=sampler, num_workers=a.workers, drop_last=True, **kw)
rec = stallsim_record.Recorder(a.out)
loader = rec.wrap(loader)

model = nn.parallel.DistributedDataParallel(
    nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10)))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
lossf = nn.CrossEntropyLoss()
t0 = time.time()
for ep in range(a.epochs):
    sampler.set_epoch(ep)
    rec.set_epoch(ep)
    for x, y in loader:
        opt.zero_grad()
        lossf(model(x), y).backward()
        opt.step()
rec.close()
if rank == 0:
    print("pytorch_files: %d ranks, %d workers, %d epochs in %.1f s" % (world, a.workers, a.epochs, time.time() - t0))
dist.destroy_process_group()
