"""Bad input a new user gives: each a typed error naming the option, the value and what is valid,
before any GPU work (these tests run where there is none, so a NoGpuError would fail them)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import kprof
import numpy as np
import pytest
from kprof import errors


def noop():
    pass


@pytest.mark.parametrize("option", ["output_csv", "per_kernel"])
def test_a_bool_option_takes_a_bool(option):
    with pytest.raises(errors.OptionError) as info:
        kprof.analyze.kernel(**{option: "yes"})(noop)
    assert info.value.option == option
    assert str(info.value) == f"{option}='yes' is not valid; valid: True or False"
    kprof.analyze.kernel(**{option: np.bool_(False)})(noop)  # numpy's bool is a bool


def test_ignore_failures_takes_a_bool():
    with pytest.raises(errors.OptionError) as info:
        kprof.annotate("x", ignore_failures="maybe")
    assert info.value.option == "ignore_failures" and info.value.valid == "True or False"
    assert kprof.annotate("x", ignore_failures=np.bool_(True)).ignore_failures is True


def test_a_metric_named_twice_is_refused():
    with pytest.raises(errors.OptionError) as info:
        kprof.analyze.kernel(metrics=["gpu__time_duration.sum", "gpu__time_duration.sum"])(noop)
    assert info.value.option == "metrics"
    assert "'gpu__time_duration.sum' is named twice" in str(info.value)


def test_what_is_not_a_function_is_a_type_error():
    with pytest.raises(TypeError, match=r"analyze.kernel decorates a function, not int \(42\)"):
        kprof.analyze.kernel()(42)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: kprof.metrics.expand(42), r"kprof.metrics.expand takes a metric name"),
        (lambda: kprof.metrics.expand([1]), r"kprof.metrics.expand takes a metric name"),
        (lambda: kprof.metrics.catalog(42), r"kprof.metrics.catalog takes a chip name"),
    ],
)
def test_the_metrics_functions_name_themselves_in_type_errors(call, message):
    with pytest.raises(TypeError, match=message):
        call()


def test_a_scalar_config_for_a_function_without_parameters():
    with pytest.raises(errors.ConfigError) as info:
        kprof.analyze.kernel(configs=[1])(noop)()
    assert str(info.value) == (
        "Configs have 1 arguments, but function expects 0: noop() takes no parameters"
    )


def test_an_output_prefix_that_cannot_be_a_folder_is_said_at_decoration(tmp_path):
    file = tmp_path / "a-file"
    file.write_text("x")
    with pytest.raises(errors.OptionError) as info:
        kprof.analyze.kernel(output_prefix=f"{file}/sub/", output_csv=True)(noop)
    assert info.value.option == "output_prefix" and "is a file" in str(info.value)
    if Path("/proc/self").exists():  # a folder no one can make a folder in
        with pytest.raises(errors.OptionError, match=r"making '/proc/kprof-nope' failed"):
            kprof.analyze.kernel(output_prefix="/proc/kprof-nope/", output_csv=True)(noop)
    made = tmp_path / "made" / "here"
    kprof.analyze.kernel(output_prefix=f"{made}/run-", output_csv=True)(noop)
    assert made.is_dir()


def test_an_output_prefix_with_a_nul_is_refused_before_it_names_another_file(tmp_path):
    """The system's file calls end a path at its first NUL: "a\0b/" would write under "a"."""
    with pytest.raises(errors.OptionError) as info:
        kprof.analyze.kernel(output_prefix=f"{tmp_path}/a\0b/", output_csv=True)(noop)
    assert info.value.option == "output_prefix" and "NUL" in str(info.value)
    assert list(tmp_path.iterdir()) == []


def test_a_results_file_that_is_not_text_is_a_format_error(tmp_path, capfd):
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"format": "kprof-results", "x": "\xff\xfe"}')
    with pytest.raises(errors.FormatError, match=r"not valid JSON: the text is not UTF-8"):
        kprof.load(bad)
    with pytest.raises(errors.FormatError, match="is a folder, not a file"):
        kprof.load(tmp_path)
    assert "Exception ignored" not in capfd.readouterr().err


def test_the_report_command_says_one_line_for_a_bad_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    for target in (bad, tmp_path):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "kprof.cli",
                "report",
                str(target),
                "--html",
                str(tmp_path / "x.html"),
            ],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 2, done
        assert "Traceback" not in done.stderr
        assert done.stderr.splitlines()[0].startswith("kprof report: cannot read FILE:")
    assert "binary data, not text" in done.stderr or "is a folder" in done.stderr


def run_report(*args):
    return subprocess.run(
        [sys.executable, "-m", "kprof.cli", "report", *map(str, args)],
        capture_output=True,
        text=True,
    )


RECORDING = Path(__file__).resolve().parent.parent / "data" / "h200-python-counters-2026-11-30.json"


def test_report_outputs_that_cannot_be_written_are_one_line(tmp_path):
    done = run_report(RECORDING, "--html", tmp_path)
    assert done.returncode == 1
    assert done.stderr == f"kprof report: {tmp_path} is a folder: give a file name in it\n"
    file = tmp_path / "a-file"
    file.write_text("x")
    done = run_report(RECORDING, "--html", file / "x.html")
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith(f"kprof report: cannot write {file / 'x.html'}:")
    assert ".tmp" not in done.stderr


def test_report_takes_metric_alone():
    done = run_report(RECORDING, "--metric", "dram__bytes_read.sum")
    assert done.returncode == 0, done.stderr
    done = run_report(RECORDING, "--metric", "bogus")
    assert done.returncode == 2
    assert "--metric=bogus is not valid; valid: gpu__time_duration.sum" in done.stderr


def test_a_hostile_annotation_name_stays_text_in_the_html_report(tmp_path):
    from kprof import report

    demo = Path(__file__).resolve().parent.parent / "data" / "h200-python-demo-2026-11-30.json"
    hostile = "<img src=x onerror=alert(1)>"
    path = tmp_path / "hostile.json"
    path.write_text(demo.read_text().replace('"fma"', '"' + hostile + '"'))
    results = kprof.load(path)
    assert hostile in results.to_dataframe()["Annotation"].tolist()
    page = report.results_html(results)
    assert hostile not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def test_loading_results_never_runs_code():
    """No module of the package can turn a file into code: no pickle, marshal or shelve, no
    eval or exec (read from the source)."""
    import ast

    package = Path(kprof.__file__).resolve().parent
    for source in package.glob("*.py"):
        tree = ast.parse(source.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                assert not {"pickle", "marshal", "shelve", "dill"} & set(names), source
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in ("eval", "exec"), source
