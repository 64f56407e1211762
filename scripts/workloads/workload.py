"""workload.py - what the scripts/workloads/pytorch_*.py jobs share: starting or joining the
DDP job (gloo, CPU), its options, the rank's sampler and DataLoader, the model under DDP and
its SGD step, the epochs' loop, the recorder (or none), timing a dataset's items, and the
line rank 0 prints at the end.

Each job keeps its own dataset, model, settings and order of steps; these helpers spell once
what they do alike. torch is imported inside the helpers that use it, so that a job's
launcher (which only starts the ranks) does not load it.

A job given --out PREFIX (--prefix for pytorch_fft.py) wraps its DataLoader with
scripts/stallsim_record.py (this module puts scripts/ on sys.path), so each run writes
PREFIX.rank<R>.csv and PREFIX.rank<R>.worker<W>.csv; import them with
    build/stallsim import pytorch PREFIX -o run.h5
Run the jobs from the repository root with /usr/bin/python3 (Debian's python with torch).
"""
import os
import sys
import time

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # scripts/: the recorder, ddp_launch
if SCRIPTS not in sys.path:
    sys.path.insert(0, SCRIPTS)
import ddp_launch  # noqa: E402


# ---------------------------------------------------------------- the job's ranks
def launch_or_join(script, nproc):
    """With nproc: starts the job's nproc ranks on this machine (ddp_launch) and exits with
    their status. Without: this process is one rank of the job and joins it. Returns (rank,
    world size)."""
    if nproc:
        sys.exit(ddp_launch.launch(script, nproc))
    return ddp_launch.join()


def join_spawned(rank, world, port):
    """A rank that torch.multiprocessing.spawn started joins its job (on 127.0.0.1:port) as
    launch()'s ranks do. Returns (rank, world size)."""
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(world))
    return ddp_launch.join()


def barrier_time():
    """The ranks wait for each other (to start their first epoch together); returns the time."""
    import torch.distributed as dist
    dist.barrier()
    return time.time()


def spawn(train, a, nprocs):
    """Runs train(rank, a) in nprocs processes (torch.multiprocessing.spawn), --out's folder
    made first where --out is given."""
    import torch.multiprocessing as mp
    if a.out:
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    mp.spawn(train, args=(a,), nprocs=nprocs, join=True)


REQUIRED = object()  # the default of an option that must be given


def options(p, **opts):
    """Adds to the parser p an option --a-b for each keyword a_b=DEFAULT or a_b=(DEFAULT,
    HELP), in order: a flag where DEFAULT is False, a required string where it is REQUIRED,
    one given again and again (a list) where it is [], else a value of DEFAULT's type (a
    string where it is None). Returns p."""
    for name, opt in opts.items():
        default, text = opt if isinstance(opt, tuple) else (opt, None)
        flag = "--" + name.replace("_", "-")
        if default is False:
            p.add_argument(flag, action="store_true", help=text)
        elif default is REQUIRED:
            p.add_argument(flag, required=True, help=text)
        elif isinstance(default, list):
            p.add_argument(flag, action="append", default=default, help=text)
        else:
            p.add_argument(flag, type=None if default is None else type(default), default=default, help=text)
    return p


PER_RANK = "batches per epoch per rank"
RECORD_PREFIX = "record prefix (PREFIX.rank<R>.csv ...)"


def need_out(p, a):
    """argparse's error where --out is missing (a job that can also run without it: --bench)"""
    if not a.out:
        p.error("--out is required")


def spawn_or_bench(p, train, nprocs, bench, flag="bench"):
    """Parses p's options; with the option `flag` runs bench(options) alone, else the job of
    nprocs ranks (spawn(), --out required)."""
    a = p.parse_args()
    if getattr(a, flag):
        return bench(a)
    need_out(p, a)
    return spawn(train, a, nprocs)


def slowed(value, rank, slow_rank, factor):
    """value, times factor on the slow rank"""
    return value * (factor if rank == slow_rank else 1.0)


def per_rank(specs, rank, default, cast=float):
    """This rank's value in a list of "R:V" (the last that names it), else default."""
    for s in specs:
        r, v = s.split(":")
        if int(r) == rank:
            default = cast(v)
    return default


# ---------------------------------------------------------------- data, model, loop
class _NoRecorder:
    """Stands in for the recorder when a job records nothing."""

    def wrap(self, loader):
        return loader

    def set_epoch(self, epoch):
        pass

    def close(self):
        pass


def recorder(prefix):
    """stallsim_record's Recorder of PREFIX (after init_process_group: it is collective), or
    without a prefix one that records nothing."""
    if not prefix:
        return _NoRecorder()
    import stallsim_record
    return stallsim_record.Recorder(prefix)


def sampled_loader(ds, rank, world, seed, batch, workers, when_workers=None, drop_last=True, rec=None, **always):
    """The rank's shuffled DistributedSampler over ds and a DataLoader on it (batch, workers,
    drop_last, the keywords `always`, and those of `when_workers` where workers > 0), wrapped
    by the recorder rec where given. Returns (sampler, loader)."""
    import torch.utils.data as tud
    sampler = tud.distributed.DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, seed=seed)
    kw = dict(always, **(when_workers or {})) if workers > 0 else always
    loader = tud.DataLoader(ds, batch_size=batch, sampler=sampler, num_workers=workers, drop_last=drop_last, **kw)
    return sampler, (rec.wrap(loader) if rec is not None else loader)


def ddp_model(net, seed, lr, momentum=0.0):
    """torch.manual_seed(seed) (None: torch's generator left as it is), then net() under DDP
    and its SGD optimiser. Returns (model, optimiser)."""
    import torch
    if seed is not None:
        torch.manual_seed(seed)
    model = torch.nn.parallel.DistributedDataParallel(net())
    return model, torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)


def train_step(model, opt, x, y):
    """One SGD step on the cross-entropy of model(x) against y (the backward pass holds DDP's
    all-reduce). Returns the loss."""
    import torch.nn.functional as F
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss


def epochs(n, sampler, rec):
    """range(n), each epoch handed first to the sampler's and the recorder's set_epoch."""
    for epoch in range(n):
        sampler.set_epoch(epoch)
        rec.set_epoch(epoch)
        yield epoch


def run_epochs(n, sampler, rec, loader, model, opt, accel=None, accel_after=False, times=None, skip=0):
    """n epochs of train_step on each of loader's (x, y) batches, with a sleep of accel seconds
    (the emulated accelerator; none where None) before each step (after it: accel_after);
    with a list `times`, each iteration's loop-side time from batch `skip` of the epoch on
    appended to it (timed()). Returns (steps, the last loss)."""
    steps, loss = 0, None
    for _ in epochs(n, sampler, rec):
        for x, y in (loader if times is None else timed(loader, skip, times)):
            if accel is not None and not accel_after:
                time.sleep(accel)
            loss = train_step(model, opt, x, y)
            if accel is not None and accel_after:
                time.sleep(accel)
            steps += 1
    return steps, loss


def timed(loader, skip, times):
    """loader's batches; appends to times the loop-side time of each iteration (fetch and
    step) from batch `skip` of the epoch on."""
    last = time.perf_counter()
    for k, batch in enumerate(loader):
        yield batch
        now = time.perf_counter()
        if k >= skip:
            times.append(now - last)
        last = now


def finish(rank, steps, t0, loss, rec=None, **line):
    """The end of a rank: a barrier, rank 0's report (`line`: report's keywords), the recorder
    rec closed where given, the process group left."""
    import torch.distributed as dist
    dist.barrier()
    report(rank, steps, t0, loss, **line)
    if rec is not None:
        rec.close()
    dist.destroy_process_group()


# ---------------------------------------------------------------- what they print
def time_items(get, n):
    """(wall, CPU) milliseconds per call of get(i) over i = 0 .. n-1."""
    t, c = time.perf_counter(), time.process_time()
    for i in range(n):
        get(i)
    return (time.perf_counter() - t) * 1e3 / n, (time.process_time() - c) * 1e3 / n


def report(rank, steps, t0, loss, per="s/it", what="last loss", more="", flush=True):
    """On rank 0, the job's last line: the iterations since t0, their mean time, the loss (and
    `more`)."""
    if rank == 0:
        el = time.time() - t0
        print("rank0: %d iterations in %.2f s (%.4f %s), %s %.3f%s"
              % (steps, el, el / steps, per, what, loss.item(), more), flush=flush)
