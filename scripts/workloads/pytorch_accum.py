"""pytorch_accum.py - pytorch_breakloop.py's workload with gradient accumulation (whole epochs).

The ranks all-reduce only every --accumulate steps (4; DDP's no_sync in between), one
rank's storage slower; recorded with stallsim_record (datasets/pytorch-accum). Both of
stallsim's models assume an all-reduce at every step: this workload shows what happens when
there is none.

    /usr/bin/python3 scripts/workloads/pytorch_accum.py --nproc 2 --workers 2 --out runs/acc/run
"""
import sys

import pytorch_breakloop

if __name__ == "__main__":
    sys.exit(pytorch_breakloop.main(pytorch_breakloop.parse(__doc__, steps=0, accumulate=4), __file__))
