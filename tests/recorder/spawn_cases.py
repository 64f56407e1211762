"""spawn_cases.py - the recorder with loader workers started by spawn and by forkserver
(which unpickle the wrapped dataset, collate function and tagged indices instead of
inheriting them): a map-style and an IterableDataset, and an IterableDataset whose items are
batches (batch_size=None), persistent workers, two epochs; each
loop gets what it gets without the recorder. Prints "ok NAME" or "FAIL NAME: why" per case
and writes the recordings under OUT (argv[1]) for tests/cli/cli_pytorch.sh to import.

    /usr/bin/python3 tests/recorder/spawn_cases.py OUT
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import torch.utils.data as tud  # noqa: E402
import stallsim_record as sr  # noqa: E402
from rec_datasets import Numbers, Stream, epochs_loop  # noqa: E402


def main(out):
    for method in ("spawn", "forkserver"):
        for kind, ds, bs in (("map", lambda: Numbers(12), 3), ("iterable", lambda: Stream([6, 3]), 3),
                             ("nobatch", lambda: Stream([3, 1]), None)):
            name = "%s_%s" % (method, kind)

            def make():
                return tud.DataLoader(ds(), batch_size=bs, num_workers=2, persistent_workers=True,
                                      multiprocessing_context=method)
            plain = epochs_loop(make())
            rec = sr.Recorder(os.path.join(out, name, "run"))
            recorded = epochs_loop(rec.wrap(make()), rec)
            rec.close()
            print("ok %s" % name if plain == recorded else "FAIL %s: %r != %r" % (name, recorded, plain))
            sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1])
