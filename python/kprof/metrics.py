# SPDX-License-Identifier: Apache-2.0
"""Hardware-counter metrics: the catalog of a GPU chip, metric sets and pass counts.

The catalog comes from CUPTI's Profiler Host API, which runs on the CPU: for a named chip it
needs no GPU and no driver::

    import kprof

    gh100 = kprof.metrics.catalog("GH100")          # H100 and H200
    gh100.search("dram__bytes")                     # ['dram__bytes.avg', ...]
    gh100.describe("dram__bytes_read.sum").unit     # 'byte'
    gh100.passes(["sm__throughput.avg.pct_of_peak_sustained_elapsed"])  # 8
    gh100.passes("set:speed-of-light")              # 9
    [s.name for s in kprof.metrics.sets()]          # ['speed-of-light', 'memory', ...]

Names follow Nsight Compute: base metric, rollup, optional submetric
(``dram__bytes_read.sum.per_second``). ``"set:NAME"`` in a metric list stands for the members
of a set. ``catalog()`` without a chip uses the current GPU's and raises
:class:`kprof.errors.NoGpuError` when there is none. The same queries on the command line:
``kprof metrics --chip GH100 --search dram__bytes``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kprof import _arguments
from kprof._native import core as _core
from kprof.errors import NoGpuError

__all__ = [
    "Catalog",
    "MetricInfo",
    "MetricSet",
    "SET_PREFIX",
    "catalog",
    "current_chip",
    "expand",
    "sets",
    "supported_chips",
]

#: The prefix that names a set in a metric list: ``"set:memory"``.
SET_PREFIX = "set:"


@dataclass(frozen=True)
class MetricInfo:
    """What the Profiler Host API says about one metric name.

    Attributes:
        name: The name asked for.
        base: Its base metric, group prefix included (``"dram__bytes_read"``).
        suffix: Rollup and submetric (``".sum.per_second"``); ``""`` for a base metric.
        type: ``"counter"``, ``"ratio"`` or ``"throughput"``.
        unit: Dimension of the values (``"byte"``, ``"nanosecond"``, ``"percent"``,
            ``"byte/second"``); ``""`` for a dimensionless ratio.
        hw_unit: The hardware unit that counts it (``"dram"``, ``"sm"``, ``"lts"``...).
        description: CUPTI's one-line description.
        passes: Passes needed to collect this metric alone; ``None`` for a base metric, which
            needs a suffix to be collected.
        suffixes: Every suffix the base metric takes.
    """

    name: str
    base: str
    suffix: str
    type: str
    unit: str
    hw_unit: str
    description: str
    passes: int | None
    suffixes: list[str] = field(default_factory=list, repr=False)


@dataclass(frozen=True)
class MetricSet:
    """A named group of metrics that answers one question (``question``)."""

    name: str
    question: str
    metrics: list[str]

    @property
    def ref(self) -> str:
        """How a metric list names the set: ``"set:" + name``."""
        return SET_PREFIX + self.name


def _names(names: str | Iterable[str], function: str = "kprof.metrics") -> list[str]:
    """A metric name or an iterable of names, as a list; TypeError naming ``function`` for
    anything else."""
    if isinstance(names, str):
        return [names]
    if isinstance(names, Iterable) and not isinstance(names, (bytes, Mapping)):
        out = list(names)
        if all(isinstance(n, str) for n in out):
            return out
    raise TypeError(
        f"{function} takes a metric name (str) or a list of them, not {type(names).__name__} "
        f"({names!r})"
    )


class Catalog:
    """The metrics of one chip. Get one with :func:`catalog`; catalogs are built once per chip
    and process (about 0.1 s) and shared."""

    def __init__(self, native: Any) -> None:
        self._native = native

    @property
    def chip(self) -> str:
        """The chip, as CUPTI names it (``"GH100"``)."""
        return str(self._native.chip)

    def base_names(self) -> list[str]:
        """Base metrics, sorted; group-prefixed ones (``TriageCompute.sm__throughput``)
        included."""
        return list(self._native.base_names())

    def names(self) -> list[str]:
        """Every collectable name (base metric x suffix), sorted."""
        return list(self._native.names())

    def __len__(self) -> int:
        return int(self._native.size())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and bool(self._native.contains(name))

    def is_base(self, name: str) -> bool:
        """Whether ``name`` is a base metric (which needs a suffix to be collected)."""
        return bool(self._native.is_base(_arguments.text("Catalog.is_base", "name", name)))

    def search(self, pattern: str) -> list[str]:
        """Collectable names matching ``pattern``, sorted. Case is ignored; a pattern with
        ``*`` or ``?`` must match the whole name, any other may match any part of it."""
        return list(self._native.search(_arguments.text("Catalog.search", "pattern", pattern)))

    def search_base(self, pattern: str) -> list[str]:
        """Base metrics matching ``pattern`` (same rules as :meth:`search`)."""
        pattern = _arguments.text("Catalog.search_base", "pattern", pattern)
        return list(self._native.search_base(pattern))

    def describe(self, name: str, *, passes: bool = True) -> MetricInfo:
        """Type, unit, description, pass count and suffixes of a collectable name or a base
        metric. Raises :class:`kprof.errors.OptionError` naming the closest valid names.
        ``passes=False`` leaves ``passes`` at ``None`` and saves the CUPTI configuration a pass
        count costs (a few ms), for describing many names."""
        name = _arguments.text("Catalog.describe", "name", name)
        return MetricInfo(**self._native.describe(name, _arguments.flag("passes", passes)))

    def passes(self, names: str | Iterable[str]) -> int:
        """Passes the range profiler needs to collect ``names`` together (``"set:NAME"``
        entries stand for their members). Computed on the CPU, without a GPU."""
        return int(self._native.passes(_names(names, "Catalog.passes")))

    def closest(self, name: str, n: int = 5) -> list[str]:
        """Up to ``n`` valid names closest to ``name``; empty when nothing is near."""
        name = _arguments.text("Catalog.closest", "name", name)
        n = _arguments.integer("Catalog.closest", "n", n, minimum=0, valid="a count >= 0")
        return list(self._native.closest(name, n))

    def __repr__(self) -> str:
        return f"<kprof.metrics.Catalog {self.chip}: {len(self)} metric names>"


def supported_chips() -> list[str]:
    """Chips the Profiler Host API of the loaded CUPTI knows (``GH100`` among them)."""
    return list(_core.metric_supported_chips())


def current_chip() -> str | None:
    """The current GPU's chip, or ``None`` without a usable GPU."""
    chip = _core.metric_current_chip()
    return None if chip is None else str(chip)


def catalog(chip: str | None = None) -> Catalog:
    """The catalog of ``chip`` (case is ignored), or of the current GPU's chip when ``chip`` is
    ``None``. Raises :class:`kprof.errors.OptionError` for a chip CUPTI does not know (naming
    the supported ones), :class:`kprof.errors.NoGpuError` when ``chip`` is ``None`` and there
    is no GPU."""
    if chip is not None and not isinstance(chip, str):
        raise TypeError(
            "kprof.metrics.catalog takes a chip name (str, e.g. 'GH100') or None, not "
            f"{type(chip).__name__} ({chip!r})"
        )
    if chip is None:
        chip = current_chip()
        if chip is None:
            raise NoGpuError(
                "no GPU available: name the chip instead, as in "
                "kprof.metrics.catalog('GH100') (kprof.metrics.supported_chips() lists them)"
            )
    return Catalog(_core.metric_catalog(chip))


def sets() -> list[MetricSet]:
    """kprof's metric sets: speed-of-light, memory, compute, occupancy and launch."""
    return [MetricSet(s["name"], s["question"], list(s["metrics"])) for s in _core.metric_sets()]


def expand(metrics: str | Iterable[str]) -> list[str]:
    """``metrics`` with every ``"set:NAME"`` replaced by the set's members, duplicates dropped
    (the first stays). Raises :class:`kprof.errors.OptionError` for an unknown set."""
    return list(_core.metric_expand(_names(metrics, "kprof.metrics.expand")))
