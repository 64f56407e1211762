#!/usr/bin/python3
"""gen_import_inputs.py - synthetic inputs for the importers' benchmark and fuzz seeds.

  gen_import_inputs.py dftracer DIR RANKS EPOCHS STEPS [NOISE]   trace-R-of-N.pfw files
  gen_import_inputs.py profiler FILE STEPS [NOISE]                one Kineto JSON document
  gen_import_inputs.py table FILE RANKS EPOCHS STEPS              one CSV table

NOISE is the number of unrelated events per step (POSIX reads, cpu ops) that only make the
file big. Timings are deterministic functions of (rank, epoch, step), in µs.
"""
import os, sys

T0 = 1744611912000000


def dftracer(folder, ranks, epochs, steps, noise=0):
    os.makedirs(folder, exist_ok=True)
    for r in range(ranks):
        pid = 1000 + r
        with open(f"{folder}/trace-{r}-of-{ranks}.pfw", "w", buffering=1 << 20) as f:
            w = f.write
            w("[\n")
            w('{"id":1,"name":"SH","cat":"dftracer","pid":%d,"tid":%d,"ph":"M","args":{"name":"python;dlio_benchmark;'
              'workload=synthetic;++workload.reader.read_threads=0;++workload.train.epochs=%d","value":1}}\n' % (pid, pid, epochs))
            w('{"id":2,"name":"start","cat":"dftracer","pid":%d,"tid":%d,"ts":%d,"dur":0,"ph":"X","args":{}}\n' % (pid, pid, T0))
            t = T0 + 1000 + 7 * r
            eid = 3
            for e in range(1, epochs + 1):
                for s in range(1, steps + 1):
                    ask = t
                    rd = ask + 20
                    for i in range(4):  # four samples per batch, each a getitem with a nested read
                        d = 1000 + 37 * ((r + s + i) % 5)
                        for k in range(noise):
                            w('{"id":%d,"name":"pread","cat":"POSIX","pid":%d,"tid":%d,"ts":%d,"dur":%d,"ph":"X",'
                              '"args":{"hhash":9509357668201227806,"p_idx":%d,"fhash":12046336058336786775,"level":10}}\n'
                              % (eid, pid, pid, rd + 5 + k, 3, eid - 1))
                            eid += 1
                        w('{"id":%d,"name":"HDF5Reader.read_index","cat":"reader","pid":%d,"tid":%d,"ts":%d,"dur":%d,"ph":"X",'
                          '"args":{"epoch":"-1","step":"%d","image_idx":"%d","level":9}}\n' % (eid, pid, pid, rd + 2, d - 4, s, i))
                        w('{"id":%d,"name":"TorchDataset.__getitem__","cat":"data_loader","pid":%d,"tid":%d,"ts":%d,"dur":%d,'
                          '"ph":"X","args":{"step":"%d","image_idx":"%d","level":8}}\n' % (eid + 1, pid, pid, rd, d, s, i))
                        eid += 2
                        rd += d + 3
                    stall = rd - ask + 10
                    comp = 5000 + 11 * ((r * 3 + s) % 7)
                    w('{"id":%d,"name":"TorchFramework.compute","cat":"ai_framework","pid":%d,"tid":%d,"ts":%d,"dur":%d,'
                      '"ph":"X","args":{"epoch":"0"}}\n' % (eid, pid, pid, ask + stall + 20, comp))
                    w('{"id":%d,"name":"loop.iter","cat":"data_loader","pid":%d,"tid":%d,"ts":%d,"dur":%d,"ph":"X",'
                      '"args":{"step":"%d","level":8}}\n' % (eid + 1, pid, pid, ask, stall, s))
                    w('{"id":%d,"name":"loop.yield","cat":"data_loader","pid":%d,"tid":%d,"ts":%d,"dur":%d,"ph":"X",'
                      '"args":{"step":"%d","level":8}}\n' % (eid + 2, pid, pid, ask + stall + 5, comp + 40, s))
                    eid += 3
                    t = ask + stall + 5 + comp + 40 + 50
                t += 100000  # between epochs
            w("]\n")


def profiler(path, steps, noise=0):
    with open(path, "w", buffering=1 << 20) as f:
        w = f.write
        w('{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},\n "traceEvents": [\n')
        t = T0
        for n in range(steps):
            dur = 20000 + 13 * (n % 9)
            w('  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 7, "tid": 7, "ts": %d, "dur": %d, '
              '"args": {"External id": %d}},\n' % (n, t, dur, n))
            w('  {"ph": "X", "cat": "user_annotation", "name": "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", '
              '"pid": 7, "tid": 7, "ts": %d, "dur": %d.5, "args": {"External id": %d}},\n' % (t + 30, 70 + n % 50, n))
            for k in range(noise):
                w('  {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 7, "tid": 7, "ts": %d, "dur": 12.0, '
                  '"args": {"External id": %d, "Input Dims": [[64], [64, 512], [512, 64]], "Input type": ["float", "float", "float"]}},\n'
                  % (t + 200 + 40 * k, k))
            t += dur + 25
        w('  {"ph": "i", "name": "end", "pid": 7, "tid": 7, "ts": %d, "s": "t"}\n ]}\n' % t)


def table(path, ranks, epochs, steps):
    with open(path, "w", buffering=1 << 20) as f:
        w = f.write
        w("rank,epoch,step,fetch_start,fetch_end,train_start,step_end,stall_time\n")
        t = 1700000000.0
        for e in range(epochs):
            for s in range(steps):
                for r in range(ranks):
                    fs = t + 0.001 * r
                    stall = 0.002 * ((r + s) % 3)
                    w("%d,%d,%d,%.6f,%.6f,%.6f,%.6f,%.6f\n" % (r, e, s, fs, fs + 0.05, t + 0.06, t + 0.16, stall))
                t += 0.2


if __name__ == "__main__":
    a = sys.argv[1:]
    if not a:
        sys.exit(__doc__)
    if a[0] == "dftracer":
        dftracer(a[1], int(a[2]), int(a[3]), int(a[4]), int(a[5]) if len(a) > 5 else 0)
    elif a[0] == "profiler":
        profiler(a[1], int(a[2]), int(a[3]) if len(a) > 3 else 0)
    elif a[0] == "table":
        table(a[1], int(a[2]), int(a[3]), int(a[4]))
    else:
        sys.exit(__doc__)
