# SPDX-License-Identifier: Apache-2.0
"""``kprof.compare``: two saved results compared row by row, as a pandas DataFrame.

The statistics (the change of the mean, the Mann-Whitney U test, the verdicts) are the C++
core's (``kprof::compare``, include/kprof/compare.hpp); this module reads the inputs, hands
them to the core and arranges its columns. docs/compare.md describes the rules.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Union

import numpy as np
import pandas as pd

from kprof import _arguments
from kprof._layout_cells import _layout
from kprof._native import core as _core
from kprof.results import ProfileResults, load

__all__ = ["compare", "CompareWarning"]

#: The Verdict of rows found in one result only.
ONLY_IN_BASE = "only in base"
ONLY_IN_NEW = "only in new"

ResultsLike = Union[str, "os.PathLike[str]", ProfileResults]


class CompareWarning(UserWarning):
    """The two results differ in a way that makes the comparison doubtful: GPU, backend,
    cache or clock control, replay mode, or rows whose units or normalization differ."""


def _core_results(argument: str, results: Any) -> Any:
    if isinstance(results, ProfileResults):
        return results.core
    if isinstance(results, (str, os.PathLike)):
        return load(results).core  # JSON or Parquet, as kprof.load reads them
    if isinstance(results, _core.Results):
        return results
    raise _arguments.type_error(
        "kprof.compare", argument, "a ProfileResults or the path of a saved result", results
    )


def _metrics(metric: str | Sequence[str] | None) -> list[str]:
    if metric is None:
        return []
    if isinstance(metric, str):
        return [_arguments.text("kprof.compare", "metric", metric)]
    if isinstance(metric, Iterable) and not isinstance(metric, (bytes, Mapping)):
        names = list(metric)
        if all(isinstance(m, str) for m in names):
            return names
    raise _arguments.type_error(
        "kprof.compare", "metric", "None, a metric name (str) or a list of them", metric
    )


def _config_values(results: Any, configs: Sequence[dict[str, Any]], indices: Sequence[int]):
    """The parameter values of each row: a ProfileResults' original Python objects where
    there is one, else the values as saved."""
    if isinstance(results, ProfileResults):
        originals = results.configs
        names = results.parameters
        return [dict(zip(names, originals[i], strict=True)) for i in indices]
    return list(configs)


def _param_columns(configs: Sequence[dict[str, Any]]) -> dict[str, list[Any]]:
    names = list(dict.fromkeys(name for c in configs for name in c))
    return {name: [c.get(name) for c in configs] for name in names}


def _frame(
    rows: dict[str, list[Any]], only_base: dict[str, list[Any]], only_new: dict[str, list[Any]]
) -> pd.DataFrame:
    """Compared rows first, then the rows of one side only (with that side's mean and runs)."""
    nb, nn = len(only_base["annotation"]), len(only_new["annotation"])

    def common(name: str) -> list[Any]:  # a column every row has
        return rows[name] + only_base[name] + only_new[name]

    def compared(name: str, missing: Any) -> list[Any]:  # a column of compared rows only
        return rows[name] + [missing] * (nb + nn)

    def per_side(name: str, side_name: str, base_side: bool, missing: Any) -> list[Any]:
        return (
            rows[name]
            + (only_base[side_name] if base_side else [missing] * nb)
            + ([missing] * nn if base_side else only_new[side_name])
        )

    kernel_index = common("kernel_index")
    # The values by the field the result layout's comparison table reads; the layout names the
    # columns and orders them (as `kprof compare` heads its table).
    by_field: dict[str, Any] = {
        "annotation": common("annotation"),
        "metric": common("metric"),
        "kernel_index": np.asarray(kernel_index, dtype=np.int64),
        "base_mean": np.asarray(per_side("base_mean", "mean", True, np.nan), dtype=float),
        "new_mean": np.asarray(per_side("new_mean", "mean", False, np.nan), dtype=float),
        "change_pct": np.asarray(compared("change_pct", np.nan), dtype=float),
        "ci_overlap": pd.array(compared("ci_overlap", pd.NA), dtype="boolean"),
        "p_value": np.asarray(compared("p_value", np.nan), dtype=float),
        "verdict": rows["verdict"] + [ONLY_IN_BASE] * nb + [ONLY_IN_NEW] * nn,
        "base_runs": pd.array(per_side("base_runs", "num_runs", True, pd.NA), dtype="Int64"),
        "new_runs": pd.array(per_side("new_runs", "num_runs", False, pd.NA), dtype="Int64"),
        "unit": [u or None for u in common("unit")],
        "u": np.asarray(compared("u", np.nan), dtype=float),
        "method": compared("method", None),
    }
    per_kernel = any(k >= 0 for k in kernel_index)
    data: dict[str, Any] = {}
    for column in _layout("comparison"):
        if column.kind == "parameters":
            for name, values in _param_columns(common("config")).items():
                data[name] = pd.Series(values, dtype=object).infer_objects()
        elif column.shown != "per_kernel" or per_kernel:
            data[column.name] = by_field[column.field]
    if not by_field["annotation"]:
        return pd.DataFrame({k: pd.Series([], dtype=object) for k in data})
    return pd.DataFrame(data)


def compare(
    base: ResultsLike,
    new: ResultsLike,
    threshold: float = 2.0,
    alpha: float = 0.05,
    metric: str | Sequence[str] | None = None,
    source: bool = False,
) -> pd.DataFrame:
    """Compares ``new`` against ``base`` row by row, or with ``source=True`` where their warps
    waited, line by line.

    Rows are matched by annotation, metric, config (by parameter names and values, not by
    position) and kernel index. For each row in both: the change of the mean, whether the 95%
    intervals overlap, a two-sided Mann-Whitney U test over the per-run values, and a verdict:
    ``"faster"`` / ``"slower"`` for time metrics, ``"lower"`` / ``"higher"`` for others, when
    p < ``alpha`` and |change| >= ``threshold`` %; ``"same"`` otherwise; ``"not enough runs"``
    with fewer than 3 runs on a side or too few for any p to reach ``alpha``.

    Args:
        base: The reference: a path to a saved result (:meth:`ProfileResults.save`,
            ``Results::write_json``, ``kprof demo --json``) or a :class:`ProfileResults`.
        new: The result to judge, the same way.
        threshold: The smallest |change of the mean| in % that counts (>= 0).
        alpha: Significance level of the test, in (0, 1).
        metric: Only this metric (or these metrics); ``None`` for all.
        source: Compare the sampled instructions of results profiled with
            ``metrics=["set:source"]`` instead of the rows (``threshold``, ``alpha`` and
            ``metric`` do not apply): for each region sampled in both (annotation, and a config
            of the same parameter values), each source line of either (or a kernel's code as a
            whole where it has no line information), its share of the region's warp samples in
            each, and per stall reason the change of the share that waited there for it. Shares,
            not samples: two profiles differ in duration and sampling period.

    Returns:
        One row per compared row, then the rows found in one result only (``Verdict``
        ``"only in base"`` / ``"only in new"``, with the mean and runs of the side that has
        them). Columns: ``Annotation``, ``Metric``, the parameter columns, ``KernelIndex``
        (per-kernel results only), ``BaseMean``, ``NewMean`` (in the base's unit),
        ``ChangePct``, ``CIOverlap`` (nullable boolean), ``PValue``, ``Verdict``,
        ``BaseRuns``, ``NewRuns``, ``Unit``, ``U`` (Mann-Whitney U of the base runs) and
        ``Test`` (``"exact"`` or ``"normal"``). ``df.attrs`` holds ``warnings``,
        ``threshold``, ``alpha`` and ``table`` (the comparison as aligned text, as
        ``kprof compare`` prints it).

        With ``source=True``: one row per region and place, the largest change first within
        each region. Columns: ``Annotation``, ``Region`` (as reports name it), ``Kernel``,
        ``File`` and ``Line`` (empty and 0 for code without line information), ``BasePct``,
        ``NewPct``, ``ChangePts`` (new - base, in percentage points), then one column per
        stall reason: the change of its share at that place, in points. ``df.attrs["table"]``
        is the text ``kprof compare --source`` prints.

    Warns:
        CompareWarning: for each reason to distrust the comparison (different GPU, backend,
        cache or clock control; rows whose units or normalization differ, left out).

    Raises:
        TypeError: ``base`` or ``new`` is neither results nor a path, ``threshold`` or
            ``alpha`` not a number, or ``metric`` not a name or a list of names.
        kprof.errors.OptionError: ``threshold``, ``alpha`` or ``metric`` is not valid.
        kprof.errors.FormatError: a file cannot be read; or nothing could be compared ("nothing
            to compare: ..."): no row is in both (it says whether the annotations, metrics or
            parameters differ), or those in both cannot be (plain against normalized results,
            units that do not convert). A comparison of nothing never passes as one without a
            slowdown.
    """
    source = _arguments.flag("source", source)
    threshold = _arguments.number("kprof.compare", "threshold", threshold)
    alpha = _arguments.number("kprof.compare", "alpha", alpha)
    metrics = _metrics(metric)
    base_core, new_core = _core_results("base", base), _core_results("new", new)
    if source:
        return _source_frame(base_core, new_core)
    result = _core.compare(base_core, new_core, threshold, alpha, metrics)
    for message in result.warnings:
        warnings.warn(message, CompareWarning, stacklevel=2)
    rows = result.rows_columns()
    only_base = result.only_in_base_columns()
    only_new = result.only_in_new_columns()
    rows["config"] = _config_values(base, rows["config"], rows["base_config"])
    only_base["config"] = _config_values(base, only_base["config"], only_base["config_index"])
    only_new["config"] = _config_values(new, only_new["config"], only_new["config_index"])
    df = _frame(rows, only_base, only_new)
    df.attrs.update(
        warnings=list(result.warnings),
        threshold=float(result.threshold),
        alpha=float(result.alpha),
        table=str(result.table()),
    )
    return df


def _source_frame(base: Any, new: Any) -> pd.DataFrame:
    """:func:`compare` with ``source=True``: the core's place-by-place comparison."""
    columns, text = _core.compare_source(base, new)
    reasons = columns.pop("reasons")
    df = pd.DataFrame(
        {
            "Annotation": columns["annotation"],
            "Region": columns["region"],
            "Kernel": columns["kernel"],
            "File": columns["file"],
            "Line": columns["line"],
            "BasePct": columns["base_pct"],
            "NewPct": columns["new_pct"],
        }
    )
    df["ChangePts"] = df["NewPct"] - df["BasePct"]
    for reason, points in reasons.items():
        df[reason] = points
    df.attrs["table"] = str(text)
    return df
