# SPDX-License-Identifier: Apache-2.0
"""Custom information collectors: nsight-python's ``CollectionScope`` and ``InfoCollector``.

A collector is a function whose value becomes a column of the results, called at one of four
moments of a profile (its *scope*). Give collectors to ``kprof.analyze.kernel`` as
``info_collectors=[...]``, in any of nsight-python's three forms::

    @kprof.experimental.collect(scope=kprof.CollectionScope.RUN)
    def gpu_memory(*config):
        return torch.cuda.memory_allocated()

    @kprof.analyze.kernel(
        configs=[(1024,), (4096,)],
        runs=10,
        info_collectors=[
            gpu_memory,                                               # decorated function
            kprof.InfoCollector("Torch", lambda: torch.__version__,   # InfoCollector
                                kprof.CollectionScope.ONCE),
            ("Elements", lambda n: n * n, "config"),                  # (name, function, scope)
        ],
    )
    def bench(n): ...

Functions decorated by nsight-python's own ``nsight.experimental.collect`` work too.

The core calls the collectors (``kprof::InfoCollector``) and computes their statistics; this
module binds their arguments, turns their values into what the core keeps (numbers, or the text
of anything else) and keeps the original Python objects for the DataFrames.
"""

from __future__ import annotations

import inspect
import numbers
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from kprof.errors import OptionError

__all__ = ["CollectionScope", "InfoCollector", "bind_args_to_signature"]


class CollectionScope(Enum):
    """When a collector is called (nsight-python's values).

    Attributes:
        ONCE: Once per profile (each call of the decorated function), before the first
            config, with no arguments. For static facts: driver or library versions.
        CONFIG: Once per config, before its first run, with the config's values.
        RUN: Before every run (after the thermal guard's pause, if any), with the config's
            values. For what changes from run to run: memory in use, clocks.
        ANNOTATION: Whenever an annotation opens, before its region starts, with the
            annotation's path (its name; ``"outer/inner"`` when nested) and then the config's
            values. Its values belong to that annotation's rows.
    """

    ONCE = "once"
    CONFIG = "config"
    RUN = "run"
    ANNOTATION = "annotation"


@dataclass
class InfoCollector:
    """A custom information collector (nsight-python's dataclass).

    Attributes:
        name: The column name in the results. It may not be one of kprof's columns
            (``AvgValue``, ``MeasuredClock``...) nor a parameter of the decorated function.
        callback: The function to call.
        scope: When to call it (:class:`CollectionScope`).

    Numbers collected per config, run or annotation become four columns of each row,
    ``<name>_Avg``, ``<name>_Std`` (sample), ``<name>_Min`` and ``<name>_Max``, over the row's
    values; once-scope values and anything that is not a number (text, objects) become one
    column ``<name>``. Every value, per run, is in :meth:`kprof.ProfileResults.raw_dataframe`.
    """

    name: str
    callback: Callable[..., Any]
    scope: CollectionScope

    def collect(self, *args: Any) -> Any:
        """Calls the callback: with no arguments in once scope, with ``args`` otherwise."""
        if self.scope == CollectionScope.ONCE:
            return self.callback()
        return self.callback(*args)


def canonical_scope(scope: Any) -> CollectionScope:
    """A :class:`CollectionScope` from itself or its value (``"run"``); OptionError (a
    ``ValueError``, as nsight-python's) otherwise."""
    if isinstance(scope, CollectionScope):
        return scope
    try:
        return CollectionScope(scope)
    except (TypeError, ValueError):
        valid = ", ".join(repr(s.value) for s in CollectionScope)
        raise OptionError(
            "scope", repr(scope), f"one of {valid}, or a kprof.CollectionScope"
        ) from None


_FORMS = (
    "a function decorated with kprof.experimental.collect(scope=...), a kprof.InfoCollector, "
    "or a (name, function, scope) tuple"
)


def _one(entry: Any) -> InfoCollector:
    if isinstance(entry, InfoCollector):
        name, callback, scope = entry.name, entry.callback, entry.scope
    elif isinstance(entry, tuple) and len(entry) == 3:
        name, callback, scope = entry
    elif callable(entry) and hasattr(entry, "_nsight_collector_scope"):
        name = getattr(entry, "_nsight_collector_name", getattr(entry, "__name__", ""))
        callback, scope = entry, entry._nsight_collector_scope
    elif callable(entry):
        name = getattr(entry, "__name__", repr(entry))
        raise OptionError(
            "info_collectors",
            repr(name),
            f"{_FORMS}; this function has no scope: decorate it with "
            "kprof.experimental.collect(scope=...)",
        )
    else:
        raise OptionError("info_collectors", repr(entry), _FORMS)
    if not isinstance(name, str) or not name:
        raise OptionError("info_collectors", repr(name), "a collector name (a non-empty str)")
    if not callable(callback):
        raise OptionError("info_collectors", repr(callback), f"a function to call for '{name}'")
    return InfoCollector(name, callback, canonical_scope(scope))


def normalize(info_collectors: Any) -> list[InfoCollector]:
    """The collectors given to ``analyze.kernel``, as InfoCollector objects. Names are
    checked by the core (empty, duplicate, reserved) and against the function's parameters by
    :func:`check_parameter_names`."""
    if info_collectors is None:
        return []
    if isinstance(info_collectors, (str, bytes)) or not isinstance(info_collectors, Sequence):
        raise OptionError("info_collectors", repr(info_collectors), f"a list of {_FORMS}s")
    return [_one(entry) for entry in info_collectors]


def check_parameter_names(collectors: Sequence[InfoCollector], params: Sequence[str], func: str):
    """A collector may not take the name of a parameter column."""
    for c in collectors:
        if c.name in params:
            raise OptionError(
                "info_collectors",
                repr(c.name),
                f"a name that is not a parameter of {func}({', '.join(params)}): the parameter's "
                "column would hide the collector's",
            )


def bind_args_to_signature(
    callback: Callable[..., Any], leading: Sequence[Any], config: Sequence[Any]
) -> list[Any]:
    """The positional arguments of a collector call (nsight-python's rule): ``leading``
    (the annotation's path in annotation scope), then the config's values. A collector taking
    ``*args`` gets every value; one of fixed arity only as many leading config values as its
    remaining positional parameters (so defaults filled into the config do not break it)."""
    try:
        params = list(inspect.signature(callback).parameters.values())
    except (TypeError, ValueError):
        return [*leading, *config]
    if any(p.kind == inspect.Parameter.VAR_POSITIONAL for p in params):
        return [*leading, *config]
    positional = [
        p
        for p in params
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ]
    remaining = max(0, len(positional) - len(leading))
    return [*leading, *list(config)[:remaining]]


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


class CollectorCalls:
    """The collectors of one profile: what the core calls, and the objects they returned.

    The core calls ``call(config, run, annotation)`` of each collector at its scope; the
    value goes back as a float (numbers), a str (anything else: ``str(obj)``, which saved files
    keep) or None (no value). A collector that raises gives None and one ``RuntimeWarning``
    per collector and scope. Objects that are not numbers are kept in :attr:`objects` under
    ``(name, config, run, annotation)`` so the DataFrames show them as they were.
    """

    def __init__(self, collectors: Sequence[InfoCollector], config_args: Sequence[tuple]):
        self.collectors = list(collectors)
        self.config_args = list(config_args)
        self.objects: dict[tuple[str, int, int, str], Any] = {}
        self._warned: set[str] = set()

    def core_collectors(self) -> list[tuple[str, str, Callable[[int, int, str], Any]]]:
        return [(c.name, c.scope.value, self._caller(c)) for c in self.collectors]

    def _caller(self, c: InfoCollector) -> Callable[[int, int, str], Any]:
        def call(config: int, run: int, annotation: str) -> Any:
            return self._call(c, config, run, annotation)

        return call

    def _call(self, c: InfoCollector, config: int, run: int, annotation: str) -> Any:
        values = self.config_args[config] if c.scope != CollectionScope.ONCE else ()
        leading = (annotation,) if c.scope == CollectionScope.ANNOTATION else ()
        try:
            value = c.collect(*bind_args_to_signature(c.callback, leading, values))
        except Exception as e:
            self._warn(c, e)
            return None
        if value is None:
            return None
        if _is_number(value):
            return float(value)
        self.objects[(c.name, config, run, annotation)] = value
        return value if isinstance(value, str) else str(value)

    def _warn(self, c: InfoCollector, error: Exception) -> None:
        key = f"{c.scope.value}:{c.name}"
        if key in self._warned:
            return
        self._warned.add(key)
        warnings.warn(
            f"Info collector '{c.name}' ({c.scope.value} scope) raised "
            f"{type(error).__name__}: {error}. Its column will be None for failed runs.",
            RuntimeWarning,
            stacklevel=2,
        )
