# SPDX-License-Identifier: Apache-2.0
"""Results as one Parquet file, for tools that read tables (pandas, polars, DuckDB, Spark).

The file is one table with a ``Kind`` column: ``"row"`` lines are :meth:`to_dataframe`'s
rows, ``"sample"`` lines are :meth:`raw_dataframe`'s per-run values; a column that one kind
lacks is empty for the other. The whole result rides along as data, so that :func:`kprof.load`
reads a Parquet file back exactly, records and session included, at any size: each of the
core's tables (records, samples, rows, conditions, sampled instructions) as an Arrow IPC stream
of typed columns, text dictionary-encoded, in pieces on lines of Kind ``"kprof.records"``...
(column ``KprofTable``); the rest of the JSON document :meth:`save` writes (session, sweep,
parts) on ``"document"`` lines (column ``KprofDocument``). A few lines carry them, so table
tools read the rows and samples as if they were alone, and loading builds the core's tables
from the streams' arrays with no JSON to parse. (Earlier files kept the whole document on the
document lines, or in the file's metadata, which Parquet readers cap at 100 MB; both are still
read.) JSON stays kprof's own format; Parquet needs pyarrow (``pip install 'kprof[parquet]'``).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pandas as pd

from kprof._files import write_atomic
from kprof._layout_cells import _string_dtype, _Text
from kprof._native import core as _core
from kprof._results_data import ResultsData
from kprof.errors import FormatError, OutputExistsError

__all__ = ["suffixes", "is_parquet", "write", "read"]

#: The lines that carry the JSON document, and the column its pieces are in.
DOCUMENT_KIND = "document"
DOCUMENT_COLUMN = "KprofDocument"
#: The core's tables held in the file (each an Arrow IPC stream in pieces on lines of Kind
#: "kprof.<table>", in the column TABLE_COLUMN).
TABLES = ("records", "samples", "rows", "configs", "runs", "info", "source")
TABLE_KIND = "kprof."
TABLE_COLUMN = "KprofTable"
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


def _frames(results: ResultsData) -> Any:
    """The table table tools read: rows and per-run samples, told apart by ``Kind``, a column
    that one kind lacks empty (null) for the other. Parameter columns hold the values as saved
    (int, float or str). Built in Arrow from the DataFrames' columns, text still as codes into
    its values (the file stores it so; a million samples' text is never decoded), with the
    DataFrames' types in the pandas metadata, so pandas reads back what the DataFrames hold."""
    pa, _ = _pyarrow()
    saved = ResultsData(results.core)  # the configs as the core stores them
    parts = []
    dtypes: dict[str, Any] = {"Kind": _string_dtype()}
    for table, kind in (("rows", "row"), ("samples", "sample")):
        columns = saved.frame_columns(table)
        n = len(saved) if table == "rows" else results.core.num_samples
        arrow = {"Kind": _text_arrow(_Text(np.zeros(n, dtype=np.int32), [kind]))}
        for name, column in columns.items():
            if name == "Normalized":  # False or the baseline: the baseline or None
                column = pd.Series([b if isinstance(b, str) else None for b in column])
            if isinstance(column, _Text):
                arrow[name] = _text_arrow(column)
                dtypes.setdefault(name, _string_dtype())
                continue
            column = _plain(pd.Series(column))
            if pd.api.types.is_integer_dtype(column) and column.dtype != "Int64":
                column = column.astype("Int64")  # read back integer, with nulls where absent
            arrow[name] = pa.Array.from_pandas(column)
            dtypes.setdefault(name, column.dtype)
        parts.append(pa.table(arrow))
    template = pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in dtypes.items()})
    metadata = pa.Schema.from_pandas(template, preserve_index=False).metadata
    table = pa.concat_tables(parts, promote_options="default").select(list(dtypes))
    return table.replace_schema_metadata(metadata)


def _text_arrow(text: _Text) -> Any:
    """A text column as an Arrow dictionary array (code -1: null)."""
    pa, _ = _pyarrow()
    indices = pa.array(text.codes, type=pa.int32(), mask=text.codes < 0)
    return pa.DictionaryArray.from_arrays(indices, pa.array(text.values, type=pa.string()))


def _arrow(column: Any) -> Any:
    """A column of :func:`kprof._core.table_arrays` as Arrow: numbers as they are (no copy),
    text as a dictionary array of its codes and values."""
    pa, _ = _pyarrow()
    if isinstance(column, tuple):
        codes, values = column
        return _text_arrow(_Text(codes, values))
    return pa.array(column)


def _table_lines(results: ResultsData, kind: Any) -> tuple[list[Any], list[str]]:
    """The core's tables, each an Arrow IPC stream in pieces on lines of its own kind (a
    ``Kind`` of type ``kind``), and the tables held so. Rows with info collector statistics (a
    list per row) stay in the document."""
    pa, _ = _pyarrow()
    names = [t for t in TABLES if t != "rows" or not results.core.info_layout()]
    lines = []
    for name in names:
        arrays = _core.table_arrays(results.core, name)
        batch = pa.record_batch([_arrow(v) for v in arrays.values()], names=list(arrays))
        if batch.num_rows == 0:
            continue
        # Compressed here (zstd, buffer by buffer), not by the Parquet writer: several times
        # faster, and the stream's columns compress better apart than its bytes do together.
        sink = pa.BufferOutputStream()
        options = pa.ipc.IpcWriteOptions(compression="zstd")
        with pa.ipc.new_stream(sink, batch.schema, options=options) as writer:
            writer.write_batch(batch)
        lines.append(_pieces(sink.getvalue(), f"{TABLE_KIND}{name}", TABLE_COLUMN, kind)[0])
    return lines, names


def _pieces(data: Any, kind_value: str, column: str, kind: Any) -> tuple[Any, int]:
    """``data`` (bytes or an Arrow buffer) in pieces on lines of Kind ``kind_value`` in
    ``column``, and how many pieces. The pieces are views of ``data``, not copies."""
    pa, _ = _pyarrow()
    buffer = pa.py_buffer(data)
    ends = list(range(_PIECE, buffer.size, _PIECE)) + [buffer.size]
    offsets = pa.array([0, *ends], type=pa.int64())
    pieces = pa.LargeBinaryArray.from_buffers(
        pa.large_binary(), len(ends), [None, offsets.buffers()[1], buffer]
    )
    kinds = pa.array([kind_value] * len(ends), type=kind)
    return pa.table({"Kind": kinds, column: pieces}), len(ends)


def _check_readable(pieces: int) -> Any:
    """A check of a written file: its footer opens with every reader's default limits and its
    document lines are all there; else the save fails and leaves no file."""

    def check(path: str) -> None:
        _, pq = _pyarrow()
        try:
            found = _count_documents(pq.ParquetFile(path).metadata)
        except Exception as e:  # pyarrow's errors
            raise FormatError(f"the Parquet file written cannot be read back: {e}") from None
        if found != pieces:
            raise FormatError(
                f"the Parquet file written holds {found} of the {pieces} pieces of its document"
            )

    return check


def _count_documents(metadata: Any) -> int:
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
    frames = _frames(results)
    kind = frames.schema.field("Kind").type  # string or large_string, as pandas made it
    lines, held = _table_lines(results, kind)
    text = _core.document_without(results.core, held).encode()
    document, pieces = _pieces(text, DOCUMENT_KIND, DOCUMENT_COLUMN, kind)
    table = pa.concat_tables([frames, *lines, document], promote_options="default")
    table = table.replace_schema_metadata(frames.schema.metadata)
    return write_atomic(
        path,
        lambda out: _write_table(table, out),
        overwrite=overwrite,
        check=_check_readable(pieces),
    )


def _write_table(table: Any, out: Any) -> None:
    """Writes ``table``: each column zstd-compressed but the already compressed table streams,
    and without the Arrow schema, in which the text columns are dictionaries (codes into their
    values): readers take them for the strings they are, and pandas for what the DataFrames
    held, from the pandas metadata kept."""
    pa, pq = _pyarrow()
    names = table.column_names
    plain = [c for c in names if c != TABLE_COLUMN]
    with pq.ParquetWriter(
        out,
        table.schema,
        compression={c: "zstd" if c != TABLE_COLUMN else "none" for c in names},
        # Text is dictionary-encoded as it comes; numbers are not (they rarely repeat, and
        # hashing a million of each costs more than it saves).
        use_dictionary=[c for c in names if pa.types.is_dictionary(table.schema.field(c).type)],
        write_statistics=plain,
        store_schema=False,
    ) as writer:
        writer.write_table(table)
        writer.add_key_value_metadata(table.schema.metadata or {})


def _numpy(column: Any) -> Any:
    """A column read back, as :func:`kprof._core.results_from_arrays` takes it."""
    pa, _ = _pyarrow()
    if pa.types.is_dictionary(column.type):
        codes = column.indices.cast(pa.int32()).to_numpy(zero_copy_only=False)
        return np.ascontiguousarray(codes), column.dictionary.to_pylist()
    return np.ascontiguousarray(column.to_numpy(zero_copy_only=False))


def _tables(file: Any) -> tuple[str, dict[str, dict[str, Any]]]:
    """The document and the tables held as Arrow IPC streams, read from ``file``."""
    pa, _ = _pyarrow()
    columns = [DOCUMENT_COLUMN] + (
        [TABLE_COLUMN] if TABLE_COLUMN in file.schema_arrow.names else []
    )
    read = file.read(columns=["Kind", *columns])
    document = b"".join(read.column(DOCUMENT_COLUMN).drop_null().to_pylist()).decode()
    if TABLE_COLUMN not in columns:  # written before the tables were columns
        return document, {}
    lines = read.filter(read.column(TABLE_COLUMN).is_valid())
    streams: dict[str, list[bytes]] = {}
    for kind, piece in zip(
        lines.column("Kind").to_pylist(), lines.column(TABLE_COLUMN).to_pylist(), strict=True
    ):
        streams.setdefault(str(kind).removeprefix(TABLE_KIND), []).append(piece)
    tables = {}
    for name, pieces in streams.items():
        table = pa.ipc.open_stream(pa.py_buffer(b"".join(pieces))).read_all()
        tables[name] = {
            field: _numpy(table.column(field).combine_chunks()) for field in table.column_names
        }
    return document, tables


def read(path: str | os.PathLike[str]) -> Any:
    """The ``kprof._core.Results`` in a Parquet file written by :func:`write`."""
    _, pq = _pyarrow()
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FormatError(f"{path}: no such file")
    try:
        file = pq.ParquetFile(
            path,
            thrift_string_size_limit=_READ_LIMIT,
            thrift_container_size_limit=_READ_LIMIT,
        )
        metadata = file.schema_arrow.metadata or {}
        if _METADATA_KEY in metadata:  # written before the document moved into the lines
            return _core.Results.from_json(bytes(metadata[_METADATA_KEY]).decode())
        if DOCUMENT_COLUMN not in file.schema_arrow.names:
            raise FormatError(
                f"{path}: a Parquet file without kprof's results (no '{DOCUMENT_COLUMN}' "
                "column); only files written by ProfileResults.save can be loaded"
            )
        document, tables = _tables(file)
    except FormatError:
        raise
    except Exception as e:  # pyarrow's errors: not Parquet, truncated...
        raise FormatError(f"{path}: not a readable Parquet file: {e}") from None
    return _core.results_from_arrays(document, tables, path)
