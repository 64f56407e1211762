"""stallsim_record.py - records a PyTorch training loop's data loading for stallsim.

Needs only PyTorch and the standard library. Three lines in a training script:

    import stallsim_record
    rec = stallsim_record.Recorder("out/run")   # after torch.distributed.init_process_group, if any
    loader = rec.wrap(loader)                    # then iterate `loader` as before
    # optionally, before each epoch: rec.set_epoch(epoch)

then `stallsim import pytorch out/run -o run.h5`.

What the loop receives is unchanged: the recorder iterates a private copy of the DataLoader
whose dataset, collate function and batch sampler are thin wrappers around the user's
(the first index of each batch carries a tag that the dataset wrapper removes before the
user's dataset sees it; an IterableDataset is iterated itself, the tag riding on the
batch's list of placeholder indices, or, with batch_size=None, wrapped so that each next()
starts a batch's fetch); nothing is attached to the batches. Each rank writes
PREFIX.rank<R>.csv, each loader worker PREFIX.rank<R>.worker<W>.csv, line by line; see the
io/import/IMPORTERS.md ("pytorch") for the exact format.
"""

import atexit
import functools
import itertools
import os
import socket
import sys
import threading
import time
import warnings
import weakref

import torch
import torch.utils.data as tud

FORMAT_VERSION = 5
_now = time.time_ns
_cpu = time.thread_time_ns  # CPU time of the fetching thread (the worker's, or the loop's with num_workers=0)
_pcpu = time.process_time_ns  # CPU time of the training process, all its threads (not its workers)

class _SchedFile:
    """This thread's /proc/thread-self/schedstat, open (fd -1: not available), closed when the
    thread's locals go (a thread that ends takes its file with it)."""
    __slots__ = ("fd", "pid")

    def __init__(self):
        self.pid = os.getpid()
        try:
            self.fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY)
        except OSError:
            self.fd = -1

    def __del__(self):
        if self.fd >= 0:
            try:
                os.close(self.fd)
            except OSError:
                pass
            self.fd = -1


_SCHED = threading.local()


def _wait():
    """ns the calling thread has spent runnable but waiting for a core since it started
    (Linux: the second field of /proc/thread-self/schedstat), or -1 where not available.
    The file stays open in the thread's locals (a forked child opens its own, as the file
    names the thread that opened it), and is opened again when a read fails."""
    for again in (0, 1):
        f = getattr(_SCHED, "file", None)
        if f is None or f.pid != os.getpid():
            f = _SchedFile()
            _SCHED.file = f
        if f.fd < 0:
            return -1
        try:
            return int(os.pread(f.fd, 96, 0).split()[1])
        except (OSError, IndexError, ValueError):
            _SCHED.file = None
    return -1


def _cpu_set():
    """(cores this process may run on, their list as "0-3;8") from the affinity mask."""
    try:
        cores = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
        cores = list(range(n))
    parts, i = [], 0
    while i < len(cores):
        j = i
        while j + 1 < len(cores) and cores[j + 1] == cores[j] + 1:
            j += 1
        parts.append(str(cores[i]) if i == j else "%d-%d" % (cores[i], cores[j]))
        i = j + 1
    return len(cores), ";".join(parts)


def _env_rank_world():
    """(rank, world size) from the launcher's environment, else (0, 1)."""
    for r, w in (("RANK", "WORLD_SIZE"), ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),
                 ("PMI_RANK", "PMI_SIZE"), ("SLURM_PROCID", "SLURM_NTASKS")):
        if r in os.environ and w in os.environ:
            try:
                return int(os.environ[r]), int(os.environ[w])
            except ValueError:
                pass
    return 0, 1


def _dist_ready():
    return torch.distributed.is_available() and torch.distributed.is_initialized()


def _clock_offset(rounds=8):
    """(offset_ns, rtt_ns, source): rank 0's clock minus this rank's, by ping-pong with rank 0
    over torch.distributed (the round with the shortest round trip counts). Collective."""
    if not _dist_ready() or torch.distributed.get_world_size() == 1:
        return 0, 0, "none"
    dist = torch.distributed
    rank, world = dist.get_rank(), dist.get_world_size()
    device = "cpu"
    if dist.get_backend() == "nccl":  # NCCL sends CUDA tensors only
        device = torch.device("cuda", torch.cuda.current_device())
    buf = torch.zeros(1, dtype=torch.int64, device=device)
    best = (0, None)
    for peer in range(1, world):
        for _ in range(rounds):
            if rank == 0:
                dist.recv(buf, src=peer)
                buf[0] = _now()
                dist.send(buf, dst=peer)
            elif rank == peer:
                t1 = _now()
                dist.send(buf, dst=0)
                dist.recv(buf, src=0)
                t2 = _now()
                rtt = t2 - t1
                if best[1] is None or rtt < best[1]:
                    best = (int(buf[0]) - (t1 + t2) // 2, rtt)
    dist.barrier()
    return best[0], best[1] or 0, "torch.distributed"


class _Writer:
    """Line-oriented appender: whole lines, flushed every `every` lines (and on flush())."""

    def __init__(self, path, every):
        self.path, self.every, self.buf = path, every, []
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.fresh = os.fstat(self.fd).st_size == 0

    def line(self, s):
        self.buf.append(s)
        if len(self.buf) >= self.every:
            self.flush()

    def flush(self):
        if self.buf and self.fd is not None:
            os.write(self.fd, "".join(self.buf).encode())
            self.buf = []

    def close(self):
        self.flush()
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _host_ticks(cores):
    """(busy, total) clock ticks since boot of the host's cores in `cores` (a set of core
    numbers), all processes together, from /proc/stat's per-core lines (busy: all but idle
    and iowait), or None where not available."""
    busy = total = 0
    try:
        with open("/proc/stat", "rb") as f:
            for line in f:
                if not line.startswith(b"cpu") or line[3:4] in (b" ", b""):
                    continue
                v = line.split()
                if int(v[0][3:]) not in cores:
                    continue
                t = [int(x) for x in v[1:9]]  # user nice system idle iowait irq softirq steal
                total += sum(t)
                busy += sum(t) - t[3] - t[4]
    except (OSError, ValueError, IndexError):
        return None
    return (busy, total) if total > 0 else None


def _proc_ticks(pid):
    """(utime + stime, cutime + cstime) clock ticks of process pid, or None."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            s = f.read()
    except OSError:
        return None
    try:
        v = s[s.rindex(b")") + 2:].split()  # fields from the third (state) on
        return int(v[11]) + int(v[12]), int(v[13]) + int(v[14])
    except (ValueError, IndexError):
        return None


def _children(pid):
    """The live child processes of pid (Linux /proc/PID/task/TID/children)."""
    out = []
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return out
    for t in tids:
        try:
            with open("/proc/%d/task/%s/children" % (pid, t), "rb") as f:
                out.extend(int(x) for x in f.read().split())
        except (OSError, ValueError):
            pass
    return out


def _own_ticks():
    """Clock ticks this process and its descendants (its loader workers) used since they
    started: live ones as they are, ended ones as the kernel added them to their parent."""
    me = _proc_ticks(os.getpid())
    if me is None:
        return None
    total, todo, seen = me[0] + me[1], _children(os.getpid()), set()
    while todo:
        c = todo.pop()
        if c in seen:
            continue
        seen.add(c)
        t = _proc_ticks(c)
        if t is not None:
            total += t[0] + t[1]
            todo.extend(_children(c))
    return total


class _HostSampler(threading.Thread):
    """Samples how busy the cores this rank may run on are (all processes) and this rank's
    own use of them (its process and its workers), every `every` seconds, into
    PREFIX.rank<R>.host.csv, so that the import can say how much of them other processes
    used while the job ran. A line: host,TIME_NS,BUSY,TOTAL,OWN (clock ticks since boot)."""

    def __init__(self, path, every):
        super().__init__(name="stallsim-host", daemon=True)
        self.every, self.stop = every, threading.Event()
        try:
            self.cores = set(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            self.cores = set(range(os.cpu_count() or 1))
        self.w = _Writer(path, 1)
        self.w.line("stallsim-host,1\n")
        self.w.line("meta,cpus,%d\n" % len(self.cores))
        self.sample()

    def sample(self):
        h, own = _host_ticks(self.cores), _own_ticks()
        if h is not None and own is not None:
            self.w.line("host,%d,%d,%d,%d\n" % (_now(), h[0], h[1], own))

    def run(self):
        while not self.stop.wait(self.every):
            self.sample()

    def close(self):
        self.stop.set()
        if self.is_alive() and self is not threading.current_thread():
            self.join(timeout=5)
        self.sample()
        self.w.close()


class _Tag:
    """The first index of a batch, with the pass and batch number it belongs to."""
    __slots__ = ("value", "p", "k")

    def __init__(self, value, p, k):
        self.value, self.p, self.k = value, p, k

    def __reduce__(self):
        return (_Tag, (self.value, self.p, self.k))


class _TagList(list):
    """An IterableDataset's batch of indices (PyTorch's placeholders, which its fetcher only
    counts) with the pass and batch number: the fetcher iterating it starts the batch's fetch
    (the next samples are then drawn from the worker's iterator), in the process fetching it,
    recorded by the log of the Recorder named by `log`."""
    __slots__ = ("log", "p", "k")

    def __init__(self, items, log, p, k):
        super().__init__(items)
        self.log, self.p, self.k = log, p, k

    @staticmethod
    def of(log, batch, p, k):
        return _TagList(batch, log, p, k)

    def __reduce__(self):  # (self[:], a plain list: list(self) would call __iter__ and start a fetch here)
        return (_TagList, (self[:], self.log, self.p, self.k))

    def __iter__(self):
        log = _LOGS.get(self.log)
        if log is not None:
            log.start(self.p, self.k)
        return super().__iter__()


def _tag_first(batch, p, k):
    """A map-style batch of indices, its first index tagged (the dataset wrapper takes it off)."""
    batch = list(batch)
    if batch:
        batch[0] = _Tag(batch[0], p, k)
    return batch


class _TagSampler:
    """Wraps the loader's (batch) sampler: each batch it hands out, k-th of the pass, becomes
    tag(batch, p, k): _tag_first for map-style batches, _Tag for a batch_size=None index, a
    _TagList for an IterableDataset's batch. With an IterableDataset a worker whose iterator
    is exhausted gets some batches that yield nothing, so the fetches' numbers may skip."""

    def __init__(self, inner, rec, tag):
        self.inner, self.rec, self.tag = inner, rec, tag

    def __len__(self):
        return len(self.inner)

    def __iter__(self):
        # the pass is read now, as the loader's iterator is made (at iter(loader)), not at
        # its first batch: an iterator made before a later pass and used after it (a kept
        # probe iterator with num_workers = 0) still tags its own pass
        return self._tags(self.rec._pass)

    def _tags(self, p):
        for k, batch in enumerate(self.inner):
            yield self.tag(batch, p, k)


_LOG_IDS = itertools.count()
_LOGS = weakref.WeakValueDictionary()  # a Recorder's log key -> its _FetchLog in this process (for _TagList)


class _FetchLog:
    """Per-process fetch state shared by the dataset and collate wrappers: the batch being
    fetched and where its records go (the worker's file, or the rank file in-process)."""

    def __init__(self, prefix, rank, flush_every, key=None):
        self.prefix, self.rank, self.flush_every = prefix, rank, flush_every
        self.pid, self.out, self.worker, self.cur = None, None, -1, None
        # one key per Recorder (another Recorder of the same prefix and rank in this process,
        # a notebook cell run again, has its own), kept by the copies pickled for workers
        self.key = key or "%s#%d#%d#%d" % (prefix, rank, os.getpid(), next(_LOG_IDS))
        _LOGS[self.key] = self  # (a worker started by spawn registers the copy it unpickled)

    def __getstate__(self):
        return {"prefix": self.prefix, "rank": self.rank, "flush_every": self.flush_every, "key": self.key}

    def __setstate__(self, st):
        self.__init__(st["prefix"], st["rank"], st["flush_every"], st.get("key"))

    def _open(self):
        info = tud.get_worker_info()
        self.pid = os.getpid()
        if info is None:  # synchronous loading: the rank's own file
            self.worker, self.out = -1, _MAIN_WRITERS.get((self.prefix, self.rank))
            return
        self.worker = info.id
        w = _Writer("%s.rank%d.worker%d.csv" % (self.prefix, self.rank, info.id), 1)
        if w.fresh:
            w.line("stallsim-record,%d\n" % FORMAT_VERSION)
            w.line("meta,rank,%d\nmeta,worker,%d\n" % (self.rank, info.id))
        w.line("meta,pid,%d\n" % self.pid)
        self.out = w

    def start(self, p, k):
        if self.pid != os.getpid() or self.out is None:
            self._open()
        self.cur = (p, k, _now(), _cpu(), _wait())

    def ready(self):
        # the end's wait and CPU time first, its time last (the start reads them the other way
        # round): a wait for a core between the reads then counts in the fetch's time too
        q = _wait()
        c = _cpu()
        t = _now()
        if self.cur is not None and self.out is not None:
            p, k, t0, c0, q0 = self.cur
            wait = q - q0 if q >= 0 and q0 >= 0 else -1
            self.out.line("fetch,%d,%d,%d,%d,%d,%d,%d\n" % (p, k, self.worker, t0, t, c - c0, wait))
        self.cur = None


class _PassThrough:
    """A dataset wrapper's attributes other than its own (_OWN, named so as not to meet a
    user's) are the user's dataset's (self._ssr_inner): read (e.g. in worker_init_fn) and set
    (what worker_init_fn sets on get_worker_info().dataset reaches the user's dataset); and
    it passes for the user's dataset's class (isinstance(get_worker_info().dataset, MyData)
    holds, as without the recorder). Pickled (spawn) by __reduce__, which names its real
    class."""
    _OWN = ("_ssr_inner", "_ssr_log")

    @property
    def __class__(self):
        return type(object.__getattribute__(self, "_ssr_inner"))

    def __getattr__(self, name):
        if name in type(self)._OWN or name.startswith("__"):
            raise AttributeError(name)
        return getattr(object.__getattribute__(self, "_ssr_inner"), name)

    def __setattr__(self, name, value):
        if name in type(self)._OWN:
            object.__setattr__(self, name, value)
        else:
            setattr(self._ssr_inner, name, value)

    def __delattr__(self, name):
        if name in type(self)._OWN:
            object.__delattr__(self, name)
        else:
            delattr(self._ssr_inner, name)

    def __reduce__(self):
        return (type(self), (self._ssr_inner, self._ssr_log))


class _RecDataset(_PassThrough, tud.Dataset):
    def __init__(self, inner, log):
        self._ssr_inner, self._ssr_log = inner, log

    def __len__(self):
        return len(self._ssr_inner)

    def __getitem__(self, idx):
        if type(idx) is _Tag:
            self._ssr_log.start(idx.p, idx.k)
            idx = idx.value
        return self._ssr_inner[idx]


class _RecDatasetItems(_RecDataset):
    """For datasets with __getitems__ (PyTorch >= 2 fetches whole batches through it)."""

    def __getitems__(self, idxs):
        idxs = list(idxs)
        if idxs and type(idxs[0]) is _Tag:
            self._ssr_log.start(idxs[0].p, idxs[0].k)
            idxs[0] = idxs[0].value
        return self._ssr_inner.__getitems__(idxs)


class _RecIterable(_PassThrough, tud.IterableDataset):
    """An IterableDataset that yields whole batches (a DataLoader with batch_size=None): the
    fetcher takes each batch with one next() on the dataset's iterator, which starts its
    fetch. The loader hands the batches to its W workers in turn (skipping those whose
    iterator has run out), so worker w's j-th batch of a pass is numbered j W + w: in that
    order the loop gets them. A worker learns its pass from the Recorder as it starts (forked,
    or its number when pickled for spawn), one more at every later pass (persistent workers
    make a new iterator per pass)."""

    _OWN = ("_ssr_inner", "_ssr_log", "_ssr_rec", "_ssr_p")

    def __init__(self, inner, log, rec, p=None):
        self._ssr_inner, self._ssr_log, self._ssr_rec, self._ssr_p = inner, log, rec, p

    def __reduce__(self):  # spawn, forkserver: the pass as the worker starts, not the Recorder
        p = self._ssr_rec._pass - 1 if self._ssr_rec is not None else self._ssr_p  # (a copy pickled again)
        return (_RecIterable, (self._ssr_inner, self._ssr_log, None, p))

    def __iter__(self):
        info = tud.get_worker_info()
        if info is None:  # synchronous loading: the Recorder itself
            p, W, w = self._ssr_rec._pass, 1, 0
        else:
            if self._ssr_p is None:  # forked: the Recorder as it was at the fork
                self._ssr_p = self._ssr_rec._pass - 1
            self._ssr_p += 1
            p, W, w = self._ssr_p, info.num_workers, info.id
        log, it, j = self._ssr_log, iter(self._ssr_inner), 0
        while True:
            log.start(p, j * W + w)
            try:
                item = next(it)
            except StopIteration:
                log.cur = None
                return
            yield item
            j += 1


def _start_method(loader):
    """fork, spawn or forkserver: how the loader's worker processes start."""
    ctx = getattr(loader, "multiprocessing_context", None)
    if isinstance(ctx, str):
        return ctx
    if ctx is not None and hasattr(ctx, "get_start_method"):
        return ctx.get_start_method()
    return torch.multiprocessing.get_start_method()


class _WorkerInit:
    """Opens the worker's record file as the worker starts (a worker that never gets a batch
    still has its file; its start time, when its process runs, and ready time, after the
    user's worker_init_fn, go in as meta lines), then calls the user's worker_init_fn."""

    def __init__(self, log, user):
        self.log, self.user = log, user

    def __call__(self, worker_id):
        t = _now()
        self.log._open()
        if self.log.out is not None:
            self.log.out.line("meta,start_ns,%d\n" % t)
        if self.user is not None:
            self.user(worker_id)
        if self.log.out is not None:
            self.log.out.line("meta,ready_ns,%d\n" % _now())


class _RecCollate:
    def __init__(self, inner, log):
        self.inner, self.log = inner, log

    def __call__(self, samples):
        out = self.inner(samples)
        self.log.ready()
        return out


_MAIN_WRITERS = {}  # (prefix, rank) -> the rank file's writer (for in-process fetch records)
_LOADER_KEYS = ("num_workers", "pin_memory", "timeout", "worker_init_fn", "multiprocessing_context",
                "generator", "prefetch_factor", "persistent_workers", "pin_memory_device")


_FIXED_AT_WRAP = frozenset(_LOADER_KEYS + ("dataset", "batch_size", "sampler", "batch_sampler", "collate_fn",
                                          "drop_last"))


class RecordedLoader:
    """Iterates like the wrapped DataLoader; other attributes are the original loader's (read,
    and set but for the loader's settings, which the copy made at wrap() fixed). It is not a
    DataLoader itself (isinstance(loader, DataLoader) is False)."""

    def __init__(self, rec, loader, inner):
        object.__setattr__(self, "_rec", rec)
        object.__setattr__(self, "_loader", loader)
        object.__setattr__(self, "_inner", inner)

    def __len__(self):
        return len(self._loader)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._loader, name)

    def __setattr__(self, name, value):
        if name.startswith("_"):  # the wrapper's own (read back from it, as __getattr__ sends none on)
            object.__setattr__(self, name, value)
        elif name in _FIXED_AT_WRAP:  # PyTorch refuses some of these too; silently kept, they would mislead
            raise ValueError("stallsim_record: set the DataLoader's %s before wrap(): the recorder iterates a "
                             "copy of the loader made at wrap(), which a later change would not reach" % name)
        else:
            setattr(self._loader, name, value)

    def __iter__(self):
        rec = self._rec
        rec._check_rank()
        p = rec._begin_pass()
        return _RecIter(rec, iter(self._inner), p)


class _RecIter:
    """One pass over the loader: yields what the DataLoader's iterator yields, recording the
    loop's asks. An exception from the loader (a worker's error) reaches the loop as it
    would without the recorder, and the loop may go on with the same iterator: the pass's
    record then ends at that batch (an `end` record) and the rest of the pass is passed
    through unrecorded. Leaving the pass early (break) ends the record when the iterator
    goes away, when the next pass starts or when the Recorder closes, whichever comes first
    (a step-based loop calls next() len(loader) times and keeps the iterator until the next
    epoch's iter(loader); a kept peek iterator lives on beside the epochs' own)."""

    def __init__(self, rec, it, p):
        self.rec, self.it, self.p, self.k, self.open, self.ask = rec, it, p, 0, True, None
        rec._open_passes.add(self)

    def __iter__(self):
        return self

    def _end(self, n, t, c, q, kind="left"):
        """kind 'end': the loop's next() found the pass's end (or the loader's error) at t, the
        end of the step of batch n - 1; 'left': the loop left the pass (its iterator went away,
        the next pass started, the Recorder closed) at t, which ends no step for sure."""
        if self.open:
            self.open = False
            self.rec._open_passes.discard(self)
            self.rec._w.line("%s,%d,%d,%d,%d,%d,%d\n" % (kind, self.p, n, t, c, q, _now()))
            self.rec._w.flush()
            self.rec._passes_done += 1

    def __next__(self):
        if not self.open:
            if not self.rec._warned_overlap and self.rec._pass > self.p:
                self.rec._warned_overlap = True
                warnings.warn("stallsim_record: a pass of the recorded loader goes on after a later pass began (two "
                              "iterators of one loader at once, such as zip(loader, loader)?): the record holds "
                              "one pass at a time, so this one's later batches are not in it", stacklevel=2)
            return next(self.it)
        if self.ask is None:  # the loop asks for batch k now
            self.ask = (_now(), _pcpu(), _wait())
        t_ask, c_ask, q_ask = self.ask
        try:
            batch = next(self.it)
        except BaseException:  # the end of the pass, or the loader's error: the record ends here
            self._end(self.k, t_ask, c_ask, q_ask, "end")
            raise
        self.rec._w.line("batch,%d,%d,%d,%d,%d,%d\n" % (self.p, self.k, t_ask, _now(), c_ask, q_ask))
        self.k += 1
        self.ask = None
        return batch

    def __del__(self):
        try:
            self._end(self.k, _now(), _pcpu(), _wait())
        except Exception:
            pass


class _ProbeFetch(tud.Dataset):
    """The probe's dataset: item j is batch j of the user's first samples, fetched and
    collated as the loader would, with the time its fetch began and the time it was ready."""

    def __init__(self, inner, collate, batch, n):
        self.inner, self.collate, self.batch, self.n = inner, collate, batch, n

    def __len__(self):
        return self.n

    def __getitem__(self, j):
        t0 = _now()
        out = self.collate([self.inner[i] for i in range(j * self.batch, (j + 1) * self.batch)])
        return out, t0, _now()


def _probe_identity(x):
    return x


PROBE_BATCHES = 6


def _probe_worker(dataset, collate, batch, ctx, pin, init):
    """What one loader worker would cost this loader, which loads in the training process:
    a DataLoader of one worker over the first PROBE_BATCHES batches of the same dataset,
    collate function, batch size and worker_init_fn, started as the loader's workers would be.
    Returns (start method, lead, start-up, delivery, stop, next lead, next start-up) in ns: the
    time in iter(loader), from its return to the worker's first fetch, the median time from a
    ready batch's ask to the loop having it (each asked once it is ready), and the next() that
    ends the pass (the worker's shutdown); then the lead and start-up of a second pass, as the
    job's epochs after the first start their workers from a process that already started some."""
    n = min(PROBE_BATCHES, len(dataset) // batch)
    if n < 3:
        raise ValueError("fewer than 3 batches of samples")
    method = ctx if isinstance(ctx, str) else (ctx.get_start_method() if ctx is not None else
                                               torch.multiprocessing.get_start_method())
    dl = tud.DataLoader(_ProbeFetch(dataset, collate, batch, n), batch_size=None, num_workers=1,
                        collate_fn=_probe_identity, multiprocessing_context=ctx, pin_memory=pin, timeout=120,
                        worker_init_fn=init)
    t0 = _now()
    it = iter(dl)
    t1 = _now()
    _, s, r = next(it)
    startup, fetch, deliveries = s - t1, r - s, []
    for _ in range(1, n):
        time.sleep(max(2 * fetch, 2000000) / 1e9)  # the next batch is ready when asked
        ask = _now()
        _, s, r = next(it)
        deliveries.append(_now() - max(ask, r))
    t = _now()
    for _ in it:  # the pass's end: the worker's shutdown
        pass
    stop = _now() - t
    deliveries.sort()
    first = (method, t1 - t0, max(0, startup), deliveries[len(deliveries) // 2], stop)
    try:
        t2 = _now()
        it = iter(dl)  # a second pass: a later epoch's start
        t3 = _now()
        _, s, r = next(it)
        startup2 = s - t3
        for _ in it:
            pass
    except Exception:  # the first pass stands alone (a probe file of version 1)
        return first + (None, None)
    return first + (t3 - t2, max(0, startup2))


_RECORDERS = weakref.WeakValueDictionary()  # (prefix, rank) -> the last Recorder made of it in this process


def _close_at_exit(ref):
    """A Recorder the script did not close is closed as the interpreter exits (its probe too)."""
    rec = ref()
    if rec is not None and not rec._closed:
        try:
            rec.close()
        except Exception:  # the job is over: its records stay as they are
            pass


class Recorder:
    """Records one DataLoader of this rank into PREFIX.rank<R>.csv (+ one file per worker).

    Call it after torch.distributed.init_process_group when the job is distributed, on EVERY
    rank: the constructor is then collective (it measures this rank's clock offset against
    rank 0), and a rank that does not call it leaves the others waiting. A loader that one
    rank iterates alone (validation on rank 0) is recorded with Recorder(prefix,
    world_size=1) on that rank: a job of one rank, nothing collective. rank/world_size
    default to torch.distributed, else RANK/WORLD_SIZE, OMPI_COMM_WORLD_RANK/SIZE,
    PMI_RANK/SIZE, SLURM_PROCID/NTASKS, else 0/1; given, they are taken as they are.
    Each loader gets its own prefix (train and validation: 'runs/a/train', 'runs/a/val'):
    a second Recorder of a prefix that an open Recorder of this process records is refused.
    Every host_every seconds (0: never) a thread samples the host's busy cores and this
    rank's own use of them (its process and loader workers) into PREFIX.rank<R>.host.csv.
    A loader without workers (num_workers=0) over a map-style dataset is probed at close(),
    or as the interpreter exits where the script never closes the Recorder (probe=True): one worker, started as its workers would be, fetches the dataset's first
    few batches, and what it cost goes into PREFIX.rank<R>.probe.csv, for the what-if "with
    workers"; then it starts the worker a second time, as a later epoch would. It takes about
    two workers' start-ups and a dozen batches' fetches. PyTorch takes
    no multiprocessing_context without workers, so the probe starts its worker the process's
    default way (fork on Linux); probe="spawn" (or "forkserver", "fork") names the way the
    job's workers would start instead, as with CUDA or on macOS. probe=False: none."""

    def __init__(self, prefix, rank=None, world_size=None, flush_every=8, host_every=0.5, probe=True):
        if _dist_ready():
            r, ws = torch.distributed.get_rank(), torch.distributed.get_world_size()
        else:
            r, ws = _env_rank_world()
        self._explicit = rank is not None or world_size is not None
        if world_size is not None and int(world_size) == 1 and rank is None:
            r = 0  # a rank recording alone is rank 0 of its job of one
        self.rank = r if rank is None else int(rank)
        self.world_size = ws if world_size is None else int(world_size)
        if not 0 <= self.rank < self.world_size:
            raise ValueError("Recorder: rank %d of a world of %d ranks" % (self.rank, self.world_size))
        prefix = os.fspath(prefix)
        if not prefix or prefix.endswith(os.sep) or os.path.isdir(prefix):
            raise ValueError("Recorder: prefix %r names a folder, not files: give a folder and a file stem, "
                             "e.g. 'runs/base/run' (records runs/base/run.rank0.csv ...)" % prefix)
        self.prefix = os.path.abspath(prefix)
        self._closed = False
        other = _RECORDERS.get((self.prefix, self.rank))
        if other is not None and not other._closed:
            raise ValueError("Recorder: another Recorder of this process records %r (rank %d) and is still open: "
                             "its records would be lost. Give each loader its own prefix (e.g. 'runs/a/train' and "
                             "'runs/a/val'), or close() the other first" % (prefix, self.rank))
        if other is not None:
            warnings.warn("stallsim_record: this Recorder replaces the records of an earlier, closed Recorder of %r "
                          "in this process (a loader made anew every epoch? make it once and iterate it every epoch, "
                          "or give each its own prefix)" % prefix, stacklevel=2)
        d = os.path.dirname(self.prefix)
        if d:
            os.makedirs(d, exist_ok=True)
        self.path = "%s.rank%d.csv" % (self.prefix, self.rank)
        host_path = "%s.rank%d.host.csv" % (self.prefix, self.rank)
        self._probe_path = "%s.rank%d.probe.csv" % (self.prefix, self.rank)
        for old in (host_path, self._probe_path):
            if os.path.exists(old):
                os.remove(old)
        if probe not in (True, False, "fork", "spawn", "forkserver"):
            raise ValueError("Recorder: probe=%r; expected True, False, 'fork', 'spawn' or 'forkserver'" % (probe,))
        self._probe, self._probe_src = probe, None
        for stale in [self.path] + ["%s.rank%d.worker%d.csv" % (self.prefix, self.rank, i) for i in range(1024)]:
            if os.path.exists(stale):
                os.remove(stale)
            elif stale != self.path:
                break
        if self.world_size == 1:  # alone: no other rank to compare clocks with (and none waits for this one)
            offset, rtt, how = 0, 0, "alone"
        elif self._explicit and _dist_ready() and (torch.distributed.get_rank(), torch.distributed.get_world_size()) != (
                self.rank, self.world_size):
            offset, rtt, how = 0, 0, "none"  # given ranks that are not torch.distributed's: nothing to exchange with
        else:
            offset, rtt, how = _clock_offset()
        cpus, cpu_set = _cpu_set()
        self._w = _Writer(self.path, max(1, int(flush_every)))
        _MAIN_WRITERS[(self.prefix, self.rank)] = self._w
        self._pass, self._passes_done, self._epoch, self._wrapped = -1, 0, 0, False
        self._warned_overlap = False
        self._open_passes = weakref.WeakSet()  # passes whose record has not ended (_RecIter)
        w = self._w
        w.line("stallsim-record,%d\n" % FORMAT_VERSION)
        for k, v in (("rank", self.rank), ("world_size", self.world_size), ("host", socket.gethostname()),
                     ("pid", os.getpid()), ("torch", torch.__version__), ("start_ns", _now()),
                     ("clock_offset_ns", offset), ("clock_rtt_ns", rtt), ("clock_offset_source", how),
                     ("cpus", cpus), ("cpu_set", cpu_set)):
            w.line("meta,%s,%s\n" % (k, str(v).replace(",", ";").replace("\n", " ")))
        w.flush()
        self._host = None
        if host_every and float(host_every) > 0 and os.path.exists("/proc/stat"):
            self._host = _HostSampler(host_path, float(host_every))
            self._host.start()
        _RECORDERS[(self.prefix, self.rank)] = self  # (made whole: one that failed half-way blocks no retry)
        atexit.register(_close_at_exit, weakref.ref(self))

    def wrap(self, loader):
        """A loader that yields exactly what `loader` yields, recording as it goes."""
        if self._wrapped:
            raise RuntimeError("stallsim_record: one Recorder records one DataLoader, and this one has one already. "
                               "A loader made anew every epoch: make it once and iterate it every epoch "
                               "(persistent_workers=True keeps its workers), or give each loader a Recorder of its "
                               "own prefix; a second loader (validation): a Recorder of its own prefix")
        if not isinstance(loader, tud.DataLoader):
            raise TypeError("stallsim_record: wrap() takes a torch.utils.data.DataLoader")
        for name in ("__iter__", "__len__"):
            if getattr(type(loader), name) is not getattr(tud.DataLoader, name):
                raise TypeError("stallsim_record: %s overrides DataLoader.%s; the recorder iterates a plain "
                                "DataLoader of the same settings and would lose what the subclass does: wrap a "
                                "plain DataLoader" % (type(loader).__name__, name))
        iterable = isinstance(loader.dataset, tud.IterableDataset)
        self._check_rank()
        log = _FetchLog(self.prefix, self.rank, 1)
        try:
            per_epoch = len(loader)
        except (TypeError, NotImplementedError):  # a sampler without __len__ (or one that says so)
            per_epoch = -1
        kw = {k: getattr(loader, k) for k in _LOADER_KEYS if hasattr(loader, k)}
        if kw.get("num_workers", 0) > 0:  # each worker's record file exists from its start
            kw["worker_init_fn"] = _WorkerInit(log, kw.get("worker_init_fn"))
        if kw.get("num_workers", 0) == 0 and "prefetch_factor" in kw and kw["prefetch_factor"] != 2:
            kw.pop("prefetch_factor")  # PyTorch 2.x keeps None here; 1.x refuses != 2
        if kw.get("prefetch_factor", 2) is None:
            kw.pop("prefetch_factor")
        collate = _RecCollate(loader.collate_fn, log)
        if loader.batch_sampler is None and iterable:  # batch_size=None: the dataset yields batches
            inner = tud.DataLoader(_RecIterable(loader.dataset, log, self), batch_size=None, collate_fn=collate, **kw)
        elif loader.batch_sampler is None:  # batch_size=None: dataset[index] is a batch
            inner = tud.DataLoader(_RecDataset(loader.dataset, log), batch_size=None,
                                   sampler=_TagSampler(loader.sampler, self, _Tag), collate_fn=collate, **kw)
        elif iterable:
            # your dataset itself (its workers' iterators, get_worker_info sharding as they are);
            # the batches of placeholder indices carry the tags. PyTorch takes no batch sampler
            # with an IterableDataset, so the tagging one replaces the loader's own after it is
            # made (the loader only iterates it, as it would its own).
            inner = tud.DataLoader(loader.dataset, batch_size=loader.batch_size, drop_last=loader.drop_last,
                                   collate_fn=collate, **kw)
            tag = functools.partial(_TagList.of, log.key)
            object.__setattr__(inner, "batch_sampler", _TagSampler(inner.batch_sampler, self, tag))
        else:
            cls = _RecDatasetItems if hasattr(loader.dataset, "__getitems__") else _RecDataset
            inner = tud.DataLoader(cls(loader.dataset, log),
                                   batch_sampler=_TagSampler(loader.batch_sampler, self, _tag_first),
                                   collate_fn=collate, **kw)
        bs = loader.batch_size if loader.batch_size is not None else getattr(loader.batch_sampler, "batch_size", -1)
        pf = getattr(loader, "prefetch_factor", None) if loader.num_workers > 0 else 0
        w = self._w
        for k, v in (("dataset", "iterable" if iterable else "map"), ("num_workers", loader.num_workers),
                     ("prefetch_factor", -1 if pf is None else pf),
                     ("batch_size", -1 if bs is None else bs), ("drop_last", int(bool(loader.drop_last))),
                     ("pin_memory", int(bool(loader.pin_memory))),
                     ("persistent_workers", int(bool(getattr(loader, "persistent_workers", False)))),
                     ("batches_per_epoch", per_epoch)):
            w.line("meta,%s,%s\n" % (k, v))
        if loader.num_workers > 0:  # how its workers start (the loader's context, else the process's default)
            w.line("meta,start_method,%s\n" % _start_method(loader))
        elif not iterable and loader.batch_sampler is not None and bs and bs > 0:  # probed at close()
            ctx = self._probe if isinstance(self._probe, str) else kw.get("multiprocessing_context")
            self._probe_src = (loader.dataset, loader.collate_fn, bs, ctx, bool(loader.pin_memory),
                               kw.get("worker_init_fn"))
        w.flush()
        self._wrapped = True  # (not the loader itself: no cycle, so its workers end with it)
        return RecordedLoader(self, loader, inner)

    def _check_rank(self):
        """A Recorder made before init_process_group took its rank from the environment; if
        torch.distributed now says otherwise, its files would be another rank's."""
        if not self._explicit and _dist_ready() and (torch.distributed.get_rank(), torch.distributed.get_world_size()) != (
                self.rank, self.world_size):
            raise RuntimeError("stallsim_record: this Recorder was made as rank %d of %d, but torch.distributed "
                               "says rank %d of %d: create the Recorder after init_process_group" % (
                                   self.rank, self.world_size, torch.distributed.get_rank(),
                                   torch.distributed.get_world_size()))

    def set_epoch(self, epoch):
        """Labels the next pass over the loader (default: one more than the last pass's label,
        starting at 0). Labels must increase from pass to pass."""
        self._epoch = int(epoch)

    def _end_open_passes(self):
        """Ends the record of every pass still open (its iterator kept, not exhausted) now:
        the loop has left it, as it starts another pass or closes the recorder."""
        if len(self._open_passes):
            t, c, q = _now(), _pcpu(), _wait()
            for it in sorted(self._open_passes, key=lambda x: x.p):
                it._end(it.k, t, c, q)

    def _begin_pass(self):
        self._end_open_passes()  # before the new pass's workers start
        self._pass += 1
        e = self._epoch
        self._epoch = e + 1
        self._w.line("epoch,%d,%d,%d\n" % (self._pass, e, _now()))
        return self._pass

    def _run_probe(self):
        """The probe of a loader without workers (the class docstring); a failure is written
        down and warned about, never raised: the job's own record is whole without it."""
        version = 2
        try:
            method, lead, startup, delivery, stop, lead2, startup2 = _probe_worker(*self._probe_src)
            line = "probe,%s,%d,%d,%d,%d" % (method, lead, startup, delivery, stop)
            if lead2 is None:  # the second pass failed: the first stands alone
                version, line = 1, line + "\n"
            else:
                line += ",%d,%d\n" % (lead2, startup2)
        except Exception as e:  # the user's dataset or collate_fn may not pickle, or may fail in a worker
            reason = ("%s: %s" % (type(e).__name__, e)).replace(",", ";").replace("\n", " ")[:300]
            line = "failed,%s\n" % reason
            warnings.warn("stallsim_record: the probe of one loader worker failed (%s); the record is whole, but "
                          "stallsim keeps the measured epoch starts where a what-if adds workers" % reason,
                          stacklevel=3)
        w = _Writer(self._probe_path, 1)
        w.line("stallsim-probe,%d\n" % version)
        w.line(line)
        w.close()

    def close(self):
        self._end_open_passes()
        self._w.close()
        if self._host is not None:
            self._host.close()
            self._host = None
        if self._probe and self._probe_src is not None and not self._closed and self._passes_done > 0:
            self._run_probe()  # after the host sampler: the job's CPU use leaves the probe out
        self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
