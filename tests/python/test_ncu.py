"""Tool.NCU without a GPU: activation, the ncu command line, the child that ncu runs (it
makes the measured call's runs and ends; other calls get empty results), and kernels of a report
turned into records and the core's DataFrame. Measuring with Nsight Compute on a GPU:
test_gpu_ncu.py."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap

import kprof
import pytest
from kprof import _core, ncu
from kprof.configs import FunctionParams, bind
from kprof.errors import MeasurementError, ToolUnavailableError, UnsupportedError


@pytest.fixture
def no_tool():
    kprof.deactivate()
    yield
    kprof.deactivate()


@pytest.fixture
def fake_ncu_path(tmp_path, monkeypatch):
    """An executable named by KPROF_NCU: activation checks only that ncu can be run."""
    path = tmp_path / "ncu"
    path.write_text("#!/bin/sh\nexit 3\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("KPROF_NCU", str(path))
    return str(path)


def test_activating_ncu_needs_its_command_line_and_deactivating_clears_it(
    no_tool, fake_ncu_path, monkeypatch
):
    kprof.activate(kprof.Tool.NCU)
    assert kprof.get_active_tool() is kprof.Tool.NCU
    with pytest.raises(kprof.errors.ToolError, match="cannot switch"):
        kprof.activate(kprof.Tool.CUPTI)
    kprof.deactivate()  # nothing of Nsight Compute stays in this process
    assert kprof.get_active_tool() is None
    monkeypatch.setenv("KPROF_NCU", "/nonexistent/ncu")
    with pytest.raises(ToolUnavailableError, match="KPROF_NCU='/nonexistent/ncu'"):
        kprof.activate(kprof.Tool.NCU)


def test_the_command_names_nsight_pythons_files_and_the_calls_options():
    o = _core.Options()
    o.metrics = ["gpu__time_duration.sum", "dram__bytes_read.sum"]
    o.cache_control = "none"
    report, log = ncu.report_paths("/tmp/out/", "bench-2")
    assert (report, log) == (
        "/tmp/out/ncu-output-bench-2.ncu-rep",
        "/tmp/out/ncu-output-bench-2.log",
    )
    cmd = ncu.ncu_command("/opt/ncu", report, log, o, ["script.py", "--n", "4"])
    assert cmd[:3] == ["/opt/ncu", "--log-file", log]
    assert cmd[cmd.index("--cache-control") + 1] == "none"
    assert cmd[cmd.index("--clock-control") + 1] == "none"
    assert cmd[cmd.index("--replay-mode") + 1] == "kernel"  # kprof's "auto"
    assert cmd[cmd.index("--nvtx-include") + 1] == "regex:kprof@.+/"
    assert cmd[cmd.index("--metrics") + 1] == "gpu__time_duration.sum,dram__bytes_read.sum"
    assert cmd[cmd.index("-o") + 1] == report
    assert cmd[-4:] == [sys.executable, "script.py", "--n", "4"]


def kernel(annotation: str, name: str, ns: float) -> ncu.Kernel:
    return ncu.Kernel(annotation, name, {"gpu__time_duration.sum": (ns, "nsecond")})


def test_kernels_take_their_config_and_run_by_launch_order():
    # 2 configs x 2 runs; "gemm" launched two kernels a run, "scale" one.
    ks = []
    for slot in range(4):
        ks.append(kernel("scale", "scale_k", 100 + slot))
        ks += [kernel("gemm", "gemm_a", 200 + slot), kernel("gemm", "gemm_b", 300 + slot)]
    cols = ncu.assign(ks, configs=2, runs=2)
    keys = ("annotation", "config", "run", "kernel_index")
    rows = list(zip(*(cols[k] for k in keys), strict=True))
    assert rows[:4] == [
        ("scale", 0, 0, 0),
        ("scale", 0, 1, 0),
        ("scale", 1, 0, 0),
        ("scale", 1, 1, 0),
    ]
    assert rows[4:8] == [("gemm", 0, 0, 0), ("gemm", 0, 0, 1), ("gemm", 0, 1, 0), ("gemm", 0, 1, 1)]
    assert set(cols["unit"]) == {"ns"}
    with pytest.raises(MeasurementError, match="5 kernels in annotation 'scale'"):
        ncu.assign(ks[:1] * 5, configs=2, runs=2)


def test_the_records_make_the_engines_dataframe():
    ks = [kernel("scale", "scale_k", v) for v in (100, 102, 104, 200, 202, 204)]
    o = _core.Options()
    o.runs = 3
    session = {"gpu": "NVIDIA H200", "backend": "nsight-compute", "runs": 3}
    core = _core._aggregate(session, ["n"], [[1], [2]], ncu.assign(ks, 2, 3), o)
    df = kprof.ProfileResults(core).to_dataframe()
    assert list(df["AvgValue"]) == [102.0, 202.0]
    assert list(df["Unit"]) == ["ns", "ns"] and set(df["Backend"]) == {"nsight-compute"}


def test_a_stopping_rule_or_devices_need_kprofs_engine(no_tool, fake_ncu_path):
    def bench(n):
        pass

    bench.__module__ = __name__
    kprof.activate(kprof.Tool.NCU)
    with pytest.raises(UnsupportedError, match="runs='auto'"):
        kprof.analyze.kernel(configs=[1], runs="auto")(bench)()
    with pytest.raises(UnsupportedError, match="warm-up calls would be measured too"):
        kprof.analyze.kernel(configs=[1], warmup=1)(bench)()


CHILD = textwrap.dedent(
    """
    import kprof

    calls = []

    @kprof.analyze.kernel(configs=[1, 2], runs=3)
    def first(n):
        calls.append(("first", n))

    @kprof.analyze.kernel(configs=[10], runs=2)
    def second(n):
        calls.append(("second", n))
        print("second", n, flush=True)

    r = first()
    print("first gave", len(r), "rows; calls", calls, flush=True)
    second()
    print("never printed: the child ends after the measured call")
    """
)


def test_the_child_makes_the_measured_calls_runs_and_ends(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(CHILD)
    params = FunctionParams.of(lambda n: None)
    key = ncu.call_key("second", 0, bind(params, call_configs=[10]))
    env = dict(os.environ, **{ncu.CHILD_VARIABLE: key})
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [env.get("PYTHONPATH"), *sys.path]))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "first gave 0 rows; calls []",  # another call: empty results, the function not run
        "second 10",
        "second 10",
    ]


def test_a_script_started_as_a_module_starts_again_as_one(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "bench.py").write_text(
        "import sys\nfrom kprof import ncu\nprint(ncu.script_argv())\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(tmp_path), *filter(None, [env.get("PYTHONPATH")]), *sys.path]
    )
    as_module = subprocess.run(
        [sys.executable, "-m", "pkg.bench", "--n", "4"], capture_output=True, text=True, env=env
    )
    assert as_module.stdout.strip() == "['-m', 'pkg.bench', '--n', '4']", as_module.stderr
    as_path = subprocess.run(
        [sys.executable, str(package / "bench.py"), "x"], capture_output=True, text=True, env=env
    )
    assert as_path.stdout.strip() == str([str(package / "bench.py"), "x"]), as_path.stderr
