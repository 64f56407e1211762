"""alone_ddp.py - a 2-rank gloo job (CPU) whose rank 0 alone records a validation loader
with Recorder(PREFIX, world_size=1) while rank 1 records nothing: rank 0 must not wait for
rank 1 (the constructor is collective only within the recorder's own world). Prints
"ok alone_ddp" when both ranks finish; tests/cli/cli_pytorch.sh runs it under a timeout and
imports OUT/val (one GPU).

    /usr/bin/python3 tests/recorder/alone_ddp.py OUT PORT
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402
import torch.utils.data as tud  # noqa: E402
import stallsim_record as sr  # noqa: E402
from rec_datasets import Numbers  # noqa: E402


def run(rank, out, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=port)
    dist.init_process_group("gloo", rank=rank, world_size=2)
    if rank == 0:
        rec = sr.Recorder(os.path.join(out, "val"), world_size=1)
        got = [b.tolist() for b in rec.wrap(tud.DataLoader(Numbers(12), batch_size=4, num_workers=1))]
        rec.close()
        assert len(got) == 3, got
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(run, args=(sys.argv[1], sys.argv[2]), nprocs=2)
    print("ok alone_ddp")
