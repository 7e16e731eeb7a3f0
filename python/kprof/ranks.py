"""Which rank of a job this process is: the launcher's word, read from the environment."""

from __future__ import annotations

from typing import Any

from kprof._native import core


def rank_info() -> dict[str, Any]:
    """This process's place in its job, as its launcher set it in the environment.

    torchrun (``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``), mpirun of Open MPI
    (``OMPI_COMM_WORLD_*``) or of MPICH and Intel MPI (``PMI_RANK``, ``PMI_SIZE``,
    ``MPI_LOCALRANKID``), and SLURM's srun (``SLURM_PROCID``, ``SLURM_NTASKS``,
    ``SLURM_LOCALID``) are read in that order::

        >>> kprof.rank_info()   # under torchrun --nproc_per_node 4, the third process
        {'rank': 2, 'world_size': 4, 'local_rank': 2, 'local_world_size': 4,
         'launcher': 'torchrun'}

    A process of its own is rank 0 of 1, launcher ``"none"``. Every profile records the same
    in its session (``results.session["rank"]``, ``"world_size"``, ``"local_rank"``,
    ``"launcher"``) and its reports say "rank 2 of 4". Raises :class:`kprof.errors.KprofError`
    when a launcher's variable holds no number (``RANK='x'``).
    """
    return dict(core.rank_info())
