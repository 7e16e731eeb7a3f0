# SPDX-License-Identifier: Apache-2.0
"""Results of several processes as one: :func:`merge` for results at hand or saved files, and
:func:`gather`, which brings every rank's results to rank 0 through the job's own channel.

The merging itself is the core's (``kprof::merge``, include/kprof/merge.hpp): each part keeps
its session, so every row still says which ``Rank``, ``Host`` and ``Device`` measured it, and
statistics stay per rank.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Sequence
from typing import Any

from kprof import _arguments, _files
from kprof._native import core as _core
from kprof.errors import FormatError, KprofError, OptionError
from kprof.ranks import rank_info
from kprof.results import ProfileResults, load

__all__ = ["merge", "gather"]

# What one rank sends: its results as the core's JSON document, which runs no code when read.
# The parameter columns of gathered results hold the values a saved file holds (int, float, str).
_Payload = str


_PARTS = "a list of ProfileResults or paths of files saved by ProfileResults.save"


def _as_results(part: Any) -> ProfileResults:
    if isinstance(part, ProfileResults):
        return part
    if isinstance(part, (str, os.PathLike)):
        return load(part)
    raise _arguments.type_error("kprof.merge", "each of parts", _PARTS[len("a list of ") :], part)


def _parts(parts: Any) -> list[ProfileResults]:
    """The parts of a merge; a single path or result is refused rather than iterated (a path's
    characters are no files)."""
    if isinstance(parts, (str, bytes, os.PathLike, ProfileResults)) or not isinstance(
        parts, Iterable
    ):
        raise _arguments.type_error("kprof.merge", "parts", _PARTS, parts)
    return [_as_results(p) for p in parts]


def _offset_info(results: ProfileResults, offset: int) -> dict[tuple[str, int, int, str], Any]:
    return {
        (name, config + offset, run, annotation): obj
        for (name, config, run, annotation), obj in results._info_objects.items()
    }


def merge(
    parts: Iterable[ProfileResults | str | os.PathLike[str]], *, shares: bool = False
) -> ProfileResults:
    """Several results as one: the ranks of a job, or the shares of a sweep run on several GPUs.

    Each part's configs follow the one before, in the order given, and each part keeps the
    session it was measured in: every DataFrame's ``Rank``, ``Host`` and ``Device`` columns
    (and ``GPU``, the clocks...) are the part's. Statistics stay as each part computed them,
    ``Geomean`` included. :meth:`ProfileResults.imbalance` then names, where processes measured
    the same thing, the slowest and the fastest::

        merged = kprof.merge(["run/rank0.json", "run/rank1.json"])
        print(merged.imbalance())

    ``kprof merge a.json b.json --out all.json`` does the same with files.

    Args:
        parts: :class:`ProfileResults`, or paths of files saved with
            :meth:`ProfileResults.save` (JSON or Parquet), or both.
        shares: The parts are shares of one sweep measured apart (as ``devices=`` makes them):
            ``Geomean`` is computed again over the whole sweep.

    Raises:
        TypeError: ``parts`` is not a list (a single path or result among them), or one of
            them is neither a :class:`ProfileResults` nor a path.
        kprof.errors.OptionError: ``shares`` is not a bool.
        kprof.errors.FormatError: The parts come from sweeps of different parameters, none is
            given, or a file cannot be read; or they are not the processes of one job: of
            different backends (durations with counters), a metric in different units or
            normalized in one part only, or the same profile twice (the same host, rank,
            device and start time; shares of one sweep are exempt).
    """
    shares = _arguments.flag("shares", shares)
    results = _parts(parts)
    if not results:
        raise FormatError("merge: no results to merge")
    core = (_core.merge_shares if shares else _core.merge)([r.core for r in results])
    configs: list[tuple[Any, ...]] = []
    info: dict[tuple[str, int, int, str], Any] = {}
    for r in results:
        info.update(_offset_info(r, len(configs)))
        configs.extend(r.configs)
    return ProfileResults(core, results[0].parameters, configs, info_objects=info)


def _from_payload(payload: _Payload) -> ProfileResults:
    return ProfileResults(_core.Results.from_json(payload))


def _torch_group() -> Any:
    """torch.distributed when the job initialised it, else None."""
    dist = sys.modules.get("torch.distributed")
    if dist is None or not dist.is_available() or not dist.is_initialized():
        return None
    return dist


def _mpi_comm() -> Any:
    """mpi4py's world communicator when the job runs under mpirun and mpi4py imports."""
    if "mpi4py.MPI" not in sys.modules and not rank_info()["launcher"].startswith("mpirun"):
        return None
    try:
        from mpi4py import MPI  # noqa: PLC0415 (optional, and importing it starts MPI)
    except ImportError:
        return None
    return MPI.COMM_WORLD


# Gathers this process made through files: every rank makes the same calls, so the n-th gather
# of each rank writes files of the n-th name and never meets those of an earlier gather.
_file_gathers = 0

# The launchers' names of one job, so that a folder used by several jobs never mixes their files.
_JOB_VARIABLES = ("TORCHELASTIC_RUN_ID", "SLURM_JOB_ID", "OMPI_MCA_ess_base_jobid")


def _job_id() -> str:
    """This job's id from its launcher (with SLURM's array task), or "job" when none says."""
    for name in _JOB_VARIABLES:
        value = os.environ.get(name)
        if value:
            task = os.environ.get("SLURM_ARRAY_TASK_ID", "")
            return "".join(c if c.isalnum() or c in "-_." else "_" for c in value + task)
    return "job"


def _gather_files(
    payload: _Payload, rank: int, world: int, folder: str, timeout_s: float
) -> list[_Payload] | None:
    """Each rank writes its file in `folder`; rank 0 waits for all of them."""
    global _file_gathers
    call = _file_gathers
    _file_gathers += 1
    job = _job_id()

    def name(r: int) -> str:
        return os.path.join(folder, f"{job}-gather{call}-rank{r:05d}.json")

    # Written whole or not at all: rank 0 never reads half a file.
    _files.write_atomic(name(rank), lambda f: f.write(payload.encode("utf-8")))
    if rank != 0:
        return None
    paths = [name(r) for r in range(world)]
    deadline = time.monotonic() + timeout_s
    while not all(os.path.exists(p) for p in paths):
        if time.monotonic() > deadline:
            missing = [r for r, p in enumerate(paths) if not os.path.exists(p)]
            raise KprofError(
                f"gather: ranks {missing} wrote no results to {folder} within {timeout_s:g} s"
            )
        time.sleep(0.1)
    payloads = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            payloads.append(f.read())
    return payloads


def gather(
    results: ProfileResults, *, folder: str | os.PathLike[str] | None = None, timeout_s: float = 600
) -> ProfileResults | None:
    """Brings every rank's results to rank 0 and returns them merged there (:func:`merge`, in
    rank order); the other ranks get ``None``. Every rank of the job must call it.

    The channel is the job's own: ``torch.distributed`` when it is initialised
    (``gather_object``), mpi4py's world communicator under mpirun, else files in ``folder``, a
    folder every rank can reach (a shared file system)::

        results = bench()                      # each rank profiles its share
        merged = kprof.gather(results)
        if merged is not None:                 # rank 0
            print(merged.to_dataframe()[["Annotation", "Rank", "AvgValue"]])
            print(merged.imbalance())

    A process alone (world size 1) gets its results back unchanged. What travels is each
    rank's JSON document: the parameter columns of the merged results hold the values a saved
    file holds (int, float, or ``str(obj)``), as :func:`kprof.load` gives them. In the files
    channel each rank writes ``<job>-gather<K>-rank<N>.json`` in ``folder``, which stays there:
    ``<job>`` is the launcher's id of the job (``TORCHELASTIC_RUN_ID``, ``SLURM_JOB_ID`` with the
    array task, Open MPI's job id), so that jobs sharing a folder never read each other's files
    (without a launcher id, give each job its own folder), and K counts this process's
    gathers.

    Args:
        results: This rank's results.
        folder: The shared folder for the files channel; needed only when neither
            torch.distributed nor mpi4py is there.
        timeout_s: How long rank 0 waits for the other ranks' files.

    Raises:
        TypeError: ``results`` is not a :class:`ProfileResults`, ``folder`` not a path or
            ``timeout_s`` not a number.
        kprof.errors.OptionError: ``timeout_s`` is negative; or several ranks, no
            torch.distributed or mpi4py, and no ``folder``.
        kprof.errors.KprofError: A rank's file did not come within ``timeout_s``.
    """
    if not isinstance(results, ProfileResults):
        raise _arguments.type_error("kprof.gather", "results", "a ProfileResults", results)
    if folder is not None:
        folder = _arguments.path("kprof.gather", "folder", folder)
    timeout_s = _arguments.number(
        "kprof.gather", "timeout_s", timeout_s, minimum=0, valid="a number of seconds >= 0"
    )
    payload = results.to_json()
    gathered: Sequence[_Payload] | None
    dist = _torch_group()
    comm = None if dist is not None else _mpi_comm()
    # The channel's own numbering where there is one: a job started by
    # torch.multiprocessing.spawn sets no launcher variable.
    if dist is not None:
        rank, world = dist.get_rank(), dist.get_world_size()
    elif comm is not None:
        rank, world = comm.Get_rank(), comm.Get_size()
    else:
        info = rank_info()
        rank, world = info["rank"], info["world_size"]
    if world <= 1:
        return results
    if dist is not None:
        out: list[Any] | None = [None] * world if rank == 0 else None
        dist.gather_object(payload, out, dst=0)
        gathered = out
    elif comm is not None:
        gathered = comm.gather(payload, root=0)
    elif folder is not None:
        gathered = _gather_files(payload, rank, world, folder, timeout_s)
    else:
        raise OptionError(
            "folder",
            "None",
            "a folder every rank can reach, when neither torch.distributed (initialised) nor "
            "mpi4py is there to gather through",
        )
    if rank != 0 or gathered is None:
        return None
    return merge([_from_payload(p) for p in gathered])
