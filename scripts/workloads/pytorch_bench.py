"""pytorch_bench.py - a small DDP (gloo, CPU) training job whose dataset emulates storage
latency per sample and whose step emulates accelerator time with a timed wait (as the DLIO
benchmark does), recorded with stallsim_record. Used by scripts/validation/validate_pytorch.sh
and tests/cli/cli_pytorch.sh.

    /usr/bin/python3 scripts/workloads/pytorch_bench.py --nproc 4 --workers 2 --out runs/base/run

--nproc N starts N ranks on this machine (RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT in their
environment); without it the script is one rank of a job started by another launcher
(torchrun; mpirun or srun on one host: the rank comes from their environment variables).
"""

import argparse
import warnings
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.utils.data as tud

import workload as wl

FEATURES = 32
# rounds of work() per second of one core's CPU time on the machine that recorded the grids;
# --fixed-work spends seconds x WORK_RATE rounds, so a slower machine takes longer
WORK_RATE = 2.0e6


def work(rounds):
    """A fixed count of rounds of CPU work in this thread."""
    acc = 0
    for _ in range(rounds):
        acc += sum(range(200))
    return acc


def busy(seconds, fixed):
    """Spends seconds of this thread's CPU time, or with fixed its count of work rounds."""
    if fixed:
        work(int(round(seconds * WORK_RATE)))
        return
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        sum(range(200))


class SlowStorage(tud.Dataset):
    """Sample i is a deterministic tensor; reading it takes `latency` seconds of waiting
    (the storage) and then `decode` seconds of this thread's CPU (decoding, augmenting), or
    with `fixed` a fixed count of work rounds that take about that long."""

    def __init__(self, n, latency, decode=0.0, fixed=False):
        self.n, self.latency, self.decode, self.fixed = n, latency, decode, fixed

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.latency > 0:
            time.sleep(self.latency)
        if self.decode > 0:
            busy(self.decode, self.fixed)
        x = torch.arange(FEATURES, dtype=torch.float32) * 0.01 + i * 0.001
        return x, torch.tensor(i % 10)


def parse():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    wl.options(ap, nproc=(0, "start this many ranks here (0: be one rank)"),
               out=(None, "record PREFIX (no recording when absent)"), workers=2, prefetch=2, batch=12,
               iterations=(150, wl.PER_RANK), epochs=2, latency=(0.006, "seconds of storage latency per sample"),
               decode=(0.0, "seconds of CPU work per sample after the storage latency (not scaled by --slow-factor)"),
               compute=(0.015, "seconds of emulated accelerator time per step"),
               compute_cpu=(False, "spend --compute seconds of the training process's CPU per step instead of waiting"),
               fixed_work=(False, "decode, and with --compute-cpu compute, by a fixed count of work rounds (about "
                           "that many seconds on the machine that recorded the grids) instead of a fixed CPU time, "
                           "so that a slower machine takes longer"))
    ap.add_argument("--slow-rank", default="-1",
                    help="this rank's storage is --slow-factor times slower; several: 1,3 (each its own factor, or one "
                         "for all)")
    ap.add_argument("--slow-factor", default="3.0", help="the factor, or one per slow rank: 3,2")
    ap.add_argument("--slowdown", default="",
                    help="FROM:TO:FACTOR: the steps FROM <= s < TO of the run (counted over its epochs from 0) "
                         "take FACTOR times --compute (a mid-run slowdown of the accelerator)")
    ap.add_argument("--persistent", action="store_true", help="persistent_workers=True")
    ap.add_argument("--dump", help="save the batches this rank received to DUMP.rank<R>.pt")
    ap.add_argument("--dump-plain", help="first iterate the same loader without the recorder (no training) and "
                    "save its batches to DUMP_PLAIN.rank<R>.pt")
    ap.add_argument("--seed", type=int, default=1)
    return ap.parse_args()


def main():
    a = parse()
    if a.nproc:
        return wl.ddp_launch.launch(__file__, a.nproc)
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore", message="This DataLoader will create")  # more workers than cores, on purpose
    wl.ddp_launch.rank_env()  # mpirun, srun: the rank from their variables, one host
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    rec = wl.recorder(a.out)
    slow = [int(x) for x in a.slow_rank.split(",")]
    factors = [float(x) for x in a.slow_factor.split(",")]
    if len(factors) not in (1, len(slow)):
        raise SystemExit("pytorch_bench: --slow-factor gives %d factors for %d slow ranks" % (len(factors), len(slow)))
    factor = dict(zip(slow, factors * len(slow) if len(factors) == 1 else factors))
    latency = a.latency * factor.get(rank, 1.0)
    ds = SlowStorage(a.iterations * a.batch * world, latency, a.decode, a.fixed_work)
    kw = dict(prefetch_factor=a.prefetch, persistent_workers=a.persistent)

    if a.dump_plain:
        torch.manual_seed(a.seed)
        sampler, loader = wl.sampled_loader(ds, rank, world, a.seed, a.batch, a.workers, kw)
        plain = []
        for epoch in range(a.epochs):
            sampler.set_epoch(epoch)
            plain += [(x.clone(), y.clone()) for x, y in loader]
        torch.save(plain, "%s.rank%d.pt" % (a.dump_plain, rank))
        del loader
    sampler, loader = wl.sampled_loader(ds, rank, world, a.seed, a.batch, a.workers, kw, rec=rec)
    model, opt = wl.ddp_model(lambda: nn.Linear(FEATURES, 10), a.seed, lr=0.01)
    lossf = nn.CrossEntropyLoss()
    seen = []
    slow_from, slow_to, slow_factor = 0, 0, 1.0
    if a.slowdown:
        try:
            f, t, k = a.slowdown.split(":")
            slow_from, slow_to, slow_factor = int(f), int(t), float(k)
        except ValueError:
            raise SystemExit("pytorch_bench: --slowdown %r is not FROM:TO:FACTOR" % a.slowdown)
    step = 0
    t0 = time.time()
    for epoch in wl.epochs(a.epochs, sampler, rec):
        for x, y in loader:
            compute = a.compute * (slow_factor if slow_from <= step < slow_to else 1.0)
            step += 1
            if a.dump:
                seen.append((x.clone(), y.clone()))
            if a.compute_cpu:  # a step that keeps the training process's CPU busy (training on the CPU)
                busy(compute, a.fixed_work)
            else:
                time.sleep(compute)  # the emulated accelerator
            opt.zero_grad()
            lossf(model(x), y).backward()  # the all-reduce synchronises the ranks
            opt.step()
    rec.close()
    if a.dump:
        torch.save(seen, "%s.rank%d.pt" % (a.dump, rank))
    dist.barrier()
    if rank == 0:
        print("pytorch_bench: %d ranks, %d workers, %d epochs x %d batches in %.1f s" %
              (world, a.workers, a.epochs, len(loader), time.time() - t0), file=sys.stderr)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
