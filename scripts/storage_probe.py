#!/usr/bin/env python3
"""storage_probe.py - measures how a storage's reads slow down with more of them in flight,
for the pipeline model's storage sharing ([pipeline] storage_parallel, README and
sim/models/MODELS-pipeline.md): reads the files of FOLDER (a sample of the training set's own
files) with 1, 2, 4, ... threads, and prints each read's mean time, its slowdown sigma(n)
against one thread, the throughput, and N fitted to sigma(n) = 1 + (n - 1) / N by least
squares through sigma(1) = 1. Standard library only.

On Linux each file is evicted from the page cache before it is read
(posix_fadvise DONTNEED; --cached to keep the cache), so the reads reach the storage as a
first epoch's would; files the cache cannot drop (some network file systems) read from
memory and show no slowdown, so use files the job has not read recently there."""
import argparse
import os
import sys
import threading
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


def read_all(paths, times, lock):
    mine = []
    for p in paths:
        t = time.perf_counter()
        with open(p, "rb", buffering=0) as fh:
            while fh.read(1 << 20):
                pass
        mine.append(time.perf_counter() - t)
    with lock:
        times.extend(mine)


def one_pass(paths, threads, cached):
    if not cached:
        for p in paths:
            evict(p)
    times, lock = [], threading.Lock()
    work = [threading.Thread(target=read_all, args=(paths[i::threads], times, lock)) for i in range(threads)]
    t0 = time.perf_counter()
    for w in work:
        w.start()
    for w in work:
        w.join()
    wall = time.perf_counter() - t0
    return sum(times) / len(times), wall


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
                    help="the reads in flight to measure, comma-separated (default 1,2,4,8,16)")
    ap.add_argument("--files", type=int, default=400, help="files read per measurement (default 400)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="passes per thread count, taken in turn (1, 2, 4, ..., 1, 2, 4, ...); the median counts (default 3)")
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
    print("storage_probe.py: %d files, %.1f MB, from %s%s" %
          (len(paths), size / 1e6, a.folder, " (page cache kept)" if a.cached else ""))
    runs = {n: [] for n in counts}
    for _ in range(a.repeat):  # in turn, so that a drift of the storage touches every count alike
        for n in counts:
            runs[n].append(one_pass(paths, n, a.cached))
    print("%8s %14s %10s %12s" % ("threads", "read (ms)", "sigma", "MB/s"))
    base, points = None, []
    for n in counts:
        mean, wall = sorted(runs[n])[len(runs[n]) // 2]  # the median pass by read time
        base = mean if base is None else base
        sigma = mean / base if base > 0 else float("nan")
        points.append((n, sigma))
        print("%8d %14.3f %10.2f %12.1f" % (n, mean * 1e3, sigma, size / 1e6 / wall if wall > 0 else 0.0))
    n_fit = fit_parallel(points)
    if n_fit is None:
        print("reads did not slow down with more in flight: leave [pipeline] storage_parallel = 0 (no limit)")
    else:
        print("fitted: sigma(n) = 1 + (n - 1) / %.2f  ->  [pipeline] storage_parallel = %.2f" % (n_fit, max(n_fit, 1.0)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
