"""pytorch_eval.py - a DDP (gloo, CPU) training job with an evaluation pass after every epoch,
as most training scripts have: two DataLoaders of the same settings (workers, prefetch,
persistence), each recorded by a stallsim_record Recorder of its own prefix (PREFIX for the
training loader, PREFIX-eval for the evaluation one). Used by datasets/pytorch-eval.

    /usr/bin/python3 scripts/workloads/pytorch_eval.py --nproc 2 --workers 1 --out runs/w1/run

Each sample waits --latency seconds (the storage), then spends --decode seconds of CPU. A
training step waits --compute seconds (the emulated accelerator) and runs a small model's
forward and backward pass with DDP's all-reduce; an evaluation step waits --eval-compute
seconds and runs the forward pass alone. Both samplers are DistributedSamplers (the
evaluation one unshuffled); drop_last=False, so the last batch of a pass may be short.
Rank 0 prints the job's wall time: from before the first epoch's iter(loader) to the end of
the last evaluation pass. With --eval-rank0, rank 0 alone evaluates, as many scripts do, and
the other ranks wait for it in the next epoch's first all-reduce. With --slow-rank R, rank R's
training shard sits on slower storage (--slow-factor times --latency per sample).
"""

import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.utils.data as tud

import workload as wl
from pytorch_bench import FEATURES, SlowStorage


def parse():
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    wl.options(ap, nproc=(0, "start this many ranks here (0: be one rank)"),
               out=(None, "record PREFIX (and PREFIX-eval; no recording when absent)"), workers=1, prefetch=2,
               batch=16, iterations=(80, "training samples per rank / batch: batches per epoch per rank"),
               eval_iterations=(20, "evaluation batches per epoch per rank"), epochs=3,
               latency=(0.004, "seconds of storage latency per sample"),
               decode=(0.0005, "seconds of CPU work per sample after the storage latency"),
               compute=(0.020, "seconds of emulated accelerator time per training step"),
               eval_compute=(0.008, "seconds of emulated accelerator time per evaluation step"),
               persistent=(False, "persistent_workers=True on both loaders"),
               slow_rank=(-1, "this rank's training samples wait --slow-factor times --latency (its shard on slower "
                              "storage; its evaluation loader reads at --latency)"),
               slow_factor=(3.0, "the factor of --slow-rank"),
               eval_rank0=(False, "rank 0 alone evaluates (the whole evaluation set, --eval-iterations x ranks "
                                  "batches, no DistributedSampler), recorded with Recorder(PREFIX-eval, world_size=1); "
                                  "the other ranks go on to the next epoch and wait for it in its first all-reduce"))
    return ap.parse_args()


def main():
    a = parse()
    rank, world = wl.launch_or_join(__file__, a.nproc)
    rec = wl.recorder(a.out)
    evaluates = rank == 0 or not a.eval_rank0
    if a.eval_rank0 and rank == 0 and a.out:
        import stallsim_record
        rec_eval = stallsim_record.Recorder(a.out + "-eval", world_size=1)
    else:
        rec_eval = wl.recorder(a.out + "-eval" if a.out and not a.eval_rank0 else None)
    # a few samples more than whole batches: the last batch of each pass is short
    train_ds = SlowStorage(a.iterations * a.batch * world - world * 5,
                           a.latency * (a.slow_factor if rank == a.slow_rank else 1.0), a.decode)
    eval_ds = SlowStorage(a.eval_iterations * a.batch * world - world * 3, a.latency, a.decode)
    kw = dict(prefetch_factor=a.prefetch, persistent_workers=a.persistent)
    sampler, loader = wl.sampled_loader(train_ds, rank, world, 1, a.batch, a.workers, kw, drop_last=False, rec=rec)
    eval_sampler = (tud.SequentialSampler(eval_ds) if a.eval_rank0 else
                    tud.distributed.DistributedSampler(eval_ds, num_replicas=world, rank=rank, shuffle=False))
    eval_loader = tud.DataLoader(eval_ds, batch_size=a.batch, sampler=eval_sampler, num_workers=a.workers,
                                 drop_last=False, **(kw if a.workers > 0 else {}))
    eval_loader = rec_eval.wrap(eval_loader)
    model, opt = wl.ddp_model(lambda: nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, 10)), 1,
                              lr=0.01)
    lossf = nn.CrossEntropyLoss()
    dist.barrier()
    t0 = time.time()
    for epoch in wl.epochs(a.epochs, sampler, rec):
        model.train()
        for x, y in loader:
            time.sleep(a.compute)  # the emulated accelerator
            opt.zero_grad()
            lossf(model(x), y).backward()  # the all-reduce synchronises the ranks
            opt.step()
        if not evaluates:
            continue
        rec_eval.set_epoch(epoch)
        model.eval()
        correct = torch.zeros(1)
        with torch.no_grad():
            for x, y in eval_loader:
                time.sleep(a.eval_compute)
                correct += (model.module(x) if a.eval_rank0 else model(x)).argmax(1).eq(y).sum()
        if not a.eval_rank0:
            dist.all_reduce(correct)  # the evaluation's result, as a real script gathers it
    dist.barrier()
    wall = time.time() - t0
    rec.close()
    rec_eval.close()
    if rank == 0:
        print("pytorch_eval: %d ranks, %d workers%s, %d epochs x %d batches, %d evaluation batches each, in %.3f s" %
              (world, a.workers, " (persistent)" if a.persistent else "", a.epochs, len(loader), len(eval_loader),
               wall), file=sys.stderr)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
