#!/usr/bin/python3
"""pytorch_fft.py - a new user's 3-rank DDP job (gloo, CPU), written for a real-run check of
stallsim's predictions (datasets/pytorch-fft): each sample waits --storage-ms (emulated
storage; --slow-rank's --slow-factor times longer) and then does real numpy work (flips,
rolls, a 2-D FFT band-stop and its inverse, twice, on a 64x64 array); each step trains a
small conv net (its all-reduce) and then waits --step-sleep-ms (emulated accelerator).
Non-persistent workers, recorded with stallsim_record.

    /usr/bin/python3 scripts/workloads/pytorch_fft.py --prefix raw/base1/run [--workers W] [--prefetch P]
        [--storage-ms S] [--slow-rank R (-1: none)]

Without RANK in the environment it starts --nproc ranks on this machine itself.
"""
import argparse, os, sys, time, subprocess, warnings
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

p = argparse.ArgumentParser()
p.add_argument("--workers", type=int, default=2)
p.add_argument("--prefetch", type=int, default=2)
p.add_argument("--storage-ms", type=float, default=3.0)
p.add_argument("--slow-rank", type=int, default=1)      # -1: none
p.add_argument("--slow-factor", type=float, default=3.0)
p.add_argument("--epochs", type=int, default=2)
p.add_argument("--batches", type=int, default=120)
p.add_argument("--batch-size", type=int, default=16)
p.add_argument("--step-sleep-ms", type=float, default=35.0)
p.add_argument("--nproc", type=int, default=3)
p.add_argument("--port", type=int, default=29517)
p.add_argument("--prefix", required=True)
args = p.parse_args()

if "RANK" not in os.environ:
    procs = []
    for r in range(args.nproc):
        env = dict(os.environ, RANK=str(r), WORLD_SIZE=str(args.nproc), MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=str(args.port), OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        procs.append(subprocess.Popen([sys.executable, os.path.abspath(__file__)] + sys.argv[1:], env=env))
    rc = [q.wait() for q in procs]
    sys.exit(max(rc))

import numpy as np
import torch, torch.nn as nn, torch.distributed as dist
import torch.utils.data as tud
import stallsim_record
warnings.filterwarnings("ignore", message="This DataLoader will create")
torch.set_num_threads(1)
rank = int(os.environ["RANK"]); world = int(os.environ["WORLD_SIZE"])
dist.init_process_group("gloo", rank=rank, world_size=world)

class FFTData(tud.Dataset):
    def __init__(self, n, wait_s):
        self.n = n; self.wait_s = wait_s
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        time.sleep(self.wait_s)                       # emulated storage read
        rng = np.random.default_rng(i)
        x = rng.standard_normal((64, 64)).astype(np.float32)
        for _ in range(2):                            # real CPU work: augmentation + spectral filter
            if rng.random() < 0.5: x = x[:, ::-1]
            x = np.roll(x, int(rng.integers(0, 8)), axis=0)
            f = np.fft.fft2(x)
            f[16:48, 16:48] = 0
            x = np.real(np.fft.ifft2(f)).astype(np.float32)
        x = (x - x.mean()) / (x.std() + 1e-6)
        return torch.from_numpy(np.ascontiguousarray(x)).reshape(1, 64, 64), int(i % 10)

def winit(_):
    torch.set_num_threads(1)

wait = args.storage_ms / 1000.0 * (args.slow_factor if rank == args.slow_rank else 1.0)
n = args.batches * args.batch_size * world
ds = FFTData(n, wait)
sampler = tud.distributed.DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, seed=0)
kw = dict(batch_size=args.batch_size, sampler=sampler, num_workers=args.workers, pin_memory=False,
          persistent_workers=False, worker_init_fn=winit if args.workers > 0 else None, drop_last=True)
if args.workers > 0:
    kw["prefetch_factor"] = args.prefetch
loader = tud.DataLoader(ds, **kw)

model = nn.Sequential(nn.Conv2d(1,8,3,stride=2), nn.ReLU(), nn.Conv2d(8,16,3,stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(4), nn.Flatten(), nn.Linear(256,64), nn.ReLU(), nn.Linear(64,10))
ddp = nn.parallel.DistributedDataParallel(model)
opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
lossf = nn.CrossEntropyLoss()

rec = stallsim_record.Recorder(args.prefix)
loader = rec.wrap(loader)
t0 = time.time()
for ep in range(args.epochs):
    sampler.set_epoch(ep); rec.set_epoch(ep)
    for x, y in loader:
        out = ddp(x); loss = lossf(out, y)
        opt.zero_grad(); loss.backward(); opt.step()   # all-reduce
        time.sleep(args.step_sleep_ms / 1000.0)          # emulated accelerator
rec.close()
if rank == 0:
    print(f"done in {time.time()-t0:.1f}s", flush=True)
dist.destroy_process_group()
