"""kprof.rank_info(): the rank of this process as torchrun, mpirun or srun set it."""

from __future__ import annotations

from pathlib import Path

import kprof
import pytest
from kprof.errors import KprofError

DATA = Path(__file__).resolve().parents[1] / "data"
LAUNCHER_VARIABLES = (
    "RANK",
    "WORLD_SIZE",
    "LOCAL_RANK",
    "LOCAL_WORLD_SIZE",
    "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_SIZE",
    "OMPI_COMM_WORLD_LOCAL_RANK",
    "OMPI_COMM_WORLD_LOCAL_SIZE",
    "PMI_RANK",
    "PMI_SIZE",
    "MPI_LOCALRANKID",
    "MPI_LOCALNRANKS",
    "SLURM_PROCID",
    "SLURM_NTASKS",
    "SLURM_LOCALID",
    "SLURM_NTASKS_PER_NODE",
)


@pytest.fixture
def alone(monkeypatch):
    for name in LAUNCHER_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_a_process_of_its_own_is_rank_zero_of_one(alone):
    assert kprof.rank_info() == {
        "rank": 0,
        "world_size": 1,
        "local_rank": 0,
        "local_world_size": 1,
        "launcher": "none",
    }


def test_torchrun_and_mpirun_are_read_from_the_environment(alone):
    alone.setenv("OMPI_COMM_WORLD_RANK", "1")
    alone.setenv("OMPI_COMM_WORLD_SIZE", "2")
    info = kprof.rank_info()
    assert (info["rank"], info["world_size"], info["launcher"]) == (1, 2, "mpirun (Open MPI)")
    for name, value in (("RANK", "3"), ("WORLD_SIZE", "4"), ("LOCAL_RANK", "1")):
        alone.setenv(name, value)
    info = kprof.rank_info()  # torchrun's own ranks, inside whatever started it
    assert (info["rank"], info["world_size"], info["local_rank"]) == (3, 4, 1)
    assert info["launcher"] == "torchrun"


def test_a_variable_without_a_number_is_named(alone):
    alone.setenv("RANK", "two")
    with pytest.raises(KprofError, match="RANK='two' is not a number"):
        kprof.rank_info()


def test_results_saved_before_ranks_read_as_a_process_of_its_own():
    session = kprof.load(DATA / "h200-analysis-2026-12-03.json").session
    assert (session["rank"], session["world_size"], session["launcher"]) == (0, 1, "none")
