"""Every option of analyze.kernel is checked before any GPU work, with a typed error naming the
option, the value and what would be valid; the benchmark function is never called."""

from __future__ import annotations

import inspect
import os

import kprof
import pytest
from conftest import SYNTHETIC_SESSION, duration_records
from kprof import _core, errors
from kprof.results import ProfileResults


class Spy:
    """A benchmark function that records whether it ran."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, n: int = 1) -> None:
        self.calls += 1


def decorate(**options):
    spy = Spy()

    def bench(n):
        spy()

    wrapped = kprof.analyze.kernel(
        configs=[(1,)], verbosity=kprof.VerbosityLevel.SILENT, **options
    )(bench)
    return wrapped, spy


@pytest.mark.parametrize(
    "option, value, valid",
    [
        ("runs", 0, "an integer >= 1"),
        ("runs", -3, "an integer >= 1"),
        ("runs", 2.5, "an integer >= 1"),
        ("runs", "3", "an integer >= 1"),
        ("runs", True, "an integer >= 1"),
        ("cache_control", "cold", "'all' or 'none'"),
        ("cache_control", None, "'all' or 'none'"),
        ("clock_control", "locked", "'none' or 'base'"),
        ("replay_mode", "app", "'auto', 'kernel', 'range' or 'application'"),
        ("thermal_mode", "on", "'auto', 'manual' or 'off'"),
        ("verbosity", 7, "VerbosityLevel.SILENT (0)"),
        ("verbosity", "loud", "VerbosityLevel.SILENT (0)"),
        ("combine_kernel_metrics", "median", "'sum', 'max', 'min' or 'mean'"),
        ("combine_kernel_metrics", 3, "'sum', 'max', 'min', 'mean'"),
        ("normalize_against", 5, "the name of an annotation"),
        ("normalize_against", "", "the name of an annotation"),
        ("metrics", [], "at least one metric name"),
        ("metrics", [3], "metric names"),
        ("ignore_kernel_list", [""], "non-empty kernel names"),
        ("derive_metric", "tflops", "a function"),
        ("thermal_wait", "hot", "an integer, or None"),
        ("wait_for_counters", -1, "a number of seconds >= 0"),
        ("wait_for_counters", float("nan"), "a number of seconds >= 0"),
        ("wait_for_counters", None, "a number of seconds >= 0"),
        ("wait_for_counters", "60", "a number of seconds >= 0"),
        ("wait_for_counters", True, "a number of seconds >= 0"),
    ],
)
def test_invalid_option(option, value, valid):
    with pytest.raises(errors.OptionError) as info:
        kprof.analyze.kernel(**{option: value})
    e = info.value
    assert e.option == option
    assert valid in e.valid
    assert option in str(e)
    assert isinstance(e, ValueError)  # nsight-python raised ValueError


def test_option_error_names_the_value():
    with pytest.raises(errors.OptionError) as info:
        kprof.analyze.kernel(cache_control="cold")
    assert info.value.value == "'cold'"
    assert "'cold'" in str(info.value)
    assert "'all' or 'none'" in str(info.value)


def test_thermal_cont_must_exceed_wait():
    with pytest.raises(errors.OptionError) as info:
        kprof.analyze.kernel(thermal_wait=20, thermal_cont=20)
    assert info.value.option == "thermal_cont"
    assert "thermal_wait=20" in info.value.valid


def test_range_replay_needs_a_fixed_number_of_runs():
    kprof.analyze.kernel(replay_mode="range", runs=3)  # accepted
    with pytest.raises(errors.OptionError) as info:
        kprof.analyze.kernel(replay_mode="range", runs="auto")
    assert info.value.option == "runs"
    assert "replay_mode='range'" in str(info.value)


def test_valid_options_are_accepted():
    wrapped, spy = decorate(
        runs=5,
        cache_control="none",
        clock_control="none",
        replay_mode="kernel",
        thermal_mode="off",
        combine_kernel_metrics="max",
        ignore_kernel_list=["fill_kernel"],
        metrics=["  gpu__time_duration.sum "],  # whitespace is stripped, as nsight-python
        normalize_against="base",
        per_kernel=True,
        info_collectors=[],
    )
    assert spy.calls == 0
    settings = wrapped._kprof_profiler.settings
    assert settings.metrics == ["gpu__time_duration.sum"]
    assert settings.core_options().combine_kernel_metrics == "max"


@pytest.mark.parametrize("seconds", [0, 2, 60.5, float("inf")])
def test_wait_for_counters_is_accepted(seconds):
    """Seconds to wait for the GPU's counters while another process profiles them."""
    wrapped, spy = decorate(wait_for_counters=seconds)
    assert spy.calls == 0
    assert wrapped._kprof_profiler.settings.core_options().wait_for_counters == seconds
    assert _core.Options().wait_for_counters == 0  # raise at once by default


def test_decorator_forms():
    def bench():
        pass

    assert callable(kprof.analyze.kernel(bench))
    assert callable(kprof.analyze.kernel()(bench))
    assert callable(kprof.analyze.kernel(runs=2)(bench))
    with pytest.raises(TypeError, match="keyword arguments"):
        kprof.analyze.kernel([(1,)])


def test_wrapped_function_keeps_its_name():
    @kprof.analyze.kernel
    def my_bench():
        """Doc."""

    assert my_bench.__name__ == "my_bench"
    assert my_bench.__doc__ == "Doc."


def test_combine_must_take_two_values():
    with pytest.raises(errors.OptionError) as info:
        kprof.analyze.kernel(combine_kernel_metrics=lambda a: a)
    assert info.value.option == "combine_kernel_metrics"
    assert "two values" in info.value.valid
    with pytest.raises(errors.OptionError):
        kprof.analyze.kernel(combine_kernel_metrics=lambda a, b, c: a)
    # Two positional parameters, defaults, *args and builtins are fine.
    import operator

    for fn in (lambda a, b: a + b, lambda a, b=0: a, lambda *v: sum(v), operator.add, max):
        kprof.analyze.kernel(combine_kernel_metrics=fn)


def test_derive_metric_arity_is_checked_at_decoration():
    def bench(n, dtype):
        pass

    with pytest.raises(errors.OptionError) as info:
        kprof.analyze.kernel(derive_metric=lambda t, n: t)(bench)
    e = info.value
    assert e.option == "derive_metric"
    # 1 metric value + 2 parameters, named.
    assert "3 arguments" in e.valid
    assert "gpu__time_duration.sum" in e.valid
    assert "n, dtype" in e.valid


def test_derive_metric_arity_accepts_matching_defaults_and_varargs():
    def bench(n, dtype):
        pass

    for derive in (
        lambda t, n, dtype: t,
        lambda t, n, dtype, extra=1: t,
        lambda *args: args[0],
        lambda t, *rest: t,
    ):
        kprof.analyze.kernel(derive_metric=derive)(bench)


def test_invalid_options_leave_no_temporary_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    with pytest.raises(errors.OptionError):
        kprof.analyze.kernel(runs=0)
    assert list(tmp_path.iterdir()) == []
    # A valid decorator makes none either: the default folder is made when a file first goes
    # there, once for every later call of the function.
    benches = [kprof.analyze.kernel(runs=1)(lambda: None) for _ in range(3)]
    assert list(tmp_path.iterdir()) == []
    settings = benches[0]._kprof_profiler.settings
    assert settings.output_prefix == settings.output_prefix
    made = list(tmp_path.iterdir())
    assert len(made) == 1 and made[0].name.startswith("kprof_")
    assert settings.output_prefix == str(made[0]) + "/"


def test_output_prefix_is_kept(tmp_path):
    def bench():
        pass

    wrapped = kprof.analyze.kernel(output_prefix=str(tmp_path / "out" / "x_"), output_csv=True)(
        bench
    )
    assert wrapped._kprof_profiler.settings.output_prefix == os.path.join(
        str(tmp_path), "out", "x_"
    )
    with pytest.raises(errors.OptionError):
        kprof.analyze.kernel(output_prefix=3)


def test_core_options_reflect_the_settings():
    wrapped, _ = decorate(runs=4, cache_control="none", per_kernel=True)
    o = wrapped._kprof_profiler.settings.core_options()
    assert o.runs == 4
    assert o.cache_control == "none"
    assert o.per_kernel is True
    assert o.metrics == ["gpu__time_duration.sum"]
    assert o.verbosity == 0
    assert "runs=4" in repr(o)


# --- the option table (include/kprof/options.hpp) ----------------------------------------------


def test_the_keywords_of_kernel_are_the_rows_of_the_option_table():
    """Adding an option is a row in the table and a keyword here: each keyword is a row, its
    default gives the table's default, and the docstring says what it does."""
    params = inspect.signature(kprof.analyze.kernel).parameters
    # devices shares a sweep among worker processes, a front end's work the core never sees.
    keywords = {n for n in params if n not in ("_func", "configs", "devices")}
    rows = [r for r in _core.option_table() if r["keyword"]]
    assert keywords == {r["name"] for r in rows}
    defaults = _core.Options()
    for row in rows:
        name = row["name"]
        given = _core.Options(**{name: params[name].default})
        assert getattr(given, name) == getattr(defaults, name), name
        assert f"\n    {name}: " in inspect.cleandoc(kprof.analyze.kernel.__doc__), name


def test_core_options_take_only_options():
    with pytest.raises(TypeError, match="'runz'"):
        _core.Options(runz=3)
    o = _core.Options(runs=3, cache_control="none", throttle_threshold=0.5)
    assert (o.runs, o.cache_control, o.throttle_threshold) == (3, "none", 0.5)


def test_a_call_keeps_the_name_of_derive_metric():
    def tflops(ns, n):
        return 1.0

    decorated = _core.Options(derive_metric=tflops)
    assert decorated.derive_metric is tflops
    call = decorated.for_call(lambda values, config: (values[0] * 2, "x"), None)
    session = dict(SYNTHETIC_SESSION, runs=3)
    records = duration_records({(0, "mm"): [1.0, 2.0, 3.0]})
    df = ProfileResults(_core._aggregate(session, ["n"], [[8]], records, call)).to_dataframe()
    assert list(df["Metric"]) == ["gpu__time_duration.sum", "tflops"]
    assert decorated.derive_metric is tflops  # the decorator's options are left as they were


def test_an_empty_output_prefix_is_the_current_folder():
    wrapped, _ = decorate(output_prefix="")
    assert wrapped._kprof_profiler.settings.output_prefix == "./"
