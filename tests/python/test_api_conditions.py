"""Measurement conditions through the Python API, without a GPU: tool management, the stopping
rule's options, the thermal and clock options, info collectors (forms, checks, argument
binding, values), and the conditions' columns in the DataFrames.

Results here are synthetic: the core's own aggregation (``kprof._core._aggregate``) of made-up
records, runs and collector values (session backend ``synthetic-test``); they test the front
end's plumbing, not measurements. The engine that calls collectors, pauses for heat and stops
on the rule is tested in C++ (tests/unit/test_conditions.cpp, test_stopping.cpp,
test_thermal_guard.cpp, test_clock_lock.cpp); on the GPU in test_gpu_conditions.py.
"""

from __future__ import annotations

import math
import subprocess
import sys
import warnings

import kprof
import numpy as np
import pandas as pd
import pytest
from conftest import SYNTHETIC_SESSION, duration_records
from kprof import _core, errors
from kprof.collectors import (
    CollectorCalls,
    bind_args_to_signature,
    check_parameter_names,
    normalize,
)
from kprof.results import ProfileResults

SILENT = kprof.VerbosityLevel.SILENT
NAN = float("nan")


# --- tools ----------------------------------------------------------------------------------


def test_tool_is_nsights_str_enum():
    assert [(t.name, t.value) for t in kprof.Tool] == [("NCU", "ncu"), ("CUPTI", "cupti")]
    assert kprof.Tool.CUPTI == "cupti"
    assert isinstance(kprof.Tool.NCU, str)


def test_activate_cupti_is_kprofs_engine(no_tool):
    assert kprof.get_active_tool() is None
    kprof.activate(kprof.Tool.CUPTI)
    assert kprof.get_active_tool() is kprof.Tool.CUPTI
    kprof.activate(kprof.Tool.CUPTI)  # the same tool again: nothing happens
    assert kprof.get_active_tool() is kprof.Tool.CUPTI
    kprof.deactivate()
    assert kprof.get_active_tool() is None
    kprof.deactivate()  # nothing active: nothing happens


def test_ncu_without_ncu_is_a_typed_error(no_tool, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("KPROF_NCU", raising=False)
    with pytest.raises(errors.ToolUnavailableError) as info:
        kprof.activate(kprof.Tool.NCU)
    e = info.value
    assert "no ncu on PATH" in str(e)
    assert "KPROF_NCU" in str(e) and "Tool.CUPTI" in str(e)
    # nsight-python scripts catching NCUNotAvailableError still catch it.
    assert isinstance(e, kprof.exceptions.NCUNotAvailableError)
    assert isinstance(e, errors.UnsupportedError)
    assert kprof.get_active_tool() is None


def test_switching_tools_is_an_error(no_tool):
    kprof.activate(kprof.Tool.CUPTI)
    with pytest.raises(errors.ToolError, match="already active; cannot switch") as info:
        kprof.activate(kprof.Tool.NCU)
    assert isinstance(info.value, RuntimeError)  # nsight-python raised RuntimeError


def test_activate_takes_only_tools(no_tool):
    with pytest.raises(errors.OptionError) as info:
        kprof.activate("cupti")
    assert isinstance(info.value, ValueError)  # nsight-python raised ValueError
    assert info.value.option == "tool"


def test_a_profile_activates_cupti_when_no_tool_is(no_tool):
    from kprof import tools

    tools._profile_starts()
    assert kprof.get_active_tool() is kprof.Tool.CUPTI


def test_activation_needs_no_cuda_and_no_extension():
    """CUPTI may be activated before CUDA is initialised: activation touches nothing."""
    code = (
        "import sys, kprof; kprof.activate(kprof.Tool.CUPTI); "
        "print(kprof.get_active_tool().value, 'kprof._core' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["cupti", "False"]


# --- runs="auto" and the stopping rule -------------------------------------------------------


def test_runs_auto_is_the_default_rule():
    def bench():
        pass

    wrapped = kprof.analyze.kernel(runs="auto", verbosity=SILENT)(bench)
    settings = wrapped._kprof_profiler.settings
    assert settings.stopping == kprof.StoppingRule()
    assert settings.runs == 100  # an upper bound, for progress displays
    o = settings.core_options()
    assert o.runs == (0.01, 5, 100, 15.0)
    assert "'auto'" in repr(o)


def test_a_stopping_rule_object():
    rule = kprof.StoppingRule(rel_half_width=0.02, min_runs=3, max_runs=40, time_budget_s=0)
    wrapped = kprof.analyze.kernel(runs=rule, verbosity=SILENT)(lambda: None)
    assert wrapped._kprof_profiler.settings.core_options().runs == (0.02, 3, 40, 0.0)


@pytest.mark.parametrize(
    "runs, option",
    [
        ("fast", "runs"),
        ("AUTO", "runs"),
        (kprof.StoppingRule(min_runs=1), "runs.min_runs"),
        (kprof.StoppingRule(rel_half_width=0), "runs.rel_half_width"),
        (kprof.StoppingRule(rel_half_width=1.5), "runs.rel_half_width"),
        (kprof.StoppingRule(min_runs=10, max_runs=5), "runs.max_runs"),
        (kprof.StoppingRule(time_budget_s=-1), "runs.time_budget_s"),
        (kprof.StoppingRule(min_runs=2.5), "runs.min_runs"),
        (kprof.StoppingRule(rel_half_width="1%"), "runs.rel_half_width"),
    ],
)
def test_invalid_rules_are_option_errors(runs, option):
    with pytest.raises(errors.OptionError) as info:
        kprof.analyze.kernel(runs=runs)
    assert info.value.option == option
    assert isinstance(info.value, ValueError)


def test_invalid_runs_say_auto_is_valid():
    with pytest.raises(errors.OptionError) as info:
        kprof.analyze.kernel(runs="many")
    assert "'auto'" in info.value.valid and "StoppingRule" in info.value.valid


# --- thermal guard and clock options ---------------------------------------------------------


def test_thermal_and_clock_options_are_accepted():
    wrapped = kprof.analyze.kernel(
        thermal_mode="manual",
        thermal_wait=5,
        thermal_cont=15,
        thermal_timeout=60,
        thermal_device=0,
        clock_control="base",
        verbosity=SILENT,
    )(lambda: None)
    o = wrapped._kprof_profiler.settings.core_options()
    assert (o.thermal_mode, o.thermal_wait, o.thermal_cont) == ("manual", 5, 15)
    assert (o.thermal_timeout, o.thermal_device, o.clock_control) == (60, 0, "base")
    assert o.throttle_threshold == 0.75


@pytest.mark.parametrize(
    "options, option",
    [
        ({"thermal_wait": 25}, "thermal_wait"),  # above the default thermal_cont (20)
        ({"thermal_cont": 5}, "thermal_cont"),  # below the default thermal_wait (10)
        ({"thermal_wait": 20, "thermal_cont": 20}, "thermal_cont"),
        ({"thermal_timeout": 0}, "thermal_timeout"),
        ({"thermal_device": -1}, "thermal_device"),
    ],
)
def test_thermal_values_in_effect_are_checked(options, option):
    with pytest.raises(errors.OptionError) as info:
        kprof.analyze.kernel(**options)
    assert info.value.option == option


# --- info collectors: forms and checks ---------------------------------------------------------


def test_collect_as_decorator_and_direct_call():
    @kprof.experimental.collect(scope=kprof.CollectionScope.RUN)
    def memory(*config):
        return 1

    assert memory._nsight_collector_scope == "run"
    assert memory._nsight_collector_name == "memory"

    def version():
        return "1.0"

    same = kprof.experimental.collect(version, scope="once")
    assert same is version
    assert version._nsight_collector_scope == "once"


def test_collect_rejects_bad_scopes_and_non_callables():
    with pytest.raises(errors.OptionError) as info:
        kprof.experimental.collect(scope="kernel")
    assert isinstance(info.value, ValueError)
    assert "'annotation'" in info.value.valid
    with pytest.raises(TypeError):
        kprof.experimental.collect(scope="run")(42)


def test_collection_scope_values_are_nsights():
    assert [s.value for s in kprof.CollectionScope] == ["once", "config", "run", "annotation"]


def test_info_collector_once_takes_no_arguments():
    c = kprof.InfoCollector("v", lambda: "x", kprof.CollectionScope.ONCE)
    assert c.collect(1, 2) == "x"
    c = kprof.InfoCollector("s", lambda *a: sum(a), kprof.CollectionScope.CONFIG)
    assert c.collect(1, 2) == 3


def test_the_three_forms_and_nsight_decorated_functions():
    @kprof.experimental.collect(scope="config")
    def elements(n):
        return n * n

    def from_nsight(*config):  # as nsight.experimental.collect marks it
        return 0

    from_nsight._nsight_collector_scope = "run"
    from_nsight._nsight_collector_name = "from_nsight"
    out = normalize(
        [
            elements,
            kprof.InfoCollector("Torch", lambda: "2.11", kprof.CollectionScope.ONCE),
            ("Depth", lambda a, *c: 1, "annotation"),
            ("Size", len, kprof.CollectionScope.RUN),
            from_nsight,
        ]
    )
    assert [(c.name, c.scope.value) for c in out] == [
        ("elements", "config"),
        ("Torch", "once"),
        ("Depth", "annotation"),
        ("Size", "run"),
        ("from_nsight", "run"),
    ]


@pytest.mark.parametrize(
    "collectors, needle",
    [
        ([lambda: 1], "decorate it with kprof.experimental.collect"),
        ([("x", lambda: 1)], "(name, function, scope)"),
        ([("x", 3, "run")], "a function to call"),
        ([("", lambda: 1, "run")], "non-empty"),
        ([("x", lambda: 1, "sometimes")], "'once'"),
        ("memory", "a list of"),
        ([("x", lambda: 1, "run"), ("x", lambda: 2, "config")], "distinct names"),
        ([("AvgValue", lambda: 1, "run")], "reserved"),
        ([("MeasuredClock", lambda: 1, "run")], "reserved"),
        ([("Annotation", lambda: 1, "once")], "reserved"),
    ],
)
def test_bad_collectors_fail_when_the_decorator_is_built(collectors, needle):
    with pytest.raises(errors.OptionError) as info:
        kprof.analyze.kernel(info_collectors=collectors)
    assert needle in str(info.value)
    assert isinstance(info.value, kprof.exceptions.ProfilerException)  # nsight-python's class


def test_a_collector_named_like_a_parameter_fails_when_applied():
    decorator = kprof.analyze.kernel(info_collectors=[("n", lambda *c: 1, "run")])

    def bench(n, dtype="fp16"):
        pass

    with pytest.raises(errors.OptionError) as info:
        decorator(bench)
    assert "bench(n, dtype)" in str(info.value)
    check_parameter_names(normalize([("m", lambda: 1, "run")]), ["n"], "bench")


def test_collectors_reach_the_core_options():
    wrapped = kprof.analyze.kernel(
        info_collectors=[("mem", lambda *c: 1, "run"), ("ver", lambda: "1", "once")],
        verbosity=SILENT,
    )(lambda n: None)
    o = wrapped._kprof_profiler.settings.core_options()
    assert o.info_collectors == [("mem", "run"), ("ver", "once")]


# --- info collectors: calls ------------------------------------------------------------------


def test_bind_args_to_signature_follows_nsight():
    config = (1024, "fp16", True)
    assert bind_args_to_signature(lambda *a: 0, (), config) == [1024, "fp16", True]
    assert bind_args_to_signature(lambda n: 0, (), config) == [1024]
    assert bind_args_to_signature(lambda n, d: 0, (), config) == [1024, "fp16"]
    assert bind_args_to_signature(lambda a, n: 0, ("ann",), config) == ["ann", 1024]
    assert bind_args_to_signature(lambda a: 0, ("ann",), config) == ["ann"]
    assert bind_args_to_signature(lambda: 0, (), config) == []
    assert bind_args_to_signature(max, (), (1, 2)) == [1, 2]  # no signature: everything


def test_collector_calls_give_the_core_numbers_or_text_and_keep_objects():
    shape = (32, 32)
    collectors = normalize(
        [
            ("num", lambda n: n * 2, "config"),
            ("shape", lambda *c: shape, "run"),
            ("label", lambda a, n: f"{a}:{n}", "annotation"),
            ("ver", lambda: "1.0", "once"),
            ("none", lambda *c: None, "run"),
            ("flag", lambda *c: True, "run"),
            ("np", lambda *c: np.float32(2.5), "run"),
        ]
    )
    calls = CollectorCalls(collectors, [(8, "fp16"), (16, "fp32")])
    fns = {name: fn for name, _, fn in calls.core_collectors()}
    assert fns["num"](1, -1, "") == 32.0
    assert fns["shape"](0, 3, "") == "(32, 32)"
    assert calls.objects[("shape", 0, 3, "")] is shape
    assert fns["label"](1, 0, "outer/inner") == "outer/inner:16"
    assert fns["ver"](0, -1, "") == "1.0"
    assert fns["none"](0, 0, "") is None
    assert fns["flag"](0, 0, "") == "True"  # a bool is not a number for the statistics
    assert calls.objects[("flag", 0, 0, "")] is True
    assert fns["np"](0, 0, "") == 2.5


def test_a_raising_collector_gives_none_and_warns_once():
    def flaky(*config):
        raise OSError("sensor busy")

    calls = CollectorCalls(normalize([("flaky", flaky, "run")]), [(1,)])
    ((_, _, fn),) = calls.core_collectors()
    with pytest.warns(RuntimeWarning, match="'flaky' \\(run scope\\) raised OSError: sensor busy"):
        assert fn(0, 0, "") is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fn(0, 1, "") is None  # no second warning


def test_keyboard_interrupt_in_a_collector_is_not_swallowed():
    def stop(*config):
        raise KeyboardInterrupt

    calls = CollectorCalls(normalize([("stop", stop, "run")]), [(1,)])
    ((_, _, fn),) = calls.core_collectors()
    with pytest.raises(KeyboardInterrupt):
        fn(0, 0, "")


# --- the columns ---------------------------------------------------------------------------------


def conditions_results(info_objects=None, throttled=(False, True, None)):
    """Two annotations ("a" and "a/b"), one config n=8, three runs; the conditions as the
    engine records them, aggregated by the core."""
    records = duration_records({(0, "a"): [100.0, 110.0, 105.0], (0, "a/b"): [50.0, 55.0, 52.5]})
    configs = {"config": [0], "runs": [3], "stopped_by": ["precision"], "seconds": [0.5]}
    runs = {
        "config": [0, 0, 0],
        "run": [0, 1, 2],
        "seconds": [0.1, 0.2, 0.15],
        "pause_s": [0.0, 1.5, 0.0],
        "sm_clock_khz": [1980000.0, 1200000.0, NAN],
        "temperature_c": [60.0, 62.0, NAN],
        "clock_event_reasons": [0, 0x40, -1],
        "throttled": list(throttled),
    }
    rows = [
        ("driver", "once", 0, -1, "", NAN, "590.1"),
        ("elements", "config", 0, -1, "", 64.0, ""),
    ]
    for run in range(3):
        rows.append(("mem", "run", 0, run, "", 1000.0 + 10 * run, ""))
        rows.append(("shape", "run", 0, run, "", NAN, "(32, 32)"))
        rows.append(("depth", "annotation", 0, run, "a", 1.0, ""))
        rows.append(("depth", "annotation", 0, run, "a/b", 2.0, ""))
    info = {
        k: [r[i] for r in rows]
        for i, k in enumerate(["name", "scope", "config", "run", "annotation", "value", "text"])
    }
    o = _core.Options()
    o.runs = 3
    session = dict(SYNTHETIC_SESSION, runs=0, throttle_threshold=0.75, thermal_mode="auto")
    core = _core._aggregate(session, ["n"], [[8]], records, o, configs, runs, info)
    return ProfileResults(core, ["n"], [(8,)], info_objects=info_objects)


def test_numeric_collectors_get_four_columns_after_unit():
    df = conditions_results().to_dataframe()
    cols = list(df.columns)
    expected = [
        "Unit",
        "driver",
        "elements_Avg",
        "elements_Std",
        "elements_Min",
        "elements_Max",
        "mem_Avg",
        "mem_Std",
        "mem_Min",
        "mem_Max",
        "shape",
        "depth_Avg",
        "depth_Std",
        "depth_Min",
        "depth_Max",
        "CI95_Lower",
    ]
    start = cols.index("Unit")
    assert cols[start : start + len(expected)] == expected
    a = df[df["Annotation"] == "a"].iloc[0]
    assert a["driver"] == "590.1"
    assert a["elements_Avg"] == 64.0 and math.isnan(a["elements_Std"])
    assert a["mem_Avg"] == pytest.approx(1010.0)
    assert a["mem_Std"] == pytest.approx(10.0)
    assert (a["mem_Min"], a["mem_Max"]) == (1000.0, 1020.0)
    assert a["shape"] == "(32, 32)"
    assert a["depth_Avg"] == 1.0
    assert df[df["Annotation"] == "a/b"].iloc[0]["depth_Avg"] == 2.0


def test_objects_collected_in_this_process_show_as_themselves():
    shape = (32, 32)
    res = conditions_results(info_objects={("shape", 0, 0, ""): shape})
    assert res.to_dataframe()["shape"].iloc[0] is shape
    assert res.raw_dataframe()["shape"].iloc[0] is shape


def test_raw_data_has_each_runs_collector_values_and_conditions():
    raw = conditions_results().raw_dataframe()
    cols = list(raw.columns)
    assert cols[cols.index("Unit") + 1 : cols.index("Run")] == [
        "driver",
        "elements",
        "mem",
        "shape",
        "depth",
    ]
    assert cols[-7:] == [
        "MeasuredClock",
        "Temperature",
        "ClockEventReasons",
        "Throttled",
        "Rank",
        "Device",
        "n",
    ]
    a = raw[raw["Annotation"] == "a"]
    assert list(a["mem"]) == [1000.0, 1010.0, 1020.0]
    assert list(a["depth"]) == [1.0, 1.0, 1.0]
    assert list(raw[raw["Annotation"] == "a/b"]["depth"]) == [2.0, 2.0, 2.0]
    assert list(a["elements"]) == [64.0] * 3
    assert list(a["MeasuredClock"][:2]) == [1980000.0, 1200000.0]
    assert math.isnan(a["MeasuredClock"].iloc[2])
    assert list(a["ClockEventReasons"][:2]) == [0, 0x40]
    assert a["ClockEventReasons"].iloc[2] is pd.NA
    assert list(a["Throttled"][:2]) == [False, True]


def test_rows_summarise_the_runs_conditions():
    df = conditions_results().to_dataframe()
    first = df.iloc[0]
    assert first["RunsDone"] == 3
    assert first["StoppedBy"] == "precision"
    assert first["MeasuredClock"] == pytest.approx(1590000.0)  # NaN runs left out
    assert first["Temperature"] == pytest.approx(61.0)
    assert first["ThrottledRuns"] == 1.0


def test_without_nvml_the_condition_columns_are_nan(two_by_two):
    df = ProfileResults(two_by_two).to_dataframe()
    assert df["MeasuredClock"].isna().all()
    assert df["Temperature"].isna().all()
    assert df["ThrottledRuns"].isna().all()
    assert df["StoppedBy"].isna().all()  # synthetic results that record no stopping


def test_runs_dataframe():
    runs = conditions_results().runs_dataframe()
    assert list(runs.columns) == [
        "Config",
        "Run",
        "Seconds",
        "ThermalPause",
        "MeasuredClock",
        "Temperature",
        "ClockEventReasons",
        "Throttled",
        "n",
        "Rank",
        "Device",
    ]
    assert list(runs["ThermalPause"]) == [0.0, 1.5, 0.0]
    assert list(runs["n"]) == [8, 8, 8]


def test_throttled_runs_are_warned_about():
    from kprof.analyze import _warn_throttled

    with pytest.warns(RuntimeWarning, match="1 of 2 runs ran with the SM clock below 75%"):
        _warn_throttled(conditions_results(), "bench")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _warn_throttled(conditions_results(throttled=(False, False, None)), "bench")


def test_conditions_round_trip_through_json_and_csv(tmp_path):
    res = conditions_results()
    back = kprof.load(res.save(tmp_path / "r.json"))
    assert back == res
    pd.testing.assert_frame_equal(back.to_dataframe(), res.to_dataframe())
    pd.testing.assert_frame_equal(back.runs_dataframe(), res.runs_dataframe())
    res.write_csv(str(tmp_path) + "/", "t")
    from_csv = ProfileResults.read_csv(str(tmp_path) + "/", "t")
    assert from_csv == res
    pd.testing.assert_frame_equal(from_csv.raw_dataframe(), res.raw_dataframe())
    processed = pd.read_csv(tmp_path / "processed_data-t.csv")
    assert processed["mem_Avg"].iloc[0] == pytest.approx(1010.0)
    assert processed["StoppedBy"].iloc[0] == "precision"


def test_session_says_how_runs_were_decided():
    s = conditions_results().session
    assert s["throttle_threshold"] == 0.75
    assert s["thermal_mode"] == "auto"
    assert math.isnan(s["stop_rel_half_width"])
