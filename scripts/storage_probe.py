#!/usr/bin/env python3
"""storage_probe.py - measures how a storage's reads slow down with more of them in flight,
for the pipeline model's storage sharing ([pipeline] storage_parallel,
sim/models/MODELS-pipeline.md): reads the files of FOLDER (a sample of the training set's own
files) with 1, 2, 4, ... processes reading at once (as DataLoader workers do), and prints
each read's mean time, its slowdown sigma(n) against one reader, the throughput, and N fitted to sigma(n) = 1 + (n - 1) / N by least
squares through sigma(1) = 1. Standard library only.

On Linux each file is evicted from the page cache before it is read
(posix_fadvise DONTNEED; --cached to keep the cache), so the reads reach the storage as a
first epoch's would; files the cache cannot drop (some network file systems) read from
memory and show no slowdown, so use files the job has not read recently there."""
import argparse
import multiprocessing
import os
import sys
import time


def evict(path):
    if not hasattr(os, "posix_fadvise"):
        return
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def read_all(paths, start, out):
    """one reader process (as a DataLoader worker is): waits for the others, reads its files,
    sends back the sum of its read times, their count and when it finished"""
    start.wait()
    total = 0.0
    for p in paths:
        t = time.perf_counter()
        with open(p, "rb", buffering=0) as fh:
            while fh.read(1 << 20):
                pass
        total += time.perf_counter() - t
    out.put((total, len(paths), time.perf_counter()))


def one_pass(paths, readers, cached):
    """(mean read time, wall time) of `readers` processes reading paths at once"""
    if not cached:
        for p in paths:
            evict(p)
    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    start, out = ctx.Barrier(readers + 1), ctx.Queue()
    work = [ctx.Process(target=read_all, args=(paths[i::readers], start, out)) for i in range(readers)]
    for w in work:
        w.start()
    start.wait()
    t0 = time.perf_counter()
    got = [out.get() for _ in work]
    for w in work:
        w.join()
    wall = max(g[2] for g in got) - t0
    return sum(g[0] for g in got) / sum(g[1] for g in got), wall


def fit_parallel(points):
    """N of sigma(n) = 1 + (n - 1) / N, least squares in 1/N over the points (n, sigma)"""
    sxy = sum((n - 1) * (s - 1) for n, s in points)
    sxx = sum((n - 1) ** 2 for n, _ in points)
    if sxx == 0 or sxy <= 0:
        return None
    return sxx / sxy


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", help="a folder of the dataset's files (read recursively)")
    ap.add_argument("--threads", default="1,2,4,8,16",
                    help="the readers (processes reading at once: the reads in flight) to measure, comma-separated "
                         "(default 1,2,4,8,16)")
    ap.add_argument("--files", type=int, default=400, help="files read per measurement (default 400)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="passes per count of readers, taken in turn (1, 2, 4, ..., 1, 2, 4, ...); the median counts (default 3)")
    ap.add_argument("--cached", action="store_true", help="do not evict the files from the page cache")
    a = ap.parse_args()
    try:
        counts = sorted({int(x) for x in a.threads.split(",") if x.strip()})
    except ValueError:
        ap.error("--threads: '%s' is not a list of whole numbers" % a.threads)
    if not counts or counts[0] < 1:
        ap.error("--threads: give whole numbers of 1 or more")
    if a.files < 1 or a.repeat < 1:
        ap.error("--files and --repeat must be 1 or more")
    if not os.path.isdir(a.folder):
        print("storage_probe.py: %s: not a folder" % a.folder, file=sys.stderr)
        return 1
    paths = []
    for root, dirs, files in os.walk(a.folder):
        dirs.sort()
        paths += [os.path.join(root, f) for f in sorted(files) if not f.startswith(".")]
        if len(paths) >= a.files:
            break
    paths = [p for p in paths[:a.files] if os.path.isfile(p)]
    if not paths:
        print("storage_probe.py: %s: no files to read" % a.folder, file=sys.stderr)
        return 1
    size = sum(os.path.getsize(p) for p in paths)
    if 1 not in counts:
        counts = [1] + counts
    if len(counts) < 2:
        print("storage_probe.py: one count of readers (--threads %s): nothing to fit; give two or more, as 1,2,4,8,16"
              % a.threads, file=sys.stderr)
        return 2
    if counts[-1] > len(paths):
        print("storage_probe.py: %d readers would leave some without a file to read (%d files): give more files "
              "(--files, and a folder that has them) or fewer readers (--threads)" % (counts[-1], len(paths)), file=sys.stderr)
        return 2
    print("storage_probe.py: %d file%s, %.1f MB, from %s%s" %
          (len(paths), "" if len(paths) == 1 else "s", size / 1e6, a.folder, " (page cache kept)" if a.cached else ""))
    if len(paths) < 100 or size / len(paths) < 16 * 1024:
        print("storage_probe.py: warning: %d files of %.0f KB on average: too few or too small for a steady fit; "
              "use a folder of at least 100 of the dataset's own files" % (len(paths), size / len(paths) / 1024),
              file=sys.stderr)
    runs = {n: [] for n in counts}
    for _ in range(a.repeat):  # in turn, so that a drift of the storage touches every count alike
        for n in counts:
            runs[n].append(one_pass(paths, n, a.cached))
    cached_read = None
    if not a.cached:  # one pass from the page cache: a storage that reads as fast is not reached
        for p in paths:
            with open(p, "rb", buffering=0) as fh:
                while fh.read(1 << 20):
                    pass
        cached_read = one_pass(paths, 1, True)[0]
    print("%8s %14s %10s %12s" % ("readers", "read (ms)", "sigma", "MB/s"))
    base, points = None, []
    for n in counts:
        mean, wall = sorted(runs[n])[len(runs[n]) // 2]  # the median pass by read time
        base = mean if base is None else base
        sigma = mean / base if base > 0 else float("nan")
        points.append((n, sigma))
        print("%8d %14.3f %10.2f %12.1f" % (n, mean * 1e3, sigma, size / 1e6 / wall if wall > 0 else 0.0))
    n_fit = fit_parallel(points)
    # the same fit on each round of passes alone: how steady it is
    rounds = [fit_parallel([(n, runs[n][r][0] / runs[counts[0]][r][0]) for n in counts]) for r in range(a.repeat)]
    if a.repeat > 1:
        print("fits of each round of passes alone: %s" %
              ", ".join("%.2f" % x if x is not None else "none" for x in rounds))
    if cached_read is not None and base is not None and base < 1.5 * cached_read:
        print("storage_probe.py: warning: the evicted reads (%.3f ms) were about as fast as reads from the page cache "
              "(%.3f ms): eviction had no effect here (a memory file system, or one that keeps its own cache), so "
              "this measures memory copies, not the storage" % (base * 1e3, cached_read * 1e3), file=sys.stderr)
    if n_fit is None:
        print("reads did not slow down with more in flight: leave [pipeline] storage_parallel = 0 (no limit)")
    else:
        print("fitted: sigma(n) = 1 + (n - 1) / %.2f  ->  [pipeline] storage_parallel = %.2f%s"
              % (n_fit, max(n_fit, 1.0), " (at least 1)" if n_fit < 1.0 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
