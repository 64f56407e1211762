"""pytorch_spectra.py - a DDP (gloo, CPU) workload with CPU work in the loader and in the
training step, recorded with stallsim_record; written by a helper session as a new user's
own workload (datasets/pytorch-spectra).

Each sample: sleep a lognormal "storage" latency (median 2 ms, sigma 0.3, seeded by the
sample index), then ~1 ms of numpy CPU work (a 64x64 FFT and a few 64x64 matmuls).
Each step: ~5 ms of numpy host-side CPU work in the training process, 20 ms sleep
(emulated accelerator), then a tiny MLP forward/backward with the DDP all-reduce.

    /usr/bin/python3 scripts/workloads/pytorch_spectra.py --nproc 3 --workers 2 --out runs/base/run

--nproc N: launch N ranks as subprocesses (MASTER_ADDR/MASTER_PORT), wait for them and
print the job's CPU time and the other processes' CPU share (from /proc/stat).
"""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse
import json
import resource
import sys
import time

import numpy as np

import workload as wl


def parse():
    return wl.options(argparse.ArgumentParser(), nproc=0, out=None, workers=2, prefetch=2, batch=16,
                      iterations=(100, "batches per rank per epoch"), epochs=2,
                      median=(0.002, "median storage latency per sample (s)"), sigma=0.3,
                      latency_scale=(1.0, "multiply every rank's latency"), slow_rank=-1, slow_factor=3.0,
                      sample_mm=(12, "64x64 matmuls per sample (CPU work)"),
                      step_mm=(9, "128x128 matmuls per step (host CPU work)"),
                      accel=(0.020, "emulated accelerator sleep per step (s)"), seed=7).parse_args()


# ---------------------------------------------------------------- launcher
def cpu_busy_jiffies():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]
    return sum(v[:8]) - idle, sum(v[:8])


def launch(a):
    hz = os.sysconf("SC_CLK_TCK")
    b0, t0 = cpu_busy_jiffies()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.time()
    rc = wl.ddp_launch.launch(__file__, a.nproc)
    w1 = time.time()
    b1, t1 = cpu_busy_jiffies()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    job = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
    busy = (b1 - b0) / hz
    total = (t1 - t0) / hz
    info = dict(wall_s=round(w1 - w0, 2), busy_cpu_s=round(busy, 2), job_cpu_s=round(job, 2),
                others_cpu_s=round(busy - job, 2),
                others_share_pct=round(100 * (busy - job) / total, 1) if total else None,
                machine_busy_pct=round(100 * busy / total, 1) if total else None,
                rc=rc)
    print("CPU " + json.dumps(info), flush=True)
    if a.out:
        with open(a.out + ".cpu.json", "w") as f:
            json.dump(info, f)
    return info["rc"]


# ---------------------------------------------------------------- one rank
def main():
    a = parse()
    if a.nproc:
        return launch(a)

    import torch
    import torch.distributed as dist
    import torch.nn as nn
    import torch.utils.data as tud

    torch.set_num_threads(1)

    class SpectraDataset(tud.Dataset):
        def __init__(self, n, median, sigma, scale, seed, mm):
            self.n, self.median, self.sigma, self.scale, self.seed, self.mm = n, median, sigma, scale, seed, mm

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            rng = np.random.default_rng(self.seed * 1000003 + i)
            lat = self.median * np.exp(self.sigma * rng.standard_normal()) * self.scale
            time.sleep(lat)
            x = rng.standard_normal((64, 64))
            y = np.abs(np.fft.fft2(x)) / 64.0
            for _ in range(self.mm):
                y = np.tanh(y @ x * 0.05)
            feat = torch.from_numpy(y[:4].reshape(-1)[:32].astype(np.float32))
            return feat, int(i % 10)

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    rec = wl.recorder(a.out)
    scale = wl.slowed(a.latency_scale, rank, a.slow_rank, a.slow_factor)
    ds = SpectraDataset(a.iterations * a.batch * world, a.median, a.sigma, scale, a.seed, a.sample_mm)
    sampler, loader = wl.sampled_loader(ds, rank, world, a.seed, a.batch, a.workers,
                                        dict(prefetch_factor=a.prefetch, persistent_workers=False), rec=rec)

    model, opt = wl.ddp_model(lambda: nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10)), a.seed, lr=0.01)
    host = np.random.default_rng(rank).standard_normal((128, 128))
    t0 = time.time()
    n = 0
    for epoch in wl.epochs(a.epochs, sampler, rec):
        for x, y in loader:
            h = host  # ~5 ms host-side CPU work
            for _ in range(a.step_mm):
                h = np.tanh(h @ host * 0.01)
            time.sleep(a.accel)  # emulated accelerator
            wl.train_step(model, opt, x, y)  # DDP all-reduce
            n += 1
    dt = time.time() - t0
    rec.close()
    if rank == 0:
        print("rank0: %d iterations in %.2f s (%.4f s/iter)" % (n, dt, dt / max(n, 1)), flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
