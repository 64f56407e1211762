"""rec_datasets.py - the small datasets (and the two-epoch loop) of the recorder's cases
(tests/recorder/cases.py, spawn_cases.py), in a module of their own so that spawned loader
workers can import them."""
import time

import torch
import torch.utils.data as tud


class Numbers(tud.Dataset):
    """Sample i is i; sample `bad` raises; `offset` is what a worker_init_fn may set."""

    offset = 0

    def __init__(self, n, bad=-1):
        self.n, self.bad = n, bad

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.bad:
            raise ValueError("bad sample %d" % i)
        return torch.tensor(i + self.offset)


class Stream(tud.IterableDataset):
    """An IterableDataset sharded over the workers by get_worker_info, unevenly: worker w
    yields sizes[w] samples, 100 * w + i, each taking 10 ms x (w + 1), so that each batch's
    fetch time tells whose it is (with no workers the process yields worker 0's)."""

    def __init__(self, sizes):
        self.sizes = sizes

    def __iter__(self):
        info = tud.get_worker_info()
        w = 0 if info is None else info.id
        for i in range(self.sizes[w]):
            time.sleep(0.01 * (w + 1))
            yield torch.tensor(100 * w + i)




def epochs_loop(loader, rec=None):
    """Two epochs over loader (labelled with rec.set_epoch when rec is given): the batches."""
    got = []
    for e in range(2):
        if rec is not None:
            rec.set_epoch(e)
        got += [b.tolist() for b in loader]
    return got
