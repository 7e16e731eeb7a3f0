# SPDX-License-Identifier: Apache-2.0
"""Results as one Parquet file, for tools that read tables (pandas, polars, DuckDB, Spark).

The file is one table with a ``Kind`` column: ``"row"`` lines are :meth:`to_dataframe`'s
rows, ``"sample"`` lines are :meth:`raw_dataframe`'s per-run values; a column that one kind
lacks is empty for the other. The whole result, as the JSON document :meth:`save` writes, rides
along as data: ``"document"`` lines hold it in pieces (UTF-8 bytes) in the ``KprofDocument``
column (empty on every other line), so :func:`kprof.load` reads a Parquet file back exactly,
records and session included, at any size. (Files of kprof 0.1 kept it in the file's metadata,
which Parquet readers cap at 100 MB; they are still read, with the cap raised.) JSON stays
kprof's own format; Parquet needs pyarrow (``pip install 'kprof[parquet]'``).
"""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from kprof._files import write_atomic
from kprof._native import core as _core
from kprof._results_data import ResultsData
from kprof.errors import FormatError, OutputExistsError

__all__ = ["suffixes", "is_parquet", "frame", "write", "read_json"]

#: The lines that carry the JSON document, and the column its pieces are in.
DOCUMENT_KIND = "document"
DOCUMENT_COLUMN = "KprofDocument"
# Characters of the document per line: well under what one Parquet value or page may hold.
_PIECE = 64 * 2**20
# Where kprof 0.1 kept the document: the file's metadata.
_METADATA_KEY = b"kprof.results.json"
# The cap on metadata values when reading such a file: Parquet's own (a 32-bit size).
_READ_LIMIT = 2**31 - 1


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


def _with_document(table: Any, document: bytes) -> tuple[Any, int]:
    """``table`` with the JSON document (UTF-8) in pieces on lines of Kind "document", and how
    many pieces. The pieces are views of ``document``'s bytes, not copies."""
    pa, _ = _pyarrow()
    ends = list(range(_PIECE, len(document), _PIECE)) + [len(document)]
    offsets = pa.array([0, *ends], type=pa.int64())
    pieces = pa.LargeBinaryArray.from_buffers(
        pa.large_binary(), len(ends), [None, offsets.buffers()[1], pa.py_buffer(document)]
    )
    table = table.append_column(DOCUMENT_COLUMN, pa.nulls(table.num_rows, type=pa.large_binary()))
    kinds = pa.array([DOCUMENT_KIND] * len(ends), type=table.schema.field("Kind").type)
    lines = pa.table({"Kind": kinds, DOCUMENT_COLUMN: pieces})
    return pa.concat_tables([table, lines], promote_options="default"), len(ends)


def _check_readable(pieces: int) -> Any:
    """A check of a written file: its footer opens with every reader's default limits and its
    document lines are all there; else the save fails and leaves no file."""

    def check(path: str) -> None:
        _, pq = _pyarrow()
        try:
            found = _document_lines(pq.ParquetFile(path).metadata)
        except Exception as e:  # pyarrow's errors
            raise FormatError(f"the Parquet file written cannot be read back: {e}") from None
        if found != pieces:
            raise FormatError(
                f"the Parquet file written holds {found} of the {pieces} pieces of its document"
            )

    return check


def _document_lines(metadata: Any) -> int:
    """How many lines carry a piece of the document, from the footer's statistics."""
    names = [metadata.schema.column(i).name for i in range(metadata.num_columns)]
    column = names.index(DOCUMENT_COLUMN)
    lines = 0
    for g in range(metadata.num_row_groups):
        chunk = metadata.row_group(g).column(column)
        lines += chunk.num_values - (chunk.statistics.null_count if chunk.statistics else 0)
    return lines


def write(results: ResultsData, path: str | os.PathLike[str], overwrite: bool) -> str:
    """Writes the Parquet file atomically (see :func:`kprof._files.write_atomic`), and only a
    file that reads back."""
    pa, pq = _pyarrow()
    path = os.fspath(path)
    if os.path.exists(path) and not overwrite:
        raise OutputExistsError(f"{path} exists; pass overwrite=True to replace it")
    table = pa.Table.from_pandas(frame(results), preserve_index=False)
    table, pieces = _with_document(table, results.to_json().encode())
    return write_atomic(
        path,
        lambda out: pq.write_table(table, out, compression="zstd"),
        overwrite=overwrite,
        check=_check_readable(pieces),
    )


def read_json(path: str | os.PathLike[str]) -> str:
    """The JSON document inside a Parquet file written by :func:`write`."""
    pa, pq = _pyarrow()
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FormatError(f"{path}: no such file")
    try:
        file = pq.ParquetFile(
            path, thrift_string_size_limit=_READ_LIMIT, thrift_container_size_limit=_READ_LIMIT
        )
        metadata = file.schema_arrow.metadata or {}
        if _METADATA_KEY in metadata:  # written by kprof 0.1
            return bytes(metadata[_METADATA_KEY]).decode()
        if DOCUMENT_COLUMN not in file.schema_arrow.names:
            raise FormatError(
                f"{path}: a Parquet file without kprof's results (no '{DOCUMENT_COLUMN}' "
                "column); only files written by ProfileResults.save can be loaded"
            )
        column = file.read(columns=[DOCUMENT_COLUMN]).column(0)
    except FormatError:
        raise
    except Exception as e:  # pyarrow's errors: not Parquet, truncated...
        raise FormatError(f"{path}: not a readable Parquet file: {e}") from None
    return b"".join(column.drop_null().to_pylist()).decode()
