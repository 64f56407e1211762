# env.sh - sourced by the scripts: lets Open MPI's mpirun run as root (containers, CI) and
# oversubscribe the cores of a small machine.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
