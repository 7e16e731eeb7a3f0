"""The core's tables as arrays (``_core.table_arrays``) and results built from them
(``_core.results_from_arrays``), on real H200 recordings: what a Parquet file holds and reads
back without JSON."""

from __future__ import annotations

from pathlib import Path

import kprof
import numpy as np
import pytest
from kprof import _core, errors

DATA = Path(__file__).resolve().parents[1] / "data"
RECORDINGS = sorted(DATA.glob("h200-*.json"))
TABLES = ("records", "samples", "rows", "configs", "runs", "info", "source")


def _round_trip(results: kprof.ProfileResults, tables=TABLES) -> kprof.ProfileResults:
    core = results.core
    if core.info_layout():  # a row's info statistics are no array: the rows stay in the text
        tables = tuple(t for t in tables if t != "rows")
    arrays = {t: _core.table_arrays(core, t) for t in tables}
    document = _core.document_without(core, list(tables))
    return kprof.ProfileResults(_core.results_from_arrays(document, arrays, "test"))


@pytest.mark.parametrize("path", RECORDINGS, ids=[p.name for p in RECORDINGS])
def test_every_recording_reads_back_exactly_from_its_arrays(path):
    results = kprof.load(path)
    assert _round_trip(results) == results


def test_text_is_coded_once_per_distinct_value():
    results = kprof.load(DATA / "h200-seed-sweep-timed-2026-12-03.json")
    codes, values = _core.table_arrays(results.core, "records")["metric"]
    metrics = results.core.records_columns()["metric"]
    assert codes.dtype == np.int32 and len(codes) == len(metrics)
    assert values == list(dict.fromkeys(metrics))
    assert [values[c] for c in codes] == metrics


def test_numbers_and_flags_keep_their_kinds():
    results = kprof.load(DATA / "h200-python-counters-2026-11-30.json")
    rows = _core.table_arrays(results.core, "rows")
    assert rows["mean"].dtype == np.float64
    assert rows["config"].dtype == np.int64
    assert rows["stable"].dtype == np.int8  # -1 where a single run leaves it undefined
    expected = [-1 if v is None else int(v) for v in results.core.rows_columns()["stable"]]
    assert rows["stable"].tolist() == expected


def test_the_document_left_holds_no_table_given_as_arrays():
    results = kprof.load(DATA / "h200-python-demo-2026-11-30.json")
    document = _core.document_without(results.core, ["records", "samples"])
    back = _core.Results.from_json(document)
    assert back.num_records == 0 and back.num_samples == 0
    assert back.num_rows == len(results)


def test_an_unknown_table_is_refused_with_the_valid_ones():
    results = kprof.load(DATA / "h200-python-demo-2026-11-30.json")
    with pytest.raises(ValueError, match="no table 'record'; valid: records, samples"):
        _core.table_arrays(results.core, "record")


def _code_naming_no_value(records: dict) -> None:
    codes, values = records["metric"]
    codes = codes.copy()
    codes[1] = len(values)
    records["metric"] = (codes, values)


def _shorter_column(records: dict) -> None:
    records["value"] = records["value"][:-1]


def _column_of_another_kind(records: dict) -> None:
    records["value"] = records["value"].astype(np.int64)


def _config_not_in_the_sweep(records: dict) -> None:
    records["config"] = records["config"].copy()
    records["config"][0] = 99


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (_code_naming_no_value, r"records\.metric\[1\]: code \d+ names no value"),
        (_shorter_column, r"records\.value: \d+ values where the table's other columns have"),
        (_column_of_another_kind, r"records\.value: not a column of the kind the field holds"),
        (_config_not_in_the_sweep, r"f\.parquet: records\.config\[0\]"),
    ],
    ids=["code", "length", "kind", "checked as a file"],
)
def test_arrays_that_no_profile_wrote_are_a_format_error(spoil, message):
    results = kprof.load(DATA / "h200-python-demo-2026-11-30.json")
    arrays = {"records": _core.table_arrays(results.core, "records")}
    spoil(arrays["records"])
    document = _core.document_without(results.core, ["records"])
    with pytest.raises(errors.FormatError, match=message):
        _core.results_from_arrays(document, arrays, "f.parquet")
