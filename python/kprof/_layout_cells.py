# SPDX-License-Identifier: Apache-2.0
"""The core's result layout as DataFrame columns: each table's columns as the core lists them
(``kprof._core.result_layout()``, include/kprof/layout.hpp), each column kind's dtype, and when
a column is shown. :mod:`kprof._results_data` builds every DataFrame from these.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from kprof._native import core as _core

__all__ = ["_Column", "_layout", "_object_column", "_cells", "_column", "_shown"]


class _Column(NamedTuple):
    """A column of the core's result layout."""

    name: str
    kind: str  # text, optional_text, integer, optional_integer, real, flag, baseline, ...
    source: str  # item, session, run or collectors
    field: str  # the field of the item (or session, or run) the values come from
    unit: str
    shown: str  # always, normalized, per_kernel or files


@functools.cache
def _layout(table: str) -> tuple[_Column, ...]:
    """The columns of one of the core's result tables, in order."""
    return tuple(_Column(*c) for c in _core.result_layout()[table])


def _object_column(values: Sequence[Any]) -> pd.Series:
    """A column of arbitrary Python objects (tuples, tensors, dtypes...) kept as they are,
    with plain numbers and strings given their natural dtype."""
    arr = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        arr[i] = v  # element by element: sequences must not be broadcast
    return pd.Series(arr, dtype=object).infer_objects()


def _cells(kind: str, values: Sequence[Any]) -> Any:
    """A column's values with the dtype of its kind; ``None`` is a missing value."""
    if kind == "real":
        return np.asarray(values, dtype=float)
    if kind == "integer":
        return np.asarray(values, dtype=np.int64)
    if kind == "optional_integer":
        return pd.array([None if v is None or v < 0 else v for v in values], dtype="Int64")
    if kind == "flag" and isinstance(values, np.ndarray):
        return pd.array(values.tolist(), dtype="boolean")
    if kind == "flag":
        return pd.array(values, dtype="boolean")
    if kind == "optional_text":
        # A derived metric without a unit has no unit (nsight-python: NaN), not an empty string.
        return [v if v else None for v in values]
    if kind == "baseline":
        return _object_column([v if v else False for v in values])
    return list(values)


def _column(values: Any, n: int) -> Any:
    # Empty lists would become float columns; the rows' types matter only when there are rows.
    if n == 0 and isinstance(values, list):
        return pd.Series(values, dtype=object)
    return values


def _shown(columns: Sequence[_Column], items: Mapping[str, Sequence[Any]]) -> set[str]:
    """When a column of a DataFrame appears: always, and in per-kernel mode (a kernel index is
    set) or when normalizing (a baseline is set) where the items are so."""
    shown = {"always"}
    for c in columns:
        if c.shown == "per_kernel" and any(k >= 0 for k in items[c.field]):
            shown.add("per_kernel")
        if c.kind == "baseline" and any(items[c.field]):
            shown.add("normalized")
    return shown
