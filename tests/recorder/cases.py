"""cases.py - the recorder in single-process setups a user meets, each against the same loop
without the recorder (run by tests/cli/cli_pytorch.sh): prints one line per case, "ok NAME" or
"FAIL NAME: why", and writes the recordings under OUT (argv[1]) for the shell to import.

    /usr/bin/python3 tests/recorder/cases.py OUT
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import torch  # noqa: E402
import torch.utils.data as tud  # noqa: E402
import stallsim_record as sr  # noqa: E402
from rec_datasets import Numbers, Stream, epochs_loop  # noqa: E402

OUT = sys.argv[1]


def set_offset(worker_id):
    tud.get_worker_info().dataset.offset = 1000 * (worker_id + 1)


def skipping_loop(loader):
    """Iterates one epoch, skipping a batch whose fetch raises (the same iterator goes on)."""
    got, it = [], iter(loader)
    while True:
        try:
            got.append(next(it).tolist())
        except StopIteration:
            return got
        except ValueError as e:
            got.append("skipped: " + str(e).strip().splitlines()[-1][:40])


def case(name, make, loop=skipping_loop):
    plain = loop(make())
    rec = sr.Recorder(os.path.join(OUT, name, "run"))
    recorded = loop(rec.wrap(make()))
    rec.close()
    print("ok %s" % name if plain == recorded else "FAIL %s: %r != %r" % (name, recorded, plain))


# an error in a batch: the loop goes on and gets the rest of the epoch (synchronous, 2 workers)
for w in (0, 2):
    case("skip_w%d" % w, lambda w=w: tud.DataLoader(Numbers(22, bad=9), batch_size=4, num_workers=w))
# what worker_init_fn sets on the dataset reaches the user's dataset
case("init_fn", lambda: tud.DataLoader(Numbers(16), batch_size=4, num_workers=2, worker_init_fn=set_offset))
# more workers than batches: a worker never fetches (its file must exist for the import)
case("few_batches", lambda: tud.DataLoader(Numbers(8), batch_size=4, num_workers=3))


# a DataLoader subclass that changes iteration is refused, with its name
class Doubling(tud.DataLoader):
    def __iter__(self):
        for b in super().__iter__():
            yield 2 * b


try:
    sr.Recorder(os.path.join(OUT, "subclass", "run")).wrap(Doubling(Numbers(8), batch_size=4))
    print("FAIL subclass: accepted")
except TypeError as e:
    print("ok subclass" if "Doubling overrides DataLoader.__iter__" in str(e) else "FAIL subclass: %s" % e)


# a batch taken with next(iter(loader)) before the loop, then set_epoch in the loop: the
# loop's batches are the same, and the recording imports (the repeated label moves on)
def peek_loop(loader, rec=None):
    got = [next(iter(loader)).tolist()]
    for e in range(2):
        if rec is not None:
            rec.set_epoch(e)
        got += [b.tolist() for b in loader]
    return got


plain = peek_loop(tud.DataLoader(Numbers(16), batch_size=4))
rec = sr.Recorder(os.path.join(OUT, "peek", "run"))
recorded = peek_loop(rec.wrap(tud.DataLoader(Numbers(16), batch_size=4)), rec)
rec.close()
print("ok peek" if plain == recorded else "FAIL peek: %r != %r" % (recorded, plain))


# a step-based loop: per epoch it = iter(loader), then next(it) len(loader) times, never
# reaching StopIteration (the pass's record ends when the next pass starts, or at close)
def step_loop(loader, rec=None):
    got = []
    for e in range(3):
        it = iter(loader)
        for _ in range(len(loader)):
            got.append(next(it).tolist())
    return got


plain = step_loop(tud.DataLoader(Numbers(16), batch_size=4, num_workers=2))
rec = sr.Recorder(os.path.join(OUT, "steploop", "run"))
recorded = step_loop(rec.wrap(tud.DataLoader(Numbers(16), batch_size=4, num_workers=2)))
rec.close()
print("ok steploop" if plain == recorded else "FAIL steploop: %r != %r" % (recorded, plain))


# a peek iterator kept beside the epochs (dataiter = iter(loader); next(dataiter)), then
# two ordinary epochs with set_epoch
def kept_peek_loop(loader, rec=None):
    dataiter = iter(loader)
    got = [next(dataiter).tolist()]
    for e in range(2):
        if rec is not None:
            rec.set_epoch(e)
        got += [b.tolist() for b in loader]
    return got, dataiter


plain, _ = kept_peek_loop(tud.DataLoader(Numbers(16), batch_size=4, num_workers=2))
rec = sr.Recorder(os.path.join(OUT, "kept_peek", "run"))
recorded, kept = kept_peek_loop(rec.wrap(tud.DataLoader(Numbers(16), batch_size=4, num_workers=2)), rec)
rec.close()
del kept
print("ok kept_peek" if plain == recorded else "FAIL kept_peek: %r != %r" % (recorded, plain))

# two ranks of one job written from one process (no torch.distributed): rank 0 alone takes
# a batch before the epochs (a sample to log), rank 1 does not; both then run 2 epochs, with
# set_epoch or without (the recorder then labels rank 0's passes 0, 1, 2 and rank 1's 0, 1)
def rank_alone(name, label):
    for r in (0, 1):
        rec = sr.Recorder(os.path.join(OUT, name, "run"), rank=r, world_size=2)
        loader = rec.wrap(tud.DataLoader(Numbers(16), batch_size=4))
        if r == 0:
            next(iter(loader))
        for e in range(2):
            if label:
                rec.set_epoch(e)
            for b in loader:
                pass
        rec.close()
    print("ok " + name)


rank_alone("rank_alone", True)
rank_alone("rank_alone_nolabel", False)


# two ranks of one job with uneven data (no DistributedSampler): rank 0's loader has 5
# batches per epoch, rank 1's 4; both run 2 epochs
def uneven(name):
    for r in (0, 1):
        rec = sr.Recorder(os.path.join(OUT, name, "run"), rank=r, world_size=2)
        loader = rec.wrap(tud.DataLoader(Numbers(20 if r == 0 else 16), batch_size=4))
        for e in range(2):
            rec.set_epoch(e)
            for b in loader:
                pass
        rec.close()
    print("ok " + name)


uneven("uneven")


class SlowOnce(Numbers):
    """Each sample takes 20 ms; sample 12 takes 0.3 s the first time any process fetches it (a
    marker file), so that a kept peek iterator's worker writes pass 0's batch 3 amid the next
    passes' fetches."""

    def __init__(self, n, marker):
        super().__init__(n)
        self.marker = marker

    def __getitem__(self, i):
        import time
        time.sleep(0.02)
        if i == 12 and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            time.sleep(0.3)
        return super().__getitem__(i)


marker = os.path.join(OUT, "late_fetch.marker")
rec = sr.Recorder(os.path.join(OUT, "late_fetch", "run"))
loader = rec.wrap(tud.DataLoader(SlowOnce(16, marker), batch_size=4, num_workers=2))
kept = iter(loader)
got = [next(kept).tolist()]
for e in range(2):
    got += [b.tolist() for b in loader]
rec.close()
del kept
print("ok late_fetch" if len(got) == 9 else "FAIL late_fetch: %r" % got)


# an IterableDataset, synchronous and with 2 workers of uneven shards: worker 1 runs out
# first and the loader skips the batch numbers it still hands it (the fetches' numbers then
# skip: 0 1 2 4 ...), with and without drop_last (a last short batch kept or dropped)
for name, make in (("iterable_w0", lambda: tud.DataLoader(Stream([10]), batch_size=4)),
                   ("iterable_w2", lambda: tud.DataLoader(Stream([10, 3]), batch_size=4, num_workers=2)),
                   ("iterable_drop", lambda: tud.DataLoader(Stream([10, 7]), batch_size=4, num_workers=2,
                                                            drop_last=True)),
                   # worker 1 runs out after 2 of the pass's 12 batches (the import says so)
                   ("iterable_early", lambda: tud.DataLoader(Stream([40, 8]), batch_size=4, num_workers=2)),
                   # 4 workers, 2 of them with no shard: they never deliver (the trace takes 2)
                   ("iterable_idle", lambda: tud.DataLoader(Stream([8, 8, 0, 0]), batch_size=4, num_workers=4)),
                   # batch_size=None: each item the dataset yields is a batch (worker 1 runs out
                   # after 2, worker 0 goes on alone), in process, and with persistent workers
                   ("nobatch_w0", lambda: tud.DataLoader(Stream([5]), batch_size=None)),
                   ("nobatch_w2", lambda: tud.DataLoader(Stream([6, 2]), batch_size=None, num_workers=2)),
                   ("nobatch_persist", lambda: tud.DataLoader(Stream([3, 3]), batch_size=None, num_workers=2,
                                                              persistent_workers=True)),
                   # and a map-style dataset whose dataset[i] is a batch
                   ("nobatch_map", lambda: tud.DataLoader(Numbers(8), batch_size=None, num_workers=2))):
    plain = epochs_loop(make())
    rec = sr.Recorder(os.path.join(OUT, name, "run"))
    recorded = epochs_loop(rec.wrap(make()), rec)
    rec.close()
    print("ok %s" % name if plain == recorded else "FAIL %s: %r != %r" % (name, recorded, plain))


# a loop that leaves each of 2 passes after 2 batches, with 4 persistent workers: the other
# two workers fetched batches the loop left (the import must not call them idle)
def break_loop(loader, rec=None):
    got = []
    for e in range(2):
        for k, b in enumerate(loader):
            if k == 2:
                break
            got.append(b.tolist())
    return got


plain = break_loop(tud.DataLoader(Numbers(64), batch_size=4, num_workers=4, persistent_workers=True))
rec = sr.Recorder(os.path.join(OUT, "break_w4", "run"))
recorded = break_loop(rec.wrap(tud.DataLoader(Numbers(64), batch_size=4, num_workers=4, persistent_workers=True)))
rec.close()
print("ok break_w4" if plain == recorded else "FAIL break_w4: %r != %r" % (recorded, plain))


# handing an IterableDataset's tagged batch to a worker (pickling it) starts no fetch in the
# training process: its fetch log is never opened there (no record, no /proc file held)
rec = sr.Recorder(os.path.join(OUT, "tag_pickle", "run"))
loader = rec.wrap(tud.DataLoader(Stream([6, 6]), batch_size=2, num_workers=2))
got = epochs_loop(loader, rec)
rec.close()
log = loader._inner.collate_fn.log
print("ok tag_pickle" if len(got) == 12 and log.pid is None and log.cur is None
      else "FAIL tag_pickle: %d batches, the training process's fetch log pid %r cur %r" % (len(got), log.pid, log.cur))


# two loaders of one prefix: a second Recorder of a prefix that an open one records is
# refused (it would delete the other's files); after close() it replaces them, with a warning
first = sr.Recorder(os.path.join(OUT, "reuse", "run"))
try:
    sr.Recorder(os.path.join(OUT, "reuse", "run"))
    print("FAIL reuse: a second open Recorder of one prefix accepted")
except ValueError as e:
    if "still open" not in str(e) or "its own prefix" not in str(e):
        print("FAIL reuse: %s" % e)
    else:
        first.close()
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            again = sr.Recorder(os.path.join(OUT, "reuse", "run"))
        again.close()
        said = [str(w.message) for w in caught]
        print("ok reuse" if any("replaces the records of an earlier, closed Recorder" in m for m in said)
              else "FAIL reuse: no warning after close (%r)" % said)
# a second wrap() names the ways out
rec = sr.Recorder(os.path.join(OUT, "rewrap", "run"))
rec.wrap(tud.DataLoader(Numbers(8), batch_size=4))
try:
    rec.wrap(tud.DataLoader(Numbers(8), batch_size=4))
    print("FAIL rewrap: accepted")
except RuntimeError as e:
    print("ok rewrap" if "iterate it every epoch" in str(e) and "own prefix" in str(e) else "FAIL rewrap: %s" % e)
rec.close()


# a user's dataset whose own attribute is named `inner`, and a worker_init_fn that checks the
# dataset's class: both as without the recorder (the wrapper's fields have names of their
# own, and it passes for the user's class)
class Holder(tud.Dataset):
    def __init__(self, inner):
        self.inner = inner

    def __len__(self):
        return len(self.inner)

    def __getitem__(self, i):
        return self.inner[i]


def set_inner_offset(worker_id):
    tud.get_worker_info().dataset.inner.offset = 1000 * (worker_id + 1)


def by_class(worker_id):
    ds = tud.get_worker_info().dataset
    if isinstance(ds, tud.ConcatDataset):
        for d in ds.datasets:
            d.offset = 100 * (worker_id + 1)


case("inner_attr", lambda: tud.DataLoader(Holder(Numbers(16)), batch_size=4, num_workers=2,
                                          worker_init_fn=set_inner_offset))
case("isinstance_init", lambda: tud.DataLoader(tud.ConcatDataset([Numbers(8), Numbers(8)]), batch_size=4,
                                               num_workers=2, worker_init_fn=by_class))


# a sampler whose __len__ raises NotImplementedError (an older custom sampler's way to
# have none): recorded as one without a length
class NoLen(tud.Sampler):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        raise NotImplementedError


case("len_notimpl", lambda: tud.DataLoader(Numbers(12), batch_size=4, sampler=NoLen(12)), loop=epochs_loop)


# a probe iterator made before the epochs and used after each, with num_workers = 0: its
# fetches belong to its own pass (not the epoch's that began since), and the record imports
def probe_loop(loader, rec=None):
    probe = iter(loader)
    got = []
    for e in range(2):
        if rec is not None:
            rec.set_epoch(e + 1)
        got += [b.tolist() for b in loader]
        got.append(next(probe).tolist())
    return got


plain = probe_loop(tud.DataLoader(Numbers(16), batch_size=4))
rec = sr.Recorder(os.path.join(OUT, "sync_probe", "run"))
import warnings  # noqa: E402
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    recorded = probe_loop(rec.wrap(tud.DataLoader(Numbers(16), batch_size=4)), rec)
rec.close()
said = " ".join(str(w.message) for w in caught)
print("ok sync_probe" if plain == recorded and "goes on after a later pass began" in said
      else "FAIL sync_probe: %r != %r (%s)" % (recorded, plain, said))


# each epoch's loop in a new thread (Python reuses the thread's ident): every batch record
# still has the loop thread's wait for a core (a stale /proc file of the ended thread gave -1)
rec = sr.Recorder(os.path.join(OUT, "thread_epochs", "run"))
loader = rec.wrap(tud.DataLoader(Numbers(16), batch_size=4))
import threading  # noqa: E402
for e in range(3):
    t = threading.Thread(target=lambda: [b for b in loader])
    t.start()
    t.join()
rec.close()
waits = [int(l.rstrip().split(",")[-1]) for l in open(os.path.join(OUT, "thread_epochs", "run.rank0.csv"))
         if l.startswith("batch,")]
ok = len(waits) == 12 and (all(w >= 0 for w in waits) or not os.path.exists("/proc/thread-self/schedstat"))
print("ok thread_epochs" if ok else "FAIL thread_epochs: waits %r" % waits)


# the loader's settings are fixed at wrap(): setting one on the wrapped loader is refused (it
# would not reach the copy the recorder iterates); other attributes reach the user's loader
rec = sr.Recorder(os.path.join(OUT, "set_attr", "run"))
user = tud.DataLoader(Numbers(8), batch_size=4)
loader = rec.wrap(user)
loader.tag_for_logs = "train"
try:
    loader.num_workers = 2
    print("FAIL set_attr: num_workers set after wrap() accepted")
except ValueError as e:
    print("ok set_attr" if "before wrap()" in str(e) and user.tag_for_logs == "train" else "FAIL set_attr: %s" % e)
rec.close()


# the loader fails on its first batch (the loop goes on past the error): the record has no
# batch with a step, and the import says so (tests/cli/cli_pytorch.sh)
case("dies_first", lambda: tud.DataLoader(Numbers(8, bad=0), batch_size=4))


# the loop thread's /proc file goes with its thread (300 short threads leave no file open),
# and a Recorder that failed half-way (its folder could not be made) blocks no retry
def fds():
    return len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else 0


before = fds()
for i in range(300):
    t = threading.Thread(target=sr._wait)
    t.start()
    t.join()
after = fds()
blocker = os.path.join(OUT, "retry")
open(blocker, "w").close()  # a file where the Recorder's folder should go
try:
    sr.Recorder(os.path.join(blocker, "run"))
    retried = "FAIL retry: a Recorder under a file was made"
except OSError:
    os.remove(blocker)
    try:
        sr.Recorder(os.path.join(blocker, "run")).close()
        retried = "ok"
    except ValueError as e:
        retried = "FAIL retry: %s" % e
print("ok thread_files" if after <= before + 2 and retried == "ok"
      else "FAIL thread_files: %d files open before, %d after; %s" % (before, after, retried))
