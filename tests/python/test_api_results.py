"""ProfileResults: DataFrames with nsight-python's columns, text, JSON and CSV files.

The numbers come from the C++ core's aggregation of synthetic records (see conftest): these
tests check the front end's arrangement of the core's values, not measurements. Real H200
recordings under tests/data/*.json are loaded as well when present.
"""

from __future__ import annotations

import json
import math
import warnings

import kprof
import pandas as pd
import pytest
from conftest import DATA, duration_records, make_records
from kprof import _core, errors
from kprof.results import ProfileResults

NSIGHT_COLUMNS_AFTER_PARAMS = [
    "AvgValue",
    "StdDev",
    "MinValue",
    "MaxValue",
    "NumRuns",
    "Kernel",
    "GPU",
    "Host",
    "ComputeClock",
    "MemoryClock",
    "Unit",
    "CI95_Lower",
    "CI95_Upper",
    "RelativeStdDevPct",
    "StableMeasurement",
    "Normalized",
]
KPROF_COLUMNS = [
    "Median",
    "Backend",
    "ReplayMode",
    "CacheControl",
    "Passes",
    "RunsDone",
    "StoppedBy",
    "MeasuredClock",
    "Temperature",
    "ThrottledRuns",
    "ProfilingOverhead",
    "Rank",
    "Device",
]


def test_columns_in_nsight_order(two_by_two):
    df = ProfileResults(two_by_two).to_dataframe()
    assert list(df.columns) == (
        ["Annotation", "Metric", "n", "dtype"]
        + NSIGHT_COLUMNS_AFTER_PARAMS
        + ["Geomean"]
        + KPROF_COLUMNS
    )
    assert len(df) == 4


def test_values_come_from_the_core(two_by_two):
    df = ProfileResults(two_by_two).to_dataframe()
    rows = two_by_two.rows_columns()
    assert list(df["AvgValue"]) == rows["mean"]
    assert list(df["StdDev"]) == rows["stddev"]
    assert list(df["CI95_Lower"]) == rows["ci95_lower"]
    assert list(df["Geomean"]) == rows["geomean"]
    assert list(df["Median"]) == rows["median"]
    assert list(df["NumRuns"]) == rows["num_runs"]
    first = df.iloc[0]
    assert (first["Annotation"], first["n"], first["dtype"]) == ("base", 1024, "fp16")
    assert first["AvgValue"] == pytest.approx(105.0)
    assert first["StdDev"] == pytest.approx(5.0)  # sample std-dev, as nsight-python
    assert (first["MinValue"], first["MaxValue"]) == (100.0, 110.0)
    assert first["Unit"] == "ns"
    assert first["Kernel"] == "base_kernel"


def test_context_columns(two_by_two):
    df = ProfileResults(two_by_two).to_dataframe()
    assert set(df["GPU"]) == {"synthetic (no GPU)"}
    assert set(df["Host"]) == {"test-host"}
    assert set(df["ComputeClock"]) == {1980000}
    assert set(df["MemoryClock"]) == {2619000}
    assert set(df["Backend"]) == {"synthetic-test"}
    assert set(df["ReplayMode"]) == {"kernel"}
    assert set(df["CacheControl"]) == {"all"}
    assert set(df["Passes"]) == {1}


def test_stable_measurement_is_a_nullable_boolean(synthetic):
    one_run = synthetic(["n"], [[1]], duration_records({(0, "a"): [100.0]}), runs=1)
    df = ProfileResults(one_run).to_dataframe()
    assert str(df["StableMeasurement"].dtype) == "boolean"
    assert df["StableMeasurement"].iloc[0] is pd.NA
    assert math.isnan(df["StdDev"].iloc[0])
    stable = synthetic(["n"], [[1]], duration_records({(0, "a"): [100.0, 100.5, 99.8]}))
    assert bool(ProfileResults(stable).to_dataframe()["StableMeasurement"].iloc[0]) is True


def test_normalization_columns(synthetic):
    records = duration_records(
        {(0, "base"): [100.0, 110.0, 105.0], (0, "fast"): [50.0, 55.0, 52.5]}
    )
    res = synthetic(["n"], [[1]], records, normalize_against="base")
    df = ProfileResults(res).to_dataframe()
    cols = list(df.columns)
    assert cols.index("NormalizationValue") == cols.index("Normalized") + 1
    assert cols.index("Geomean") == cols.index("NormalizationValue") + 1
    assert set(df["Normalized"]) == {"base"}
    fast = df[df["Annotation"] == "fast"].iloc[0]
    assert fast["AvgValue"] == pytest.approx(0.5)
    assert fast["NormalizationValue"] == pytest.approx(105.0)


def test_not_normalized_is_false(two_by_two):
    df = ProfileResults(two_by_two).to_dataframe()
    assert "NormalizationValue" not in df.columns
    assert list(df["Normalized"]) == [False] * 4


def test_original_config_objects_in_parameter_columns(two_by_two):
    class DType:
        def __init__(self, name):
            self.name = name

        def __str__(self):
            return self.name

    half = DType("fp16")
    shape = (32, 32)
    res = ProfileResults(two_by_two, ["n", "dtype"], [(shape, half), ([1, 2], half)])
    df = res.to_dataframe()
    assert df["n"].iloc[0] is shape
    assert df["n"].iloc[1] == [1, 2]
    assert df["dtype"].iloc[0] is half
    raw = res.raw_dataframe()
    assert raw["dtype"].iloc[0] is half
    assert res.configs == [(shape, half), ([1, 2], half)]


def test_raw_dataframe_layout(two_by_two):
    raw = ProfileResults(two_by_two).raw_dataframe()
    assert list(raw.columns) == [
        "Annotation",
        "Value",
        "Metric",
        "Kernel",
        "GPU",
        "Host",
        "ComputeClock",
        "MemoryClock",
        "Unit",
        "Run",
        "MeasuredClock",
        "Temperature",
        "ClockEventReasons",
        "Throttled",
        "Rank",
        "Device",
        "n",
        "dtype",
    ]
    assert len(raw) == 12
    samples = two_by_two.samples_columns()
    assert list(raw["Value"]) == samples["value"]
    assert list(raw["Run"]) == samples["run"]


def test_records_dataframe_layout(two_by_two):
    rec = ProfileResults(two_by_two).records_dataframe()
    assert list(rec.columns) == [
        "Annotation",
        "Kernel",
        "KernelIndex",
        "Run",
        "Metric",
        "Value",
        "Unit",
        "GpuStart",
        "GpuEnd",
        "Stream",
        "Kind",
        "Bytes",
        "Rank",
        "Device",
        "n",
        "dtype",
    ]
    assert len(rec) == 12
    assert set(rec["Kind"]) == {"kernel"}  # records made before kprof kept the kind read so
    assert rec["Bytes"].isna().all()
    assert sorted(rec["Value"]) == sorted(two_by_two.records_columns()["value"])


def test_per_kernel_mode_adds_kernel_index(synthetic):
    rows = []
    for run, (a, b) in enumerate([(10.0, 20.0), (11.0, 21.0), (12.0, 22.0)]):
        rows.append((0, run, "step", "k_first", 0, "gpu__time_duration.sum", a, "ns"))
        rows.append((0, run, "step", "k_second", 1, "gpu__time_duration.sum", b, "ns"))
    res = synthetic(["n"], [[1]], make_records(rows), per_kernel=True)
    df = ProfileResults(res).to_dataframe()
    assert "KernelIndex" in df.columns
    assert list(df["KernelIndex"]) == [0, 1]
    assert list(df["Kernel"]) == ["k_first", "k_second"]
    assert list(df["AvgValue"]) == pytest.approx([11.0, 21.0])
    cols = list(df.columns)
    assert cols.index("KernelIndex") == cols.index("Median") + 1
    assert "KernelIndex" in ProfileResults(res).raw_dataframe().columns
    # With "sum" the two kernels are one value per run (durations add up).
    summed = synthetic(["n"], [[1]], make_records(rows), combine_kernel_metrics="sum")
    combined = ProfileResults(summed).to_dataframe()
    assert "KernelIndex" not in combined.columns
    assert combined["AvgValue"].iloc[0] == pytest.approx(32.0)
    assert combined["Kernel"].iloc[0] == "k_first|k_second"


def test_several_kernels_in_a_region_raise_without_a_combine_as_in_nsight_python(synthetic):
    rows = [
        (0, 0, "step", "k_first", 0, "gpu__time_duration.sum", 10.0, "ns"),
        (0, 0, "step", "k_second", 1, "gpu__time_duration.sum", 20.0, "ns"),
    ]
    with pytest.raises(kprof.errors.MeasurementError) as info:
        synthetic(["n"], [[1]], make_records(rows))
    assert isinstance(info.value, RuntimeError)  # nsight-python raises a RuntimeError
    message = str(info.value)
    assert "More than one kernel is launched within the step annotation" in message
    for part in ('combine_kernel_metrics="sum"', "per_kernel=True", "k_first, k_second"):
        assert part in message


def test_empty_results_have_the_columns():
    df = ProfileResults(_core.Results()).to_dataframe()
    assert len(df) == 0
    assert {"Annotation", "Metric", "AvgValue", "Geomean", "Median"} <= set(df.columns)


def test_text(two_by_two):
    res = ProfileResults(two_by_two)
    assert res.table() == two_by_two.table()
    assert str(res) == res.table()
    assert "base" in repr(res)
    assert "<table" in res._repr_html_()
    assert len(res) == 4
    assert res.metrics == ["gpu__time_duration.sum"]
    assert res.session["backend"] == "synthetic-test"
    assert res.parameters == ["n", "dtype"]


def test_save_and_load(two_by_two, tmp_path):
    res = ProfileResults(two_by_two)
    path = tmp_path / "sub" / "results.json"
    assert res.save(path) == str(path)
    loaded = kprof.load(path)
    assert loaded == res
    pd.testing.assert_frame_equal(loaded.to_dataframe(), res.to_dataframe())
    pd.testing.assert_frame_equal(loaded.raw_dataframe(), res.raw_dataframe())
    json.loads(path.read_text())  # valid JSON


def test_save_refuses_to_overwrite(two_by_two, tmp_path):
    res = ProfileResults(two_by_two)
    path = tmp_path / "r.json"
    res.save(path)
    with pytest.raises(errors.OutputExistsError) as info:
        res.save(path)
    assert isinstance(info.value, FileExistsError)
    assert "overwrite=True" in str(info.value)
    res.save(path, overwrite=True)


def test_load_gives_the_saved_parameter_values(synthetic, tmp_path):
    from kprof.configs import FunctionParams, bind

    def bench(shape, dtype):
        pass

    b = bind(FunctionParams.of(bench), decorator_configs=[((4, 4), "fp16"), ((8, 8), "fp16")])
    records = duration_records({(0, "a"): [1.0, 2.0, 3.0], (1, "a"): [4.0, 5.0, 6.0]})
    core = synthetic(b.columns, b.core_points(), records)
    res = ProfileResults(core, b.columns, b.values)
    assert list(res.to_dataframe()["shape"]) == [(4, 4), (8, 8)]
    res.save(tmp_path / "r.json")
    loaded = kprof.load(tmp_path / "r.json")
    # The file holds what the core stores: str(obj) for values that are not numbers or str.
    assert list(loaded.to_dataframe()["shape"]) == ["(4, 4)", "(8, 8)"]
    assert loaded.parameters == ["shape", "dtype"]


def test_load_errors(tmp_path):
    with pytest.raises(errors.FormatError):
        kprof.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(errors.FormatError):
        kprof.load(bad)


def test_json_round_trip_in_memory(two_by_two):
    res = ProfileResults(two_by_two)
    assert ProfileResults.from_json(res.to_json()) == res


def test_csv_round_trip(two_by_two, tmp_path):
    res = ProfileResults(two_by_two)
    paths = res.write_csv(str(tmp_path / "out") + "/", "bench-0")
    names = sorted(p.rsplit("/", 1)[-1] for p in paths)
    assert names == [
        "configs-bench-0.csv",
        "info-bench-0.csv",
        "processed_data-bench-0.csv",
        "profiled_data-bench-0.csv",
        "records-bench-0.csv",
        "runs-bench-0.csv",
        "session-bench-0.csv",
    ]
    back = ProfileResults.read_csv(str(tmp_path / "out") + "/", "bench-0")
    pd.testing.assert_frame_equal(back.to_dataframe(), res.to_dataframe())
    pd.testing.assert_frame_equal(back.raw_dataframe(), res.raw_dataframe())
    pd.testing.assert_frame_equal(back.records_dataframe(), res.records_dataframe())
    processed = pd.read_csv(tmp_path / "out" / "processed_data-bench-0.csv")
    assert list(processed.columns[:4]) == ["Annotation", "Metric", "n", "dtype"]


# --- derived metrics and combination, interpreted by the bindings, computed by the core ------


def one_region(synthetic, **options):
    records = duration_records({(0, "mm"): [100.0, 200.0, 400.0]})
    return synthetic(["n"], [[8]], records, **options)


def test_derive_float_is_named_after_the_function_and_warns_once(synthetic):
    def tflops(values, config):
        return 1000.0 / values[0]

    with pytest.warns(UserWarning, match="does not have a unit") as record:
        res = one_region(synthetic, derive=(tflops, "tflops"))
    assert len([w for w in record if "unit" in str(w.message)]) == 1
    df = ProfileResults(res).to_dataframe()
    row = df[df["Metric"] == "tflops"].iloc[0]
    assert row["AvgValue"] == pytest.approx((10.0 + 5.0 + 2.5) / 3)
    assert pd.isna(row["Unit"])


def test_derive_tuple_gives_a_unit(synthetic):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = one_region(synthetic, derive=(lambda v, c: (v[0] / 1e3, "us"), "to_us"))
    df = ProfileResults(res).to_dataframe()
    row = df[df["Metric"] == "to_us"].iloc[0]
    assert row["Unit"] == "us"
    assert row["MaxValue"] == pytest.approx(0.4)


def test_derive_mapping_gives_several_metrics(synthetic):
    def both(values, config):
        return {"per_s": (1e9 / values[0], "1/s"), "half": values[0] / 2}

    with pytest.warns(UserWarning, match="'half'"):
        res = one_region(synthetic, derive=(both, "both"))
    df = ProfileResults(res).to_dataframe()
    assert list(df["Metric"]) == ["gpu__time_duration.sum", "per_s", "half"]
    assert df[df["Metric"] == "half"]["AvgValue"].iloc[0] == pytest.approx(700.0 / 6)


def test_derive_bad_return_is_a_type_error(synthetic):
    with pytest.raises(TypeError, match="derive_metric 'bad' returned str"):
        one_region(synthetic, derive=(lambda v, c: "fast", "bad"))


def test_derive_exception_propagates_as_itself(synthetic):
    def broken(values, config):
        raise ZeroDivisionError("no")

    with pytest.raises(ZeroDivisionError, match="no"):
        one_region(synthetic, derive=(broken, "broken"))


def test_combine_callable(synthetic):
    rows = []
    for run in range(3):
        rows.append((0, run, "r", "k1", 0, "gpu__time_duration.sum", 10.0 + run, "ns"))
        rows.append((0, run, "r", "k2", 1, "gpu__time_duration.sum", 30.0, "ns"))
    records = make_records(rows)
    res = synthetic(["n"], [[1]], records, combine_kernel_metrics=lambda a, b: max(a, b))
    df = ProfileResults(res).to_dataframe()
    assert df["AvgValue"].iloc[0] == pytest.approx(30.0)
    assert df["Kernel"].iloc[0] == "k1|k2"
    res = synthetic(["n"], [[1]], records, combine_kernel_metrics="min")
    assert ProfileResults(res).to_dataframe()["AvgValue"].iloc[0] == pytest.approx(11.0)


def test_combine_exception_propagates(synthetic):
    rows = [
        (0, 0, "r", "k1", 0, "gpu__time_duration.sum", 1.0, "ns"),
        (0, 0, "r", "k2", 1, "gpu__time_duration.sum", 2.0, "ns"),
    ]

    def bad(a, b):
        raise ArithmeticError("nope")

    with pytest.raises(ArithmeticError, match="nope"):
        synthetic(["n"], [[1]], make_records(rows), runs=1, combine_kernel_metrics=bad)


# --- real recordings ---------------------------------------------------------------------------

RECORDINGS = sorted(DATA.glob("*.json"))


@pytest.mark.skipif(not RECORDINGS, reason="no recordings under tests/data")
@pytest.mark.parametrize("path", RECORDINGS, ids=[p.name for p in RECORDINGS])
def test_load_real_recordings(path):
    res = kprof.load(path)
    df = res.to_dataframe()
    params = res.parameters
    assert list(df.columns[: 2 + len(params)]) == ["Annotation", "Metric"] + params
    assert len(df) == len(res) > 0
    assert (df["NumRuns"] >= 1).all()
    assert (df["MinValue"] <= df["AvgValue"]).all() and (df["AvgValue"] <= df["MaxValue"]).all()
    assert set(df["Backend"]) == {res.session["backend"]}
    assert res.session["gpu"]
    raw = res.raw_dataframe()
    assert len(raw) >= len(df)
    # Round trip through a second file gives the same results.
    assert ProfileResults.from_json(res.to_json()) == res


def recording(kind):
    found = sorted(DATA.glob(f"*-python-{kind}-*.json"))
    if not found:
        pytest.skip(f"no {kind} recording under tests/data")
    return kprof.load(found[-1])


def test_recording_nested_and_derived():
    res = recording("demo")
    df = res.to_dataframe()
    assert res.session["backend"] == "cupti-activity"
    assert set(df["Annotation"]) == {"fma", "memory", "memory/scale", "memory/add"}
    assert set(df["Metric"]) == {"gpu__time_duration.sum", "throughput"}
    assert set(df[df["Metric"] == "throughput"]["Unit"]) == {"Gelem/s"}
    assert set(df[df["Metric"] == "gpu__time_duration.sum"]["Unit"]) == {"ns"}
    raw = res.raw_dataframe()
    durations = raw[raw["Metric"] == "gpu__time_duration.sum"]
    for (_n, _run), group in durations.groupby(["n", "Run"]):
        at = group.set_index("Annotation")["Value"]
        assert at["memory"] == pytest.approx(at["memory/scale"] + at["memory/add"])


def test_recording_normalized():
    df = recording("normalized").to_dataframe()
    assert set(df["Normalized"]) == {"memory/scale"}
    assert "NormalizationValue" in df.columns
    base = df[df["Annotation"] == "memory/scale"]
    assert base["AvgValue"].tolist() == pytest.approx([1.0] * len(base))


def test_recording_per_kernel():
    df = recording("per-kernel").to_dataframe()
    assert list(df["KernelIndex"]) == [0, 1]
    assert df["Kernel"].iloc[0] != df["Kernel"].iloc[1]


def test_recording_counters():
    """Hardware counters measured on the H200: the demo kernels read what their sizes say."""
    res = recording("counters")
    df = res.to_dataframe()
    assert res.session["backend"] == "cupti-range-profiler"
    assert res.session["clock_source"] == "counters"
    units = dict(zip(df["Metric"], df["Unit"], strict=True))
    assert units["dram__bytes_read.sum"] == "B" and units["gpu__time_duration.sum"] == "ns"
    read = df[df["Metric"] == "dram__bytes_read.sum"].set_index(["Annotation", "n"])["AvgValue"]
    for n in (1 << 20, 1 << 22):
        assert read[("memory/scale", n)] == pytest.approx(4 * n, rel=0.02)  # y = a x: reads x
        assert read[("memory/add", n)] == pytest.approx(8 * n, rel=0.02)  # z = x + y
        assert read[("memory", n)] == pytest.approx(
            read[("memory/scale", n)] + read[("memory/add", n)]
        )
    runs = res.runs_dataframe()
    assert (runs["MeasuredClock"] > 0).all()


def test_google_benchmark_json_holds_a_repetition_per_run_and_the_aggregates():
    results = kprof.load(DATA / "h200-python-counters-2026-11-30.json")
    doc = json.loads(results.to_google_benchmark_json(time_unit="us"))
    df = results.to_dataframe()
    durations = df[df["Metric"] == "gpu__time_duration.sum"]
    means = {b["run_name"]: b for b in doc["benchmarks"] if b.get("aggregate_name") == "mean"}
    assert len(means) == len(durations)
    first = durations.iloc[0]
    name = f"{first['Annotation']}/n:{first['n']}/dtype:{first['dtype']}"
    assert means[name]["real_time"] == pytest.approx(first["AvgValue"] / 1e3)
    assert means[name]["repetitions"] == first["NumRuns"]
    runs = [b for b in doc["benchmarks"] if b["name"] == name and b["run_type"] == "iteration"]
    assert [b["repetition_index"] for b in runs] == list(range(int(first["NumRuns"])))
    with pytest.raises(errors.OptionError):
        results.to_google_benchmark_json(time_unit="minutes")
