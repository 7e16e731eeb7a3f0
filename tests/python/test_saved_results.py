"""Saving results: JSON (kprof's format) and Parquet (for table tools), on the real H200
recordings of tests/data. A save never overwrites unless asked, and never leaves half a file
or a temporary file behind."""

from __future__ import annotations

import json
import os
import sys

import kprof
import pandas as pd
import pytest
from conftest import DATA
from kprof import errors

RECORDINGS = sorted(DATA.glob("*.json"))
MATMUL = DATA / "h200-torch-matmul-sweep-2026-11-30.json"


@pytest.fixture(scope="module")
def matmul():
    return kprof.load(MATMUL)


def only_files(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("suffix", [".json", ".parquet"])
def test_save_does_not_overwrite_unless_asked(matmul, tmp_path, suffix):
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    path = tmp_path / f"r{suffix}"
    path.write_bytes(b"precious")
    with pytest.raises(errors.OutputExistsError, match="overwrite=True") as info:
        matmul.save(path)
    assert isinstance(info.value, FileExistsError)
    assert path.read_bytes() == b"precious"
    assert only_files(tmp_path) == [path.name]  # no temporary file left
    assert matmul.save(path, overwrite=True) == str(path)
    assert kprof.load(path) == matmul
    assert only_files(tmp_path) == [path.name]


@pytest.mark.parametrize("suffix", [".json", ".parquet"])
def test_a_failed_save_leaves_nothing_behind(matmul, tmp_path, suffix):
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    target = tmp_path / f"taken{suffix}"
    target.mkdir()  # the rename onto a folder fails after the data was written
    (target / "keep").write_text("x")
    with pytest.raises((OSError, errors.KprofError)):
        matmul.save(target, overwrite=True)
    assert only_files(tmp_path) == [target.name]
    assert only_files(target) == ["keep"]


def test_json_is_written_whole_or_not_at_all(matmul, tmp_path):
    # The write goes to a temporary file renamed into place: the file is complete JSON.
    path = tmp_path / "sub" / "r.json"
    matmul.save(path)
    doc = json.loads(path.read_text())
    assert doc["session"]["gpu"] == "NVIDIA H200"
    assert only_files(path.parent) == ["r.json"]


@pytest.mark.parametrize("path", RECORDINGS, ids=[p.name for p in RECORDINGS])
def test_parquet_round_trip_of_every_recording(path, tmp_path):
    pytest.importorskip("pyarrow")
    results = kprof.load(path)
    out = tmp_path / "r.parquet"
    assert results.save(out) == str(out)
    assert kprof.load(out) == results  # exactly: records, samples, rows, session

    table = pd.read_parquet(out)
    rows = table[table["Kind"] == "row"].reset_index(drop=True)
    samples = table[table["Kind"] == "sample"].reset_index(drop=True)
    assert len(rows) == len(results)
    assert len(samples) == results.core.num_samples
    df, raw = results.to_dataframe(), results.raw_dataframe()
    for column in ("AvgValue", "StdDev", "CI95_Lower", "CI95_Upper", "Median", "Geomean"):
        assert rows[column].tolist() == pytest.approx(df[column].tolist(), nan_ok=True)
    assert rows["Annotation"].tolist() == df["Annotation"].tolist()
    assert rows["Metric"].tolist() == df["Metric"].tolist()
    assert samples["Value"].tolist() == pytest.approx(raw["Value"].tolist(), nan_ok=True)
    assert samples["Run"].tolist() == raw["Run"].tolist()
    for p in results.parameters:
        assert rows[p].tolist() == df[p].tolist()
        assert samples[p].tolist() == raw[p].tolist()
    assert rows["NumRuns"].dtype == "Int64" and rows["Run"].isna().all()


def test_parquet_that_kprof_did_not_write(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    foreign = tmp_path / "foreign.parquet"
    pq.write_table(pa.table({"x": [1, 2]}), foreign)
    with pytest.raises(errors.FormatError, match="without kprof's results"):
        kprof.load(foreign)
    broken = tmp_path / "broken.parquet"
    broken.write_text("not parquet")
    with pytest.raises(errors.FormatError, match="not a readable Parquet file"):
        kprof.load(broken)
    with pytest.raises(errors.FormatError, match="no such file"):
        kprof.load(tmp_path / "missing.parquet")


def test_parquet_without_pyarrow_says_how_to_install(matmul, tmp_path, monkeypatch):
    for name in list(sys.modules):
        if name == "pyarrow" or name.startswith("pyarrow."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ImportError, match=r"pip install 'kprof\[parquet\]'"):
        matmul.save(tmp_path / "r.parquet")
    assert not os.listdir(tmp_path)
    matmul.save(tmp_path / "r.json")  # JSON needs nothing
