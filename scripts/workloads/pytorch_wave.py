"""pytorch_wave.py - a new user's own workload (datasets/pytorch-wave) for checking stallsim's predictions.

4 DDP ranks (gloo, CPU) on this machine, started as subprocesses (no torchrun).
Dataset "WaveImages": sample i is a 48x48 synthetic 'sensor frame' made from a seeded RNG;
__getitem__ sleeps LAT seconds (emulated storage) then does real numpy CPU work:
a 2-D FFT band-pass filter, inverse FFT, log-magnitude spectrum features, random crop 40x40
and flip, per-image standardisation. Training step: a small conv+MLP model forward/backward
(DDP all-reduce) plus time.sleep(STEP) as an emulated accelerator.

  /usr/bin/python3 scripts/workloads/pytorch_wave.py --nproc 4 --workers 8 --prefetch 4 --out runs/w8p4/run

then `stallsim import pytorch runs/w8p4/run -o w8p4.h5` (datasets/pytorch-wave/README.md).
"""
import argparse
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.utils.data as tud

import workload as wl

SIDE, CROP = 48, 40


class WaveImages(tud.Dataset):
    def __init__(self, n, latency):
        self.n, self.latency = n, latency
        fy = np.fft.fftfreq(SIDE)[:, None]
        fx = np.fft.rfftfreq(SIDE)[None, :]
        r = np.sqrt(fx * fx + fy * fy)
        self.band = ((r > 0.03) & (r < 0.3)).astype(np.float32)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        time.sleep(self.latency)  # emulated storage read
        rng = np.random.default_rng(i)
        img = rng.standard_normal((SIDE, SIDE)).astype(np.float32)
        img += np.sin(np.arange(SIDE, dtype=np.float32) * (0.1 + (i % 7) * 0.05))[None, :]
        out = np.zeros((2, CROP, CROP), np.float32)
        for rep in range(9):  # nine filter passes (~CPU budget)
            spec = np.fft.rfft2(img)
            img = np.fft.irfft2(spec * self.band, s=img.shape).astype(np.float32)
            mag = np.log1p(np.abs(np.fft.fft2(img)))
        y0, x0 = rng.integers(0, SIDE - CROP, 2)
        a = img[y0:y0 + CROP, x0:x0 + CROP]
        b = np.fft.fftshift(mag)[y0:y0 + CROP, x0:x0 + CROP]
        if rng.random() < 0.5:
            a, b = a[:, ::-1], b[:, ::-1]
        out[0] = (a - a.mean()) / (a.std() + 1e-6)
        out[1] = (b - b.mean()) / (b.std() + 1e-6)
        return torch.from_numpy(out), int(i % 10)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 5, stride=4)
        self.fc = nn.Linear(4 * 9 * 9, 10)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).flatten(1))


def parse():
    return wl.options(argparse.ArgumentParser(), nproc=0, out=None, workers=2, prefetch=2, batch=8, iterations=100,
                      epochs=2, latency=0.003, step=0.015, bench_sample=False).parse_args()


def main():
    a = parse()
    if a.bench_sample:
        ds = WaveImages(1000, 0.0)
        for i in range(50):
            ds[i]
        t = time.thread_time()
        for i in range(500):
            ds[i]
        print("CPU per sample: %.3f ms" % ((time.thread_time() - t) / 500 * 1e3))
        return 0
    rank, world = wl.launch_or_join(__file__, a.nproc)
    rec = wl.recorder(a.out)
    ds = WaveImages(a.iterations * a.batch * world, a.latency)
    sampler, loader = wl.sampled_loader(ds, rank, world, 7, a.batch, a.workers, dict(prefetch_factor=a.prefetch),
                                        rec=rec)
    model, opt = wl.ddp_model(Net, 0, lr=0.01)
    t0 = time.time()
    wl.run_epochs(a.epochs, sampler, rec, loader, model, opt, accel=a.step, accel_after=True)  # emulated accelerator
    rec.close()
    dist.barrier()
    if rank == 0:
        print("pytorch_wave: %d ranks, w%d p%d, %d epochs x %d batches in %.1f s" %
              (world, a.workers, a.prefetch, a.epochs, len(loader), time.time() - t0), file=sys.stderr)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
