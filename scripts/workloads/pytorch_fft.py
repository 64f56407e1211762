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
import argparse, os, sys, time, subprocess
import workload as wl

p = wl.options(argparse.ArgumentParser(), workers=2, prefetch=2, storage_ms=3.0,
               slow_rank=1,  # -1: none
               slow_factor=3.0, epochs=2, batches=120, batch_size=16, step_sleep_ms=35.0, nproc=3, port=29517,
               prefix=wl.REQUIRED)
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
rank, world = wl.ddp_launch.join()  # RANK and WORLD_SIZE from the launcher above

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

wait = wl.slowed(args.storage_ms / 1000.0, rank, args.slow_rank, args.slow_factor)
n = args.batches * args.batch_size * world
ds = FFTData(n, wait)
sampler, loader = wl.sampled_loader(ds, rank, world, 0, args.batch_size, args.workers,
                                    dict(prefetch_factor=args.prefetch, worker_init_fn=winit))

def net():
    return nn.Sequential(nn.Conv2d(1,8,3,stride=2), nn.ReLU(), nn.Conv2d(8,16,3,stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(4), nn.Flatten(), nn.Linear(256,64), nn.ReLU(), nn.Linear(64,10))

ddp, opt = wl.ddp_model(net, None, lr=0.01)  # torch's generator unseeded, as recorded

rec = wl.recorder(args.prefix)
loader = rec.wrap(loader)
t0 = time.time()
wl.run_epochs(args.epochs, sampler, rec, loader, ddp, opt,             # a step (all-reduce), then
              accel=args.step_sleep_ms / 1000.0, accel_after=True)     # the emulated accelerator
rec.close()
if rank == 0:
    print(f"done in {time.time()-t0:.1f}s", flush=True)
dist.destroy_process_group()
