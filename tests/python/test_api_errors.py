"""kprof.errors mirrors the C++ error kinds one to one, with their attributes."""

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


@pytest.mark.parametrize("kind", _core.ERROR_KINDS)
def test_every_core_kind_maps_to_its_class(kind):
    cls = getattr(errors, kind)
    assert cls.kind == kind
    assert issubclass(cls, errors.KprofError)
    assert issubclass(cls, BUILTIN_BASE[kind])
    with pytest.raises(cls) as info:
        _core._raise_error(kind, "something failed")
    assert type(info.value) is cls
    assert info.value.partial_results is None


def test_partial_results_of_a_core_error_are_profile_results():
    """The bindings make them kprof.ProfileResults (kprof.errors imports no results module)."""
    saved = kprof.load(DEMO)
    with pytest.raises(errors.MeasurementError) as info:
        _core._raise_error("MeasurementError", "failed late", saved.core)
    partial = info.value.partial_results
    assert type(partial) is kprof.ProfileResults
    assert partial == saved
    assert partial.to_dataframe().equals(saved.to_dataframe())


def test_every_kind_is_known():
    assert set(_core.ERROR_KINDS) == set(BUILTIN_BASE)


def test_option_error_attributes():
    with pytest.raises(errors.OptionError) as info:
        _core._raise_error("OptionError")
    e = info.value
    assert (e.option, e.value, e.valid) == ("opt", "'val'", "'a' or 'b'")
    assert str(e) == "opt='val' is not valid; valid: 'a' or 'b'"
    assert isinstance(e, ValueError)


def test_user_function_error_attributes():
    with pytest.raises(errors.UserFunctionError) as info:
        _core._raise_error("UserFunctionError", "boom")
    assert (info.value.config, info.value.run) == (2, 1)
    assert str(info.value) == "boom"


def test_cupti_busy_error_holder():
    with pytest.raises(errors.CuptiBusyError) as info:
        _core._raise_error("CuptiBusyError", "busy")
    assert info.value.holder == "torch.profiler"


def test_counters_busy_error_is_a_cupti_busy_error_of_another_process():
    assert issubclass(errors.CountersBusyError, errors.CuptiBusyError)
    with pytest.raises(errors.CuptiBusyError) as info:  # caught as the one it refines
        _core._raise_error("CountersBusyError", "another process profiles the counters of GPU 0")
    assert type(info.value) is errors.CountersBusyError
    assert info.value.holder == "another process"
    assert "GPU 0" in str(info.value)
    assert errors.CountersBusyError("busy").holder == "another process"
    assert "CountersBusyError" in errors.__all__


def test_python_constructors():
    e = errors.OptionError("runs", "0", "an integer >= 1")
    assert str(e) == "runs=0 is not valid; valid: an integer >= 1"
    assert errors.UserFunctionError("x", config=1, run=2).run == 2
    assert errors.CuptiBusyError("x", holder="nsys").holder == "nsys"
    assert issubclass(errors.OutputExistsError, FileExistsError)


@pytest.mark.parametrize("kind", _core.ERROR_KINDS)
def test_errors_pickle(kind):
    with pytest.raises(errors.KprofError) as info:
        _core._raise_error(kind, "message")
    copy = pickle.loads(pickle.dumps(info.value))
    assert type(copy) is type(info.value)
    assert str(copy) == str(info.value)
    for attr in ("option", "value", "valid", "holder", "config", "run"):
        assert getattr(copy, attr, None) == getattr(info.value, attr, None)


def test_nsight_exception_names():
    ex = kprof.exceptions
    assert ex.ProfilerException is errors.KprofError
    assert ex.NCUNotAvailableError is errors.NoGpuError
    assert issubclass(ex.CoolingTimeoutError, ex.ThermalControlError)
    assert issubclass(ex.ThermalControlError, errors.KprofError)
    assert ex.CoolingTimeoutError is errors.CoolingTimeoutError  # what kprof raises
    with pytest.raises(ex.CoolingTimeoutError):
        _core._raise_error("CoolingTimeoutError")
    assert ex.MetricErrorType.INVALID.value == "Invalid"
    assert isinstance(ex.CUDA_CORE_UNAVAILABLE_MSG, str)
    # Catching nsight's base class catches every kprof error.
    with pytest.raises(ex.ProfilerException):
        _core._raise_error("ConfigError")


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
