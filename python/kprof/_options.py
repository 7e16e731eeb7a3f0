# SPDX-License-Identifier: Apache-2.0
"""The options of analyze.kernel, checked once when the decorator is built.

Every option is a row of the option table in ``include/kprof/options.hpp``:
``_core.Options(**keywords)`` converts each keyword by its row (a value of the wrong type
raises :class:`kprof.errors.OptionError` there) and ``validate_settings()`` makes every check
of the core but one: the metric names are checked against the GPU when a profile runs. Nothing
here knows what values are valid. What stays in Python is what only Python can see: the arity
of functions (a Python signature) and nsight-python's forms of info collectors
(:mod:`kprof.collectors`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from kprof._native import core as _core
from kprof.collectors import normalize
from kprof.errors import OptionError
from kprof.stopping import StoppingRule
from kprof.verbosity import VerbosityLevel

__all__ = ["Settings", "check_arity"]


class Settings:
    """The options of one decorated function: the core's options, built and checked once when
    the decorator is built, and what each call reads from them.

    Args:
        keywords: The options of ``analyze.kernel`` by name (every keyword but ``configs``).
    """

    def __init__(self, keywords: dict[str, Any]) -> None:
        keywords = dict(keywords)
        #: The collectors in kprof's form; each call wraps them (CollectorCalls).
        self.info_collectors = normalize(keywords["info_collectors"])
        # The core checks their names now; each call passes functions of its own (for_call).
        keywords["info_collectors"] = [
            (c.name, c.scope.value, _never_called) for c in self.info_collectors
        ]
        combine = keywords["combine_kernel_metrics"]
        if callable(combine) and not isinstance(combine, str):
            check_arity(
                combine,
                2,
                "combine_kernel_metrics",
                "a function of two values, f(a, b) -> value, or 'sum', 'max', 'min', 'mean'",
            )
        options = _core.Options(**keywords)
        # Every core check but the metric names against the GPU's catalog, which each call
        # makes before any GPU work (_core.profile): a module that declares benchmarks imports
        # on a machine whose GPU lacks a metric, as with nsight-python.
        options.validate_settings()
        # The front end writes the CSV files itself, one set per call named after the function.
        self.output_csv: bool = options.output_csv
        options.output_csv = False
        # The folder of a given prefix that CSV files go to is made now, so that one that cannot
        # be is said before any GPU work. The default, a fresh temporary folder, is made when a
        # file first goes there (output_prefix): a function that writes nothing leaves no empty
        # folder behind.
        #: Whether the user chose the prefix: partial results of a failed call are saved there.
        self.prefix_given: bool = bool(options.output_prefix)
        if self.prefix_given and self.output_csv:
            options.output_prefix = _core.make_output_prefix(options)
        self._prefix: str = options.output_prefix
        #: The user's function; each call passes the call's parameter values to it (for_call).
        self.derive_metric: Callable[..., Any] | None = options.derive_metric
        self.verbosity = VerbosityLevel(options.verbosity)
        runs = options.runs
        #: runs="auto" or a kprof.StoppingRule: each config runs until the rule stops it.
        self.stopping = StoppingRule(*runs) if isinstance(runs, tuple) else None
        #: Runs per config; with a stopping rule, its max_runs (an upper bound).
        self.runs: int = runs if self.stopping is None else self.stopping.max_runs
        #: The metrics, sets replaced by their members (derive_metric takes one value each).
        self.metrics: list[str] = options.measured_metrics
        self.options = options

    @property
    def output_prefix(self) -> str:
        """The prefix files are written with: the user's, or a fresh temporary folder made now,
        at its first use, and kept for every later call."""
        if not self._prefix:
            self._prefix = _core.make_output_prefix(self.options)
        return self._prefix

    def core_options(
        self,
        derive: Callable[[list[float], int], Any] | None = None,
        collectors: list[tuple[str, str, Callable[[int, int, str], Any]]] | None = None,
    ) -> Any:
        """The validated _core.Options of one call: ``derive`` is the call's wrapper around
        derive_metric (it needs the call's configs), ``collectors`` the call's info collectors
        (:class:`kprof.collectors.CollectorCalls`). Without either, the options built when the
        decorator was built, unchanged."""
        if derive is None and not collectors:
            return self.options
        return self.options.for_call(derive, collectors)


def _never_called(config: int, run: int, annotation: str) -> None:
    return None


def check_arity(fn: Callable[..., Any], count: int, option: str, valid: str) -> None:
    """Raises OptionError unless ``fn`` can be called with ``count`` positional arguments.
    Functions whose signature cannot be read (some builtins) are accepted. A Python signature
    has no C++ counterpart, so this check is the front end's."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    try:
        sig.bind(*([0.0] * count))
    except TypeError:
        name = getattr(fn, "__name__", type(fn).__name__)
        raise OptionError(option, f"{name}{sig}", valid) from None
