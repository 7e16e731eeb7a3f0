# SPDX-License-Identifier: Apache-2.0
"""The options of analyze.kernel: Python-side type checks, then kprof::Options, which the core
validates (OptionError / UnsupportedError). Nothing here knows the valid string values: the
core's parse functions do."""

from __future__ import annotations

import inspect
import operator
import os
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from kprof._native import core as _core
from kprof.collectors import InfoCollector, normalize
from kprof.errors import OptionError
from kprof.stopping import StoppingRule
from kprof.verbosity import VerbosityLevel

__all__ = ["Settings", "check_arity", "make_settings"]

DURATION_METRIC = "gpu__time_duration.sum"


@dataclass
class Settings:
    """The options of one decorated function, checked once when the decorator is built."""

    #: Runs per config; with a stopping rule, its max_runs (an upper bound).
    runs: int
    metrics: list[str]
    derive_metric: Callable[..., Any] | None
    normalize_against: str | None
    verbosity: VerbosityLevel
    ignore_kernel_list: list[str]
    clock_control: str
    cache_control: str
    replay_mode: str
    thermal_mode: str
    thermal_wait: int | None
    thermal_cont: int | None
    thermal_timeout: int | None
    thermal_device: int | None
    combine_kernel_metrics: str | Callable[[float, float], float] | None
    output_prefix: str
    output_csv: bool
    per_kernel: bool
    #: runs="auto" or a kprof.StoppingRule: each config runs until the rule stops it.
    stopping: StoppingRule | None = None
    info_collectors: list[InfoCollector] | None = None

    def core_options(
        self,
        derive: Callable[[list[float], int], Any] | None = None,
        derive_name: str = "",
        collectors: list[tuple[str, str, Callable[[int, int, str], Any]]] | None = None,
    ) -> Any:
        """A validated _core.Options. ``derive`` is the call's wrapper around derive_metric
        (it needs the call's configs), ``collectors`` the call's info collectors
        (:class:`kprof.collectors.CollectorCalls`); without them the collectors' names are
        still checked, with functions that are never called."""
        o = _core.Options()
        o.runs = 1 if self.stopping is not None else self.runs
        if self.stopping is not None:
            r = self.stopping
            o.stopping = (r.rel_half_width, r.min_runs, r.max_runs, r.time_budget_s)
        if collectors is None:
            collectors = [
                (c.name, c.scope.value, _never_called) for c in self.info_collectors or []
            ]
        o.set_info_collectors(collectors)
        o.metrics = list(self.metrics)
        _set_choice(o, "cache_control", self.cache_control)
        _set_choice(o, "clock_control", self.clock_control)
        _set_choice(o, "replay_mode", self.replay_mode)
        _set_choice(o, "thermal_mode", self.thermal_mode)
        o.thermal_wait = self.thermal_wait
        o.thermal_cont = self.thermal_cont
        o.thermal_timeout = self.thermal_timeout
        o.thermal_device = self.thermal_device
        o.ignore_kernels = list(self.ignore_kernel_list)
        o.combine = self.combine_kernel_metrics
        o.per_kernel = self.per_kernel
        if derive is not None:
            o.set_derive(derive, derive_name)
        o.normalize_against = self.normalize_against or ""
        o.verbosity = int(self.verbosity)
        o.validate()
        return o


def _never_called(config: int, run: int, annotation: str) -> None:
    return None


def _runs(runs: Any) -> tuple[int, StoppingRule | None]:
    """runs=: an int, "auto" (the default StoppingRule) or a StoppingRule."""
    valid = "an integer >= 1, 'auto' or a kprof.StoppingRule"
    if isinstance(runs, str):
        if runs == "auto":
            runs = StoppingRule()
        else:
            raise OptionError("runs", repr(runs), valid)
    if isinstance(runs, StoppingRule):
        for name, kind in (
            ("rel_half_width", "a number"),
            ("min_runs", "an integer"),
            ("max_runs", "an integer"),
            ("time_budget_s", "a number of seconds"),
        ):
            value = getattr(runs, name)
            if kind == "an integer":
                _int_option(f"runs.{name}", value, allow_none=False, valid=kind)
            elif isinstance(value, bool) or not isinstance(value, (int, float)):
                raise OptionError(f"runs.{name}", repr(value), kind)
        return runs.max_runs, runs
    count = _int_option("runs", runs, allow_none=False, valid=valid)
    return count, None  # type: ignore[return-value]


def _set_choice(o: Any, option: str, value: Any) -> None:
    """Sets a string option; the core's parser rejects unknown values and names the valid
    ones. A value that is not a str is reported as itself, with the same valid choices."""
    if isinstance(value, str):
        setattr(o, option, value)
        return
    try:
        setattr(o, option, str(value))
    except OptionError as e:
        raise OptionError(option, repr(value), e.valid) from None
    raise OptionError(option, repr(value), f"a str, {getattr(o, option)!r}")


def _int_option(option: str, value: Any, *, allow_none: bool, valid: str) -> int | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool):
        raise OptionError(option, repr(value), valid)
    try:
        return operator.index(value)
    except TypeError:
        raise OptionError(option, repr(value), valid) from None


def _names(option: str, value: Any, what: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, Iterable):
        raise OptionError(option, repr(value), f"a list of {what} (str)")
    out = []
    for v in value:
        if not isinstance(v, str):
            raise OptionError(option, repr(v), f"a list of {what} (str)")
        out.append(v.strip())
    return out


def check_arity(fn: Callable[..., Any], count: int, option: str, valid: str) -> None:
    """Raises OptionError unless ``fn`` can be called with ``count`` positional arguments.
    Functions whose signature cannot be read (some builtins) are accepted."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    try:
        sig.bind(*([0.0] * count))
    except TypeError:
        name = getattr(fn, "__name__", type(fn).__name__)
        raise OptionError(option, f"{name}{sig}", valid) from None


def make_settings(
    *,
    runs: Any,
    derive_metric: Any,
    normalize_against: Any,
    verbosity: Any,
    metrics: Any,
    ignore_kernel_list: Any,
    clock_control: Any,
    cache_control: Any,
    replay_mode: Any,
    thermal_mode: Any,
    thermal_wait: Any,
    thermal_cont: Any,
    thermal_timeout: Any,
    thermal_device: Any,
    combine_kernel_metrics: Any,
    output_prefix: Any,
    output_csv: Any,
    info_collectors: Any,
    per_kernel: Any,
) -> Settings:
    """Checks the options that do not depend on the decorated function and builds the core
    options once, so that every invalid value is reported when the decorator is built."""
    runs_, stopping = _runs(runs)
    try:
        level = VerbosityLevel(verbosity)
    except (ValueError, TypeError):
        raise OptionError(
            "verbosity",
            repr(verbosity),
            "VerbosityLevel.SILENT (0), VerbosityLevel.INFO (3) or VerbosityLevel.DEBUG (4)",
        ) from None
    if derive_metric is not None and not callable(derive_metric):
        raise OptionError("derive_metric", repr(derive_metric), "a function, or None")
    if normalize_against is not None and (
        not isinstance(normalize_against, str) or not normalize_against
    ):
        raise OptionError(
            "normalize_against", repr(normalize_against), "the name of an annotation (str), or None"
        )
    combine = combine_kernel_metrics
    if combine is not None and not isinstance(combine, str):
        if not callable(combine):
            raise OptionError(
                "combine_kernel_metrics",
                repr(combine),
                "'sum', 'max', 'min', 'mean' or a function of two values",
            )
        check_arity(
            combine,
            2,
            "combine_kernel_metrics",
            "a function of two values, f(a, b) -> value, or 'sum', 'max', 'min', 'mean'",
        )
    thermal = {
        name: _int_option(name, value, allow_none=True, valid="an integer, or None")
        for name, value in (
            ("thermal_wait", thermal_wait),
            ("thermal_cont", thermal_cont),
            ("thermal_timeout", thermal_timeout),
            ("thermal_device", thermal_device),
        )
    }
    collectors = normalize(info_collectors)
    settings = Settings(
        runs=runs_,  # type: ignore[arg-type]
        # "set:NAME" stands for its members from here on (derive_metric takes one value each).
        metrics=list(_core.metric_expand(_names("metrics", metrics, "metric names"))),
        derive_metric=derive_metric,
        normalize_against=normalize_against,
        verbosity=level,
        ignore_kernel_list=_names("ignore_kernel_list", ignore_kernel_list, "kernel names"),
        clock_control=clock_control,
        cache_control=cache_control,
        replay_mode=replay_mode,
        thermal_mode=thermal_mode,
        thermal_wait=thermal["thermal_wait"],
        thermal_cont=thermal["thermal_cont"],
        thermal_timeout=thermal["thermal_timeout"],
        thermal_device=thermal["thermal_device"],
        combine_kernel_metrics=combine,
        output_prefix="",
        output_csv=bool(output_csv),
        per_kernel=bool(per_kernel),
        stopping=stopping,
        info_collectors=collectors,
    )
    settings.core_options()  # every core check, before any GPU work
    # The default folder is made last, so that a rejected option leaves nothing behind.
    if output_prefix is None:
        prefix = tempfile.mkdtemp(prefix="kprof_") + os.sep
    else:
        try:
            prefix = os.fspath(output_prefix)
        except TypeError:
            raise OptionError(
                "output_prefix", repr(output_prefix), "a path prefix (str or os.PathLike), or None"
            ) from None
        if not isinstance(prefix, str):
            prefix = os.fsdecode(prefix)
    settings.output_prefix = prefix
    return settings
