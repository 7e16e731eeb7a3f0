# SPDX-License-Identifier: Apache-2.0
"""Results as one Parquet file, for tools that read tables (pandas, polars, DuckDB, Spark).

The file is one table with a ``Kind`` column: ``"row"`` lines are :meth:`to_dataframe`'s
rows, ``"sample"`` lines are :meth:`raw_dataframe`'s per-run values; a column that one kind
lacks is empty for the other. The whole result rides along as data, so that :func:`kprof.load`
reads a Parquet file back exactly, records and session included, at any size: each of the
core's tables (records, samples, rows, conditions, sampled instructions) as an Arrow IPC stream
of typed columns, text dictionary-encoded, in pieces on lines of Kind ``"kprof.records"``...
(column ``KprofTable``); the rest of the JSON document :meth:`save` writes (session, sweep,
parts) on ``"head"`` lines (column ``KprofHead``). The file's metadata lists the lines of each
kind and each table's rows (``kprof.manifest``), checked when the file is written and read. A
few lines carry them all, so table tools read the rows and samples as if they were alone, and
loading builds the core's tables from the streams' arrays with no JSON to parse. (Earlier files
kept the whole document on ``"document"`` lines (column ``KprofDocument``), or in the file's
metadata, which Parquet readers cap at 100 MB; both are still read.) JSON stays kprof's own
format; Parquet needs pyarrow (``pip install 'kprof[parquet]'``).
"""

from __future__ import annotations

import json
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

#: The lines that carry the rest of the JSON document (session, sweep, merged parts), and
#: the column its pieces are in.
HEAD_KIND = "head"
HEAD_COLUMN = "KprofHead"
#: Where files written before the tables were streams carry the whole JSON document.
DOCUMENT_COLUMN = "KprofDocument"
#: The core's tables held in the file (each an Arrow IPC stream in pieces on lines of Kind
#: "kprof.<table>", in the column TABLE_COLUMN).
TABLES = ("records", "samples", "rows", "configs", "runs", "info", "source")
TABLE_KIND = "kprof."
TABLE_COLUMN = "KprofTable"
# The file's metadata key of what its own lines hold, {kind: [pieces, rows]}: checked when the
# file is written and when it is read, so that a table lost on the way is an error, not a
# result without it.
_MANIFEST_KEY = b"kprof.manifest"
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
        columns = saved._table_columns(table)
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
        parts.append(arrow)
    _one_type_per_column(parts, dtypes)
    template = pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in dtypes.items()})
    metadata = pa.Schema.from_pandas(template, preserve_index=False).metadata
    tables = [pa.table(arrow) for arrow in parts]
    table = pa.concat_tables(tables, promote_options="default").select(list(dtypes))
    return table.replace_schema_metadata(metadata)


def _one_type_per_column(parts: list[dict[str, Any]], dtypes: dict[str, Any]) -> None:
    """Gives a column of both kinds one type: a column without a value (null) takes the other
    kind's; numbers in one and text in the other (an info collector's first value in the rows,
    each run's in the samples) become text in both, as a column of mixed values does."""
    pa, _ = _pyarrow()
    rows, samples = parts
    for name in rows.keys() & samples.keys():
        a, b = rows[name].type, samples[name].type
        if a == b:
            continue
        if pa.types.is_null(a) or pa.types.is_null(b):
            target = b if pa.types.is_null(a) else a
        else:
            target = pa.string()
            dtypes[name] = _string_dtype()
        rows[name], samples[name] = rows[name].cast(target), samples[name].cast(target)


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


def _table_lines(
    results: ResultsData, kind: Any, manifest: dict[str, list[int]]
) -> tuple[list[Any], list[str]]:
    """The core's tables, each an Arrow IPC stream in pieces on lines of its own kind (a
    ``Kind`` of type ``kind``), and the tables held so; each table's pieces and rows go into
    ``manifest``. Rows with info collector statistics (a list per row) stay in the document."""
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
        line, pieces = _pieces(sink.getvalue(), f"{TABLE_KIND}{name}", TABLE_COLUMN, kind)
        lines.append(line)
        manifest[f"{TABLE_KIND}{name}"] = [pieces, batch.num_rows]
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


def _check_readable(manifest: dict[str, list[int]]) -> Any:
    """A check of a written file: its footer opens with every reader's default limits and its
    lines of each kind of the manifest are all there; else the save fails and leaves no file."""

    def check(path: str) -> None:
        _, pq = _pyarrow()
        try:
            kinds = pq.ParquetFile(path).read(columns=["Kind"]).column(0).combine_chunks()
            found = {str(c["values"]): int(c["counts"]) for c in kinds.value_counts().to_pylist()}
        except Exception as e:  # pyarrow's errors
            raise FormatError(f"the Parquet file written cannot be read back: {e}") from None
        for kind, (pieces, _) in manifest.items():
            if found.get(kind, 0) != pieces:
                raise FormatError(
                    f"the Parquet file written holds {found.get(kind, 0)} of the {pieces} "
                    f"lines of Kind '{kind}'"
                )

    return check


def write(results: ResultsData, path: str | os.PathLike[str], overwrite: bool) -> str:
    """Writes the Parquet file atomically (see :func:`kprof._files.write_atomic`), and only a
    file that reads back."""
    pa, pq = _pyarrow()
    path = os.fspath(path)
    if os.path.exists(path) and not overwrite:
        raise OutputExistsError(f"{path} exists; pass overwrite=True to replace it")
    frames = _frames(results)
    kind = frames.schema.field("Kind").type
    manifest: dict[str, list[int]] = {}
    lines, held = _table_lines(results, kind, manifest)
    text = _core.document_without(results.core, held).encode()
    head, pieces = _pieces(text, HEAD_KIND, HEAD_COLUMN, kind)
    manifest[HEAD_KIND] = [pieces, 0]
    table = pa.concat_tables([frames, *lines, head], promote_options="default")
    metadata = dict(frames.schema.metadata or {})
    metadata[_MANIFEST_KEY] = json.dumps(manifest).encode()
    table = table.replace_schema_metadata(metadata)
    return write_atomic(
        path,
        lambda out: _write_table(table, out),
        overwrite=overwrite,
        check=_check_readable(manifest),
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


def _tables(file: Any, path: str) -> tuple[str, dict[str, dict[str, Any]]]:
    """The rest of the document and the tables held as Arrow IPC streams, read from ``file``
    and checked against its manifest."""
    pa, _ = _pyarrow()
    manifest_text = (file.schema_arrow.metadata or {}).get(_MANIFEST_KEY)
    if manifest_text is None:
        raise FormatError(f"{path}: kprof's lines without their manifest ('kprof.manifest')")
    manifest = json.loads(manifest_text)
    read = file.read(columns=["Kind", HEAD_COLUMN, TABLE_COLUMN])
    document = b"".join(read.column(HEAD_COLUMN).drop_null().to_pylist()).decode()
    lines = read.filter(read.column(TABLE_COLUMN).is_valid())
    streams: dict[str, list[bytes]] = {}
    for kind, piece in zip(
        lines.column("Kind").to_pylist(), lines.column(TABLE_COLUMN).to_pylist(), strict=True
    ):
        streams.setdefault(str(kind), []).append(piece)
    tables = {}
    for kind, (pieces, rows) in manifest.items():
        if kind == HEAD_KIND:
            continue
        found = streams.get(kind, [])
        if len(found) != pieces:
            raise FormatError(f"{path}: {len(found)} of the {pieces} lines of Kind '{kind}'")
        table = pa.ipc.open_stream(pa.py_buffer(b"".join(found))).read_all()
        if table.num_rows != rows:
            raise FormatError(f"{path}: '{kind}' holds {table.num_rows} of its {rows} rows")
        tables[kind.removeprefix(TABLE_KIND)] = {
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
        names = file.schema_arrow.names
        if _METADATA_KEY in metadata:  # written before the document moved into the lines
            return _core.Results.from_json(bytes(metadata[_METADATA_KEY]).decode())
        if HEAD_COLUMN in names:
            document, tables = _tables(file, path)
        elif DOCUMENT_COLUMN in names and TABLE_COLUMN in names:
            raise FormatError(
                f"{path}: table streams without their manifest (a file of a development "
                "version of kprof); save the results again"
            )
        elif DOCUMENT_COLUMN in names:  # written before the tables were streams
            column = file.read(columns=[DOCUMENT_COLUMN]).column(0)
            document, tables = b"".join(column.drop_null().to_pylist()).decode(), {}
        else:
            raise FormatError(
                f"{path}: a Parquet file without kprof's results (no '{HEAD_COLUMN}' "
                "column); only files written by ProfileResults.save can be loaded"
            )
    except FormatError:
        raise
    except Exception as e:  # pyarrow's errors: not Parquet, truncated...
        raise FormatError(f"{path}: not a readable Parquet file: {e}") from None
    return _core.results_from_arrays(document, tables, path)
