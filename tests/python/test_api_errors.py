"""kprof.errors mirrors the C++ error kinds one to one, with their attributes. The core hands
each error to ``errors._from_core`` (kind, message, attributes, partial results), which these
tests call as the extension does; a real core error goes through the translation end to end."""

from __future__ import annotations

import pickle

import kprof
import pytest
from conftest import DATA
from kprof import _core, errors

DEMO = DATA / "h200-python-demo-2026-11-30.json"

BUILTIN_BASE = {
    "KprofError": Exception,
    "OptionError": ValueError,
    "ConfigError": ValueError,
    "AnnotationError": ValueError,
    "MeasurementError": RuntimeError,
    "UserFunctionError": RuntimeError,
    "NoGpuError": RuntimeError,
    "CuptiBusyError": RuntimeError,
    "CountersBusyError": RuntimeError,
    "CudaError": RuntimeError,
    "UnsupportedError": NotImplementedError,
    "FormatError": ValueError,
    "ThermalControlError": RuntimeError,
    "CoolingTimeoutError": RuntimeError,
    "ClockControlError": RuntimeError,
    "ClockPermissionError": RuntimeError,
    "CounterPermissionError": PermissionError,
    "GpuFaultError": RuntimeError,
}
# Python's own KeyboardInterrupt stands for the core's InterruptError (Ctrl-C).
CLASS_KINDS = [kind for kind in _core.ERROR_KINDS if kind != "InterruptError"]


@pytest.mark.parametrize("kind", CLASS_KINDS)
def test_every_core_kind_maps_to_its_class(kind):
    cls = getattr(errors, kind)
    assert cls.kind == kind
    assert issubclass(cls, errors.KprofError)
    assert issubclass(cls, BUILTIN_BASE[kind])
    err = errors._from_core(kind, "something failed", {}, None)
    assert type(err) is cls
    assert err.partial_results is None


def test_a_core_error_reaches_python_as_its_class_with_its_attributes():
    with pytest.raises(errors.OptionError) as info:
        kprof.analyze.kernel(runs=0)  # checked by the core's option table
    assert (info.value.option, info.value.value) == ("runs", "0")
    assert info.value.valid.startswith("an integer >= 1")


def test_partial_results_of_a_core_error_are_profile_results():
    """The bindings make them kprof.ProfileResults (kprof.errors imports no results module)."""
    saved = kprof.load(DEMO)
    partial = errors._from_core("MeasurementError", "failed late", {}, saved.core).partial_results
    assert type(partial) is kprof.ProfileResults
    assert partial == saved
    assert partial.to_dataframe().equals(saved.to_dataframe())


def test_every_kind_is_known():
    assert set(CLASS_KINDS) == set(BUILTIN_BASE)
    assert "InterruptError" in _core.ERROR_KINDS


def test_the_cores_interrupt_is_a_keyboard_interrupt_with_partial_results():
    saved = kprof.load(DEMO)
    interrupt = errors._from_core("InterruptError", "interrupted", {}, saved.core)
    assert type(interrupt) is KeyboardInterrupt
    assert interrupt.partial_results == saved


def test_option_error_attributes():
    e = errors._from_core(
        "OptionError",
        "opt='val' is not valid; valid: 'a' or 'b'",
        {"option": "opt", "value": "'val'", "valid": "'a' or 'b'"},
        None,
    )
    assert (e.option, e.value, e.valid) == ("opt", "'val'", "'a' or 'b'")
    assert str(e) == "opt='val' is not valid; valid: 'a' or 'b'"
    assert isinstance(e, ValueError)


def test_user_function_error_attributes():
    e = errors._from_core("UserFunctionError", "boom", {"config": 2, "run": 1}, None)
    assert type(e) is errors.UserFunctionError
    assert (e.config, e.run) == (2, 1)
    assert str(e) == "boom"


def test_cupti_busy_error_holder():
    e = errors._from_core("CuptiBusyError", "busy", {"holder": "torch.profiler"}, None)
    assert e.holder == "torch.profiler"


def test_counters_busy_error_is_a_cupti_busy_error_of_another_process():
    assert issubclass(errors.CountersBusyError, errors.CuptiBusyError)
    message = "another process profiles the counters of GPU 0"
    e = errors._from_core("CountersBusyError", message, {"holder": "another process"}, None)
    assert isinstance(e, errors.CuptiBusyError)  # caught as the one it refines
    assert type(e) is errors.CountersBusyError
    assert e.holder == "another process"
    assert "GPU 0" in str(e)
    assert errors.CountersBusyError("busy").holder == "another process"
    assert "CountersBusyError" in errors.__all__


def test_python_constructors():
    e = errors.OptionError("runs", "0", "an integer >= 1")
    assert str(e) == "runs=0 is not valid; valid: an integer >= 1"
    assert errors.UserFunctionError("x", config=1, run=2).run == 2
    assert errors.CuptiBusyError("x", holder="nsys").holder == "nsys"
    assert issubclass(errors.OutputExistsError, FileExistsError)


@pytest.mark.parametrize("kind", CLASS_KINDS)
def test_errors_pickle(kind):
    attributes = {
        "OptionError": {"option": "opt", "value": "'val'", "valid": "'a'"},
        "UserFunctionError": {"config": 2, "run": 1},
        "CuptiBusyError": {"holder": "torch.profiler"},
        "CountersBusyError": {"holder": "another process"},
    }.get(kind, {})
    err = errors._from_core(kind, "message", attributes, None)
    copy = pickle.loads(pickle.dumps(err))
    assert type(copy) is type(err)
    assert str(copy) == str(err)
    for attr in ("option", "value", "valid", "holder", "config", "run"):
        assert getattr(copy, attr, None) == getattr(err, attr, None)


def test_nsight_exception_names():
    ex = kprof.exceptions
    assert ex.ProfilerException is errors.KprofError
    assert ex.NCUNotAvailableError is errors.NoGpuError
    assert issubclass(ex.CoolingTimeoutError, ex.ThermalControlError)
    assert issubclass(ex.ThermalControlError, errors.KprofError)
    assert ex.CoolingTimeoutError is errors.CoolingTimeoutError  # what kprof raises
    assert isinstance(
        errors._from_core("CoolingTimeoutError", "hot", {}, None), ex.CoolingTimeoutError
    )
    assert ex.MetricErrorType.INVALID.value == "Invalid"
    assert isinstance(ex.CUDA_CORE_UNAVAILABLE_MSG, str)
    # Catching nsight's base class catches every kprof error.
    assert isinstance(errors._from_core("ConfigError", "bad", {}, None), ex.ProfilerException)


def test_where_a_run_is_said_by_the_core():
    from kprof import _core

    assert _core.describe_run(1, 4, "n=1024", 2, 10) == "config 2/4 (n=1024), run 3/10"
    assert _core.describe_run(0, 2, "tag='c'", 6, 0) == "config 1/2 (tag='c'), run 7"
    assert _core.describe_run(3, 4, "", -1, 10) == "config 4/4"


def test_docs_errors_lists_every_error_class():
    """docs/errors.md's catalog names every error class, and each test file it cites exists."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent.parent
    text = (root / "docs" / "errors.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `(\w+)` \(", text, flags=re.MULTILINE))
    assert listed == set(errors._KINDS), set(errors._KINDS) ^ listed
    for cited in set(re.findall(r"`(tests/[\w/]+\.(?:py|cpp))`", text)):
        assert (root / cited).is_file(), cited
