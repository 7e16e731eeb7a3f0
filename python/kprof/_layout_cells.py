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

__all__ = [
    "_Column",
    "_layout",
    "_object_column",
    "_Text",
    "_arrays",
    "_cells",
    "_column",
    "_shown",
]


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


class _Text(Sequence[str]):
    """A text column as the core gives it (``_core.table_arrays``): int32 codes into its
    distinct values. A million samples name a few kernels and metrics: the column becomes
    pandas' text column from the codes, without a Python string per value."""

    def __init__(self, codes: np.ndarray, values: list[str]) -> None:
        self.codes = codes
        self.values = values
        self._objects: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, i: Any) -> Any:
        return self.objects()[i]

    def __iter__(self) -> Any:
        return iter(self.objects())

    def objects(self) -> np.ndarray:
        """The values as an array of Python strings."""
        if self._objects is None:
            self._objects = np.asarray(self.values + [None], dtype=object)[self.codes]
        return self._objects

    def without_empty(self) -> _Text:
        """The same text with "" missing (code -1)."""
        if "" not in self.values:
            return self
        return _Text(np.where(self.codes == self.values.index(""), -1, self.codes), self.values)

    def column(self) -> Any:
        """pandas' text column of these values (code -1: missing)."""
        if _string_dtype() == np.dtype(object):  # pandas 2: Python strings
            return self.objects()
        codes = self.codes
        try:  # pandas 3 keeps text in Arrow: decoded there, no Python string per value
            import pyarrow as pa
        except ImportError:
            categories = pd.Categorical.from_codes(codes, self.values)
            return pd.Series(categories).astype(_string_dtype()).array
        indices = pa.array(codes, type=pa.int32(), mask=codes < 0)
        values = pa.array(self.values, type=pa.large_string())  # pandas' own, so no cast
        text = pa.DictionaryArray.from_arrays(indices, values)
        return pd.array(text.dictionary_decode(), dtype=_string_dtype())


@functools.cache
def _string_dtype() -> Any:
    """pandas' dtype for text: object before pandas 3, its str dtype from then on."""
    return pd.Series(["text"]).dtype


def _arrays(core: Any, table: str) -> dict[str, Any]:
    """One of the core's tables by field: numbers as arrays, text as :class:`_Text`."""
    columns = _core.table_arrays(core, table)
    return {k: _Text(*v) if isinstance(v, tuple) else v for k, v in columns.items()}


def _cells(kind: str, values: Sequence[Any], keep_text: bool = False) -> Any:
    """A column's values with the dtype of its kind; ``None`` is a missing value (as is -1 in
    an array of optional integers or flags). Text given as :class:`_Text` stays so where
    ``keep_text``."""
    if kind == "real":
        return np.asarray(values, dtype=float)
    if kind == "integer":
        return np.asarray(values, dtype=np.int64)
    if kind == "optional_integer" and isinstance(values, np.ndarray):
        numbers = values.astype(np.int64)
        return pd.arrays.IntegerArray(numbers, numbers < 0)
    if kind == "optional_integer":
        return pd.array([None if v is None or v < 0 else v for v in values], dtype="Int64")
    if kind == "flag" and isinstance(values, np.ndarray) and values.dtype == np.int8:
        return pd.arrays.BooleanArray(values > 0, values < 0)  # -1: unset
    if kind == "flag" and isinstance(values, np.ndarray):
        return pd.array(values.tolist(), dtype="boolean")
    if kind == "flag":
        return pd.array(values, dtype="boolean")
    if kind == "optional_text" and isinstance(values, _Text):
        text = values.without_empty()
        if not (text.codes >= 0).any():  # no value at all: None, as pandas makes of a list
            return [None] * len(text)
        return text if keep_text else text.column()
    if kind == "optional_text":
        # A derived metric without a unit has no unit (nsight-python: NaN), not an empty string.
        return [v if v else None for v in values]
    if kind == "baseline":
        return _object_column([v if v else False for v in values])
    if isinstance(values, _Text):
        return values if keep_text else values.column()
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
        if c.shown == "per_kernel" and np.any(np.asarray(items[c.field]) >= 0):
            shown.add("per_kernel")
        if c.kind == "baseline" and any(items[c.field]):
            shown.add("normalized")
    return shown
