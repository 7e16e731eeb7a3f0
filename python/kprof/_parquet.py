# SPDX-License-Identifier: Apache-2.0
"""Results as one Parquet file, for tools that read tables (pandas, polars, DuckDB, Spark).

The file is one table with a ``Kind`` column: ``"row"`` lines are :meth:`to_dataframe`'s
rows, ``"sample"`` lines are :meth:`raw_dataframe`'s per-run values; a column that one kind
lacks is empty for the other. The whole result, as the JSON document :meth:`save` writes,
rides along in the file's metadata (key ``kprof.results.json``), so :func:`kprof.load` reads a
Parquet file back exactly, records and session included. JSON stays kprof's own format; Parquet
needs pyarrow (``pip install 'kprof[parquet]'``).
"""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from kprof._files import write_atomic
from kprof._native import core as _core
from kprof._results_data import ResultsData
from kprof.errors import FormatError, OutputExistsError

__all__ = ["METADATA_KEY", "suffixes", "is_parquet", "frame", "write", "read_json"]

METADATA_KEY = b"kprof.results.json"


def suffixes() -> tuple[str, ...]:
    """The endings of a Parquet results file, the kprof command's (which reads such files by
    them too); asked when needed, since importing kprof loads no extension."""
    return tuple(_core.PARQUET_ENDINGS)


def is_parquet(path: str | os.PathLike[str]) -> bool:
    return os.fspath(path).lower().endswith(suffixes())


def _pyarrow() -> tuple[Any, Any]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as e:
        raise ImportError(
            "saving or loading Parquet needs pyarrow, which is not installed: "
            "pip install 'kprof[parquet]' (or pip install pyarrow); JSON needs nothing"
        ) from e
    return pa, pq


def _plain(column: pd.Series) -> pd.Series:
    """A column Parquet can hold: one type per column (else its text), None for missing."""
    if column.dtype != object:
        return column
    kinds = {type(v) for v in column if v is not None and not (isinstance(v, float) and v != v)}
    if len(kinds) <= 1:
        return column
    return column.map(lambda v: None if v is None else str(v))


def frame(results: ResultsData) -> pd.DataFrame:
    """The table a Parquet file holds: rows and per-run samples, told apart by ``Kind``.
    Parameter columns hold the values as saved (int, float or str)."""
    saved = ResultsData(results.core)  # the configs as the core stores them
    rows = saved.to_dataframe()
    rows["Normalized"] = [b if isinstance(b, str) else None for b in rows["Normalized"]]
    samples = saved.raw_dataframe()
    rows.insert(0, "Kind", "row")
    samples.insert(0, "Kind", "sample")
    columns = list(rows.columns) + [c for c in samples.columns if c not in rows.columns]
    integers = {
        c
        for part in (rows, samples)
        for c in part.columns
        if pd.api.types.is_integer_dtype(part[c])
    }
    table = pd.concat([rows, samples], ignore_index=True)[columns]
    for name in integers:  # a column one kind lacks stays integer, with nulls
        table[name] = table[name].astype("Int64")
    if "StableMeasurement" in table:
        table["StableMeasurement"] = table["StableMeasurement"].astype("boolean")
    for name in table.columns:
        table[name] = _plain(table[name])
    return table


def write(results: ResultsData, path: str | os.PathLike[str], overwrite: bool) -> str:
    """Writes the Parquet file atomically (see :func:`kprof._files.write_atomic`)."""
    pa, pq = _pyarrow()
    path = os.fspath(path)
    if os.path.exists(path) and not overwrite:
        raise OutputExistsError(f"{path} exists; pass overwrite=True to replace it")
    table = pa.Table.from_pandas(frame(results), preserve_index=False)
    metadata = dict(table.schema.metadata or {})
    metadata[METADATA_KEY] = results.to_json().encode()
    table = table.replace_schema_metadata(metadata)
    return write_atomic(path, lambda out: pq.write_table(table, out), overwrite=overwrite)


def read_json(path: str | os.PathLike[str]) -> str:
    """The JSON document inside a Parquet file written by :func:`write`."""
    _, pq = _pyarrow()
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FormatError(f"{path}: no such file")
    try:
        metadata = pq.read_schema(path).metadata or {}
    except Exception as e:  # pyarrow's errors: not Parquet, truncated...
        raise FormatError(f"{path}: not a readable Parquet file: {e}") from None
    text = metadata.get(METADATA_KEY)
    if text is None:
        raise FormatError(
            f"{path}: a Parquet file without kprof's results (no '{METADATA_KEY.decode()}' "
            "metadata); only files written by ProfileResults.save can be loaded"
        )
    return bytes(text).decode()
