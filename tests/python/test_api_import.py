"""Importing kprof works without a GPU and exposes nsight-python's names."""

from __future__ import annotations

import inspect
import subprocess
import sys

import kprof
import kprof as nsight


def test_nsight_names():
    for name in ("analyze", "annotate", "VerbosityLevel", "__version__"):
        assert hasattr(nsight, name), name
    assert callable(nsight.analyze.kernel)
    assert callable(nsight.analyze.ignore_failures)
    assert callable(nsight.analyze.plot)
    assert nsight.exceptions.ProfilerException is kprof.errors.KprofError


def test_nsight_modules_resolve_to_the_same_objects():
    """The modules nsight-python scripts import beside the top level."""
    import kprof.annotation
    import kprof.exceptions
    import kprof.info_collector
    import kprof.utils

    assert kprof.utils.VerbosityLevel is nsight.VerbosityLevel
    assert nsight.utils.VerbosityLevel.INFO is kprof.VerbosityLevel.INFO
    assert isinstance(nsight.row_panel, type) and isinstance(nsight.col_panel, type)
    assert kprof.info_collector.CollectionScope is nsight.CollectionScope
    assert kprof.info_collector.InfoCollector is nsight.InfoCollector
    assert kprof.annotation.annotate is nsight.annotate
    assert kprof.exceptions.ProfilerException is kprof.errors.KprofError


def test_exports():
    assert set(kprof.__all__) >= {
        "analyze",
        "annotate",
        "VerbosityLevel",
        "errors",
        "exceptions",
        "load",
        "ProfileResults",
        "__version__",
    }
    for name in kprof.__all__:
        assert hasattr(kprof, name), name


def test_version():
    assert kprof.__version__.count(".") == 2
    assert kprof._core.version().count(".") == 2


def test_verbosity_levels_match_nsight():
    assert [(m.name, int(m)) for m in kprof.VerbosityLevel] == [
        ("SILENT", 0),
        ("INFO", 3),
        ("DEBUG", 4),
    ]


def test_kernel_signature_matches_nsight():
    sig = inspect.signature(kprof.analyze.kernel)
    expected = {
        "_func": None,
        "configs": None,
        "runs": 1,
        "derive_metric": None,
        "normalize_against": None,
        "verbosity": kprof.VerbosityLevel.INFO,
        "metrics": ["gpu__time_duration.sum"],
        "ignore_kernel_list": None,
        "clock_control": "none",
        "cache_control": "all",
        "replay_mode": "auto",  # nsight-python's "kernel" is kept when given (docs/python.md)
        "thermal_mode": "auto",
        "thermal_wait": None,
        "thermal_cont": None,
        "thermal_timeout": None,
        "thermal_device": None,
        "combine_kernel_metrics": None,
        "output_prefix": None,
        "output_csv": False,
        "info_collectors": None,
        "per_kernel": False,
        "warmup": 0,  # kprof's own, after nsight-python's
        "disclose_overhead": True,
        "wait_for_counters": 0,
        "devices": None,
    }
    assert list(sig.parameters) == list(expected)
    for name, default in expected.items():
        assert sig.parameters[name].default == default, name
    for name in list(expected)[1:]:
        assert sig.parameters[name].kind is inspect.Parameter.KEYWORD_ONLY, name


def test_import_in_a_fresh_process_without_gpu():
    # A fresh interpreter: no state from other tests; must not crash or print.
    out = subprocess.run(
        [sys.executable, "-c", "import kprof; print(kprof.__version__)"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == kprof.__version__
    assert out.stderr == ""


def test_query_system_is_a_dict():
    info = kprof._core.query_system()
    for key in ("built_with_cuda", "driver_loaded", "driver_error", "devices", "host"):
        assert key in info
    if not info["driver_loaded"]:
        assert info["driver_error"]
        assert info["devices"] == []


def test_core_log_lines_go_to_sys_stdout(capsys):
    kprof._core._log_line("[kprof] a line from the core")
    assert capsys.readouterr().out == "[kprof] a line from the core\n"


def test_cli_main_runs_in_process(capfd):
    assert kprof._core.cli_main(["kprof", "--version"]) == 0
    assert kprof._core.version() in capfd.readouterr().out


def test_import_kprof_does_not_load_the_extension():
    """libkprof loads on first use, so `import kprof` before `import torch` stays safe."""
    import subprocess
    import sys

    code = "import sys, kprof; print('kprof._core' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
