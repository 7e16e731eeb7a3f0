"""Results at the size of a real sweep: every format kprof writes (JSON, CSV, Parquet) reads back
exactly at 10,000 configs x 20 metrics, and a Parquet file that would not read back is an error
when it is saved, never a file. Times and memory are bench/results_scale.py's."""

from __future__ import annotations

from pathlib import Path

import kprof
import numpy as np
import pytest
from kprof import _core, _parquet, errors

CONFIGS, METRICS, RUNS = 10_000, 20, 10
DEMO = Path(__file__).resolve().parents[1] / "data" / "h200-python-demo-2026-11-30.json"


@pytest.fixture(scope="module")
def large() -> kprof.ProfileResults:
    """10,000 configs x 20 metrics x 10 runs (2,000,000 records), aggregated by the core."""
    names = ["gpu__time_duration.sum"] + [f"sm__synthetic_{k}.sum" for k in range(METRICS - 1)]
    n = CONFIGS * RUNS * METRICS
    metric = np.tile(np.arange(METRICS), CONFIGS * RUNS)
    values = (1000.0 + 10 * metric) * (1 + 1e-3 * (np.arange(n) % 13))
    records = {
        "config": np.repeat(np.arange(CONFIGS), RUNS * METRICS).tolist(),
        "run": np.tile(np.repeat(np.arange(RUNS), METRICS), CONFIGS).tolist(),
        "annotation": ["step"] * n,
        "kernel": ["gemm"] * n,
        "kernel_index": [0] * n,
        "metric": [names[k] for k in metric],
        "value": values.tolist(),
        "unit": ["ns" if k == 0 else "B" for k in metric],
    }
    options = _core.Options()
    options.runs = RUNS
    options.metrics = names
    session = {
        "gpu": "synthetic (no GPU)",
        "device": 0,
        "host": "test-host",
        "backend": "cupti-range-profiler",
        "runs": RUNS,
        "metrics": names,
    }
    points = [[1024 * (c + 1)] for c in range(CONFIGS)]
    return kprof.ProfileResults(_core._aggregate(session, ["n"], points, records, options))


@pytest.fixture(scope="module")
def large_parquet(large, tmp_path_factory) -> Path:
    pytest.importorskip("pyarrow")
    return Path(large.save(tmp_path_factory.mktemp("parquet") / "large.parquet"))


def test_a_large_result_reads_back_exactly_from_json(large, tmp_path):
    back = kprof.load(large.save(tmp_path / "large.json"))
    assert back == large
    assert len(back.to_dataframe()) == CONFIGS * METRICS


def test_a_large_result_reads_back_exactly_from_parquet(large, large_parquet):
    assert kprof.load(large_parquet) == large


def test_a_large_result_reads_back_from_csv(large, tmp_path):
    large.write_csv(str(tmp_path) + "/", "large")
    back = kprof.ProfileResults.read_csv(str(tmp_path) + "/", "large")
    assert back.core.records_columns() == large.core.records_columns()
    assert back.core.rows_columns()["mean"] == large.core.rows_columns()["mean"]


def test_the_parquet_table_holds_the_core_tables_on_a_few_lines(large, large_parquet):
    pq = pytest.importorskip("pyarrow.parquet")
    pa = pytest.importorskip("pyarrow")
    file = pq.ParquetFile(large_parquet)  # every reader's default limits
    metadata = file.schema_arrow.metadata or {}
    assert sum(len(v) for v in metadata.values()) < 100_000  # the pandas schema, no document
    kinds = file.read(columns=["Kind"]).column(0).to_pylist()
    assert kinds.count("row") == CONFIGS * METRICS
    assert kinds.count("sample") == CONFIGS * METRICS * RUNS
    # The core's tables ride on a few lines each, as typed columns (text dictionary-encoded);
    # the document is left with the session and the sweep.
    assert 1 <= kinds.count("kprof.records") <= 4 and kinds.count("kprof.rows") == 1
    assert kinds.count("head") == 1
    assert len(kinds) < CONFIGS * METRICS * (RUNS + 1) + 20
    document = file.read(columns=["KprofHead"]).column(0).drop_null()
    assert sum(len(piece.as_py()) for piece in document) < 2_000_000
    stream = file.read(columns=["Kind", "KprofTable"]).to_pandas().query("Kind == 'kprof.rows'")
    rows = pa.ipc.open_stream(pa.py_buffer(stream["KprofTable"].iloc[0])).read_all()
    assert rows.schema.field("mean").type == pa.float64()
    assert pa.types.is_dictionary(rows.schema.field("metric").type)
    assert rows.num_rows == len(large)
    # A table tool sees the rows as before.
    rows = file.read(columns=["Kind", "AvgValue"]).to_pandas().query("Kind == 'row'")
    assert len(rows) == CONFIGS * METRICS and rows["AvgValue"].notna().all()


def test_a_parquet_file_that_would_not_read_back_is_no_file(tmp_path, monkeypatch):
    pytest.importorskip("pyarrow")
    check = _parquet._check_readable
    # A manifest that promises a line more than the file holds.
    monkeypatch.setattr(_parquet, "_check_readable", lambda m: check({**m, "head": [2, 0]}))
    path = tmp_path / "r.parquet"
    with pytest.raises(errors.FormatError, match="holds 1 of the 2 lines of Kind 'head'"):
        kprof.load(DEMO).save(path)
    assert list(tmp_path.iterdir()) == []


def test_a_parquet_file_that_lost_a_table_is_refused(tmp_path):
    """A tool that rewrites only the rows and samples must not leave results without records."""
    pq = pytest.importorskip("pyarrow.parquet")
    pc = pytest.importorskip("pyarrow.compute")
    path = tmp_path / "r.parquet"
    kprof.load(DEMO).save(path)
    table = pq.read_table(path)
    kept = table.filter(pc.not_equal(table.column("Kind"), "kprof.records"))
    pq.write_table(kept, tmp_path / "rewritten.parquet")
    with pytest.raises(errors.FormatError, match="0 of the 1 lines of Kind 'kprof.records'"):
        kprof.load(tmp_path / "rewritten.parquet")


def test_table_streams_without_a_manifest_are_refused(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    binary = pa.large_binary()
    table = pa.table(
        {
            "Kind": ["document", "kprof.records"],
            "KprofDocument": pa.array([b"{}", None], type=binary),
            "KprofTable": pa.array([None, b"stream"], type=binary),
        }
    )
    pq.write_table(table, tmp_path / "development.parquet")
    with pytest.raises(errors.FormatError, match="table streams without their manifest"):
        kprof.load(tmp_path / "development.parquet")


def test_a_parquet_file_with_the_whole_document_on_its_lines_still_loads(tmp_path):
    """Files written before the tables became columns carried the whole JSON document."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    results = kprof.load(DEMO)
    document = pa.array([results.to_json().encode()], type=pa.large_binary())
    table = pa.table(
        {
            "Kind": ["row", "document"],
            "KprofDocument": pa.concat_arrays([pa.nulls(1, type=pa.large_binary()), document]),
        }
    )
    pq.write_table(table, tmp_path / "earlier.parquet")
    assert kprof.load(tmp_path / "earlier.parquet") == results


def test_a_parquet_file_with_the_document_in_its_metadata_still_loads(tmp_path):
    """kprof 0.1 wrote the document into the file's metadata."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    results = kprof.load(DEMO)
    table = pa.table({"Kind": ["row"]}).replace_schema_metadata(
        {b"kprof.results.json": results.to_json().encode()}
    )
    pq.write_table(table, tmp_path / "old.parquet")
    assert kprof.load(tmp_path / "old.parquet") == results


def test_a_column_of_numbers_in_the_rows_and_text_in_the_samples_is_text(tmp_path):
    """A run-scope info collector that returned 1.0, then "x": the rows show the first value
    (a number), the samples each run's (mixed): the file holds the column as text."""
    pytest.importorskip("pyarrow")
    import pandas as pd
    from conftest import SYNTHETIC_SESSION, make_records

    rows = [
        (0, run, "k", "kern", 0, "gpu__time_duration.sum", 1000.0 + run, "ns") for run in (0, 1)
    ]
    info = {
        "name": ["mix", "mix"],
        "scope": ["run", "run"],
        "config": [0, 0],
        "run": [0, 1],
        "annotation": ["", ""],
        "value": [1.0, float("nan")],
        "text": ["", "x"],
    }
    options = _core.Options()
    options.runs = 2
    session = dict(SYNTHETIC_SESSION, runs=2)
    core = _core._aggregate(session, [], [[]], make_records(rows), options, None, None, info)
    results = kprof.ProfileResults(core)
    path = tmp_path / "mixed.parquet"
    results.save(path)
    assert kprof.load(path) == results
    table = pd.read_parquet(path)
    assert table.loc[table["Kind"] == "sample", "mix"].tolist() == ["1.0", "x"]
