"""ddp_launch.py - starts a workload script's ranks on this machine, as torchrun would: one
process per rank (gloo rendezvous on a free local port, one thread each), for the
scripts/workloads/pytorch_*.py jobs, which call launch() when given --nproc N; and, in a
rank, joins the process group, also where mpirun or srun started it."""
import os
import socket
import subprocess
import sys
import time


# the rank and world size variables of the launchers join() knows, and the local rank's
LAUNCHERS = (("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"),
             ("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"), ("SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"))
# the rendezvous where a launcher gives none: one machine, a port of its own
DEFAULT_ADDR, DEFAULT_PORT = "127.0.0.1", "29517"


def _launcher():
    """The (rank, size, local rank) variables of the launcher that started this process, or
    None. Slurm's count only inside a job step (srun), not in the batch script itself."""
    for r, w, local in LAUNCHERS:
        if r in os.environ and w in os.environ:
            if r.startswith("SLURM_") and os.environ.get("SLURM_STEP_ID", "batch") in ("batch", "4294967294"):
                continue
            return r, w, local
    return None


def in_rank():
    """True in a rank: one that launch(), torchrun, mpirun or srun started."""
    return "RANK" in os.environ or _launcher() is not None


def rank_env():
    """Where RANK is unset, sets RANK, WORLD_SIZE and LOCAL_RANK from the launcher's variables
    (mpirun, srun; rank 0 of 1 without a launcher), and MASTER_ADDR and MASTER_PORT where
    unset, as init_process_group's env:// rendezvous wants them. Returns False where no
    launcher started this process."""
    started = in_rank()
    if "RANK" not in os.environ:
        r, w, local = _launcher() or (None, None, None)
        os.environ.update(RANK=os.environ[r] if r else "0", WORLD_SIZE=os.environ[w] if w else "1",
                          LOCAL_RANK=os.environ.get(local, "0") if local else "0")
    os.environ.setdefault("MASTER_ADDR", DEFAULT_ADDR)
    os.environ.setdefault("MASTER_PORT", DEFAULT_PORT)
    return started


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(script, nproc):
    """Runs `script` with this process's arguments (less `--nproc N`, where given) as ranks
    0..nproc-1; stops the others when one fails. Returns the first failing rank's status, or 0."""
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()), WORLD_SIZE=str(nproc),
               OMP_NUM_THREADS="1")
    args = sys.argv[1:]
    if "--nproc" in args:
        i = args.index("--nproc")
        args = args[:i] + args[i + 2:]
    procs = [subprocess.Popen([sys.executable, os.path.abspath(script)] + args,
                              env=dict(env, RANK=str(r), LOCAL_RANK=str(r))) for r in range(nproc)]
    try:
        while any(p.poll() is None for p in procs):
            if any(p.returncode for p in procs):
                break
            time.sleep(0.2)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return next((p.returncode for p in procs if p.returncode), 0)


def join():
    """In a rank that launch() started (or torchrun, mpirun, srun: rank_env()): one thread for
    torch, PyTorch's warning about more workers than cores silenced (a what-if recording
    means it), this rank's gloo process group joined. Returns (rank, world size)."""
    import warnings
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore", message="This DataLoader will create")
    rank_env()
    dist.init_process_group("gloo")
    return dist.get_rank(), dist.get_world_size()
