# SPDX-License-Identifier: Apache-2.0
"""``analyze.kernel(..., devices=...)``: one sweep shared among the GPUs of this machine.

The configs are cut into one contiguous share per listed GPU, in order; each share is profiled
by a worker process of the standard library's process pool (spawned, so that no CUDA context
is inherited), on its GPU, with its own thermal guard and clock readings; the shares come back
merged in config order (:func:`kprof.merge`). One share per worker keeps the fixed cost of a
profile call to one per GPU. A worker finds the benchmark function by importing its module, so
the function must be defined at the top level of a module file.
"""

from __future__ import annotations

import concurrent.futures
import importlib
import multiprocessing
import sys
from collections.abc import Sequence
from typing import Any

from kprof._native import core as _core
from kprof.errors import KprofError, OptionError
from kprof.merging import merge
from kprof.results import ProfileResults

__all__ = ["check_devices", "check_importable", "resolve_devices", "profile_on_devices", "combine"]

_VALID = "'all', or a non-empty list of CUDA device ordinals (ints >= 0), or None"


def check_devices(devices: Any) -> str | list[int] | None:
    """The ``devices`` option checked for its form (decoration time): None, "all" or a list of
    ordinals."""
    if devices is None or devices == "all":
        return devices
    if isinstance(devices, (str, bytes)) or not isinstance(devices, Sequence) or not devices:
        raise OptionError("devices", repr(devices), _VALID)
    for d in devices:
        if isinstance(d, bool) or not isinstance(d, int) or d < 0:
            raise OptionError("devices", repr(devices), _VALID)
    return list(devices)


def resolve_devices(devices: str | list[int]) -> list[int]:
    """The ordinals to run on, checked against the GPUs the driver shows (call time, before any
    GPU work)."""
    count = len(_core.query_system()["devices"])
    if devices == "all":
        if count == 0:
            raise OptionError("devices", "'all'", "a machine with a GPU: the driver shows none")
        return list(range(count))
    assert isinstance(devices, list)
    unknown = [d for d in devices if d >= count]
    if unknown:
        raise OptionError(
            "devices", repr(devices), f"ordinals below {count}: the driver shows {count} GPU(s)"
        )
    return devices


def check_importable(func: Any) -> None:
    """A worker imports the function by module and name: say what to do when it cannot."""
    name = getattr(func, "__qualname__", repr(func))
    module = sys.modules.get(getattr(func, "__module__", ""), None)
    where = None
    if "<locals>" in name or "<lambda>" in name:
        where = "is defined inside a function or is a lambda"
    elif module is None or not getattr(module, "__file__", None):
        where = "is defined where a worker process cannot import it (a notebook or the REPL)"
    if where:
        raise OptionError(
            "devices",
            f"with {name}, which {where}",
            "a benchmark function defined at the top level of a module file (a worker process "
            "imports it by name); or leave devices unset to profile in this process",
        )


def _shares(count: int, parts: int) -> list[range]:
    """`count` configs cut into at most `parts` contiguous shares of nearly equal size."""
    parts = min(parts, count)
    size, extra = divmod(count, parts)
    out, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        out.append(range(start, end))
        start = end
    return out


# What a worker sends back: its results as JSON, or the error it raised and what it measured.
_Outcome = tuple[str | None, BaseException | None, str | None]


def _worker(
    module: str, qualname: str, device: int, share: int, args: tuple, kwargs: dict, configs: list
) -> _Outcome:
    """In a worker: profiles `configs`, its `share` of the sweep, on `device`; returns (results
    JSON, error, partial JSON)."""
    target: Any = importlib.import_module(module)
    for part in qualname.split("."):
        target = getattr(target, part)
    _core.use_device(device)
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        torch.cuda.set_device(device)  # "cuda" tensors go to this GPU too
    try:
        results = target._kprof_profiler.profile(args, kwargs, configs, share=share)
    except KprofError as e:
        partial = e.partial_results
        return None, e, None if partial is None else partial.to_json()
    except Exception as e:  # noqa: BLE001 (sent to the parent, which raises it)
        return None, e, None
    return results.to_json(), None, None


def profile_on_devices(
    profiler: Any,
    args: tuple,
    kwargs: dict,
    configs: list[Any],
    values: list[tuple[Any, ...]],
    devices: list[int],
) -> ProfileResults:
    """Profiles `configs` (as given; `values` are their parameter values, bound) shared among
    `devices` and returns the merged results. A worker's failure keeps the other shares: the
    first failure (in config order) is raised with ``partial_results`` holding every share
    measured."""
    func = profiler.func
    shares = _shares(len(values), len(devices))
    context = multiprocessing.get_context("spawn")
    # One pool per worker: a worker that dies breaks its own pool, not the others' shares.
    pools = [concurrent.futures.ProcessPoolExecutor(1, mp_context=context) for _ in shares]
    try:
        futures = [
            pool.submit(
                _worker,
                func.__module__,
                func.__qualname__,
                device,
                index,
                args,
                kwargs,
                [configs[i] for i in share] if configs else None,
            )
            for index, (pool, device, share) in enumerate(zip(pools, devices, shares, strict=False))
        ]
        outcomes: list[_Outcome] = []
        for device, future in zip(devices, futures, strict=False):
            try:
                outcomes.append(future.result())
            except Exception as e:  # the worker died (BrokenProcessPool) or did not pickle
                died = KprofError(f"the worker profiling on GPU {device} ended: {e}")
                died.__cause__ = e
                outcomes.append((None, died, None))
    finally:
        for pool in pools:
            pool.shutdown(cancel_futures=True)
    return combine(outcomes, [[values[i] for i in share] for share in shares])


def combine(
    outcomes: Sequence[_Outcome], values: Sequence[list[tuple[Any, ...]]]
) -> ProfileResults:
    """The workers' shares merged in config order (``values``: each share's parameter values).
    When a worker failed, its error (the first in config order) is raised with
    ``partial_results`` holding every share measured, the failed ones' measured part
    included."""
    parts: list[ProfileResults] = []
    failure: BaseException | None = None
    for (text, error, partial), share_values in zip(outcomes, values, strict=True):
        text = text if text is not None else partial
        if text is not None:
            parts.append(ProfileResults(_core.Results.from_json(text), None, share_values))
        if error is not None and failure is None:
            failure = error
    if failure is not None:
        if isinstance(failure, KprofError):
            failure.partial_results = merge(parts, shares=True) if parts else None
        raise failure
    return merge(parts, shares=True)
