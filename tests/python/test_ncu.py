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
from pathlib import Path

import kprof
import pytest
from kprof import _core, ncu
from kprof.configs import FunctionParams, bind
from kprof.errors import MeasurementError, ToolUnavailableError, UnsupportedError


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


def test_every_replay_mode_has_ncus_name_for_it():
    # The core's table of modes is the one list: a new mode reaches ncu without a KeyError.
    for mode, traits in _core.REPLAY_MODES.items():
        o = _core.Options(replay_mode=mode)
        cmd = ncu.ncu_command("/opt/ncu", "r.ncu-rep", "r.log", o, ["s.py"])
        assert cmd[cmd.index("--replay-mode") + 1] == traits["ncu_name"]
    assert _core.REPLAY_MODES["range"]["ncu_name"] == "range"
    assert _core.REPLAY_MODES["range"]["whole_region"] is True
    with pytest.raises(kprof.errors.OptionError, match="replay_mode"):
        _core.Options(replay_mode="sampling")


def test_nsight_computes_sets_and_sections_are_its_options_and_the_tables_keep_the_duration():
    o = _core.Options(metrics=["set:full", "section:Occupancy", "set:memory"])
    assert _core.ncu_selections(o.metrics) == [("set", "full"), ("section", "Occupancy")]
    # The tables hold kprof's own sets' members; Nsight Compute's go to its report.
    assert o.measured_metrics == _core.metric_expand(["set:memory"])
    assert _core.Options(metrics=["set:full"]).measured_metrics == ["gpu__time_duration.sum"]
    selections = ["--set", "full", "--section", "Occupancy"]
    cmd = ncu.ncu_command("/opt/ncu", "r.ncu-rep", "r.log", o, ["s.py"], selections)
    assert cmd[1:5] == selections
    # ncu takes one set: two are refused before ncu runs.
    with pytest.raises(kprof.errors.OptionError, match="'set:full', 'set:basic'"):
        ncu.check_selections("/nonexistent/ncu", ["set:full", "set:basic"])
    assert ncu.check_selections("/nonexistent/ncu", ["set:memory"]) == []  # kprof's own


DATA = Path(__file__).resolve().parents[1] / "data"


def test_the_sets_and_sections_of_ncus_listings_are_read_from_their_first_column():
    # ncu 2025.3.1's own listings on the H200: long rows go on in lines whose first column is
    # blank (the full set's 21 sections take seven lines).
    sets = ncu.listed((DATA / "ncu-2025.3.1-list-sets.txt").read_text())
    assert sets == ["basic", "detailed", "full", "nvlink", "pmsampling", "roofline"]
    sections = ncu.listed((DATA / "ncu-2025.3.1-list-sections.txt").read_text())
    assert len(sections) == 24
    assert {"SpeedOfLight", "Occupancy", "MemoryWorkloadAnalysis_Tables"} <= set(sections)
    assert ncu.listed("no table here") == []


def test_kernel_names_from_nsight_compute_are_demangled_as_kprofs_engine_does():
    # ncu's own demangler writes "kernel<(int)4>"; the core's gives CUPTI's "kernel<4>".
    assert _core.demangle("_Z6kernelILi4EEvPf") == "void kernel<4>(float*)"
    assert _core.demangle("_Z5scalePKfPfm") == "scale(float const*, float*, unsigned long)"
    assert _core.demangle("triton_poi_fused_0") == "triton_poi_fused_0"  # not a C++ name


def test_kprofs_engine_refuses_nsight_computes_sections_naming_the_tool_that_measures_them(
    no_tool,
):
    for name in ("section:SpeedOfLight", "set:full"):
        bench = kprof.analyze.kernel(configs=[1], metrics=[name])(lambda n: None)
        with pytest.raises(kprof.errors.OptionError, match=name) as info:
            bench()  # before any GPU work: no NoGpuError on a machine without one
        assert "kprof.activate(kprof.Tool.NCU)" in info.value.valid
        # The advice can be followed: the refused call made no tool the process's.
        assert kprof.get_active_tool() is None


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
    # Nsight Compute's set: its report holds it, the table the duration, derived too.
    o = _core.Options(metrics=["set:full"], runs=3)
    o = o.for_call(lambda values, config: (values[0] / 1000, "us"), None)
    records = ncu.assign(ks, 2, 3)
    core = _core._aggregate(session, ["n"], [[1], [2]], records, ncu.options_for_records(o))
    df = kprof.ProfileResults(core).to_dataframe()
    derived = df[df["Metric"] != "gpu__time_duration.sum"]
    assert list(derived["AvgValue"]) == pytest.approx([0.102, 0.202])
    assert o.metrics == ["set:full"]  # the call's options are left as they were
    # The session says the report holds the set.
    assert ncu._session(o, ks, 3)["metrics"] == ["gpu__time_duration.sum", "set:full"]


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


# A stand-in for Nsight Compute's ncu_report with its interface (load_report, ranges, actions,
# NVTX state, metrics), holding three kernels: two in kprof annotations, one outside them.
FAKE_NCU_REPORT = textwrap.dedent(
    """
    print("ncu_report prints on import")  # must not mix with the reader's output

    class _Metric:
        def __init__(self, value, unit):
            self._v, self._u = value, unit
        def as_double(self):
            return float(self._v)
        def unit(self):
            return self._u
        def value(self):
            return self._v

    class _Domain:
        def __init__(self, name, ranges):
            self._n, self._r = name, ranges
        def name(self):
            return self._n
        def push_pop_ranges(self):
            return self._r

    class _Nvtx:
        def __init__(self, domains):
            self._d = domains
        def domains(self):
            return list(range(len(self._d)))
        def domain_by_id(self, i):
            return self._d[i]

    class IAction:
        NameBase_MANGLED = "mangled"

    class _Action:
        def __init__(self, name, ranges, ns):
            self._name, self._ranges, self._ns = name, ranges, ns
        def nvtx_state(self):
            return _Nvtx([_Domain("other", ["x"]), _Domain("kprof", self._ranges)])
        def metric_by_name(self, m):
            if m == "gpu__time_duration.sum":
                return _Metric(self._ns, "nsecond")
            if m == "device__attribute_display_name":
                return _Metric("NVIDIA H200", "")
            return None
        def name(self, base=None):
            return self._name if base == "mangled" else "demangled-by-ncu"

    class _Range:
        def __init__(self, actions):
            self._a = actions
        def num_actions(self):
            return len(self._a)
        def action_by_idx(self, i):
            return self._a[i]

    class _Context:
        def num_ranges(self):
            return 1
        def range_by_idx(self, i):
            return _Range([_Action("_Z5scalePfm", ["outer", "scale"], 1200),
                           _Action("setup_kernel", [], 50),
                           _Action("_Z5scalePfm", ["outer", "scale"], 1300)])

    def load_report(path):
        assert path.endswith(".ncu-rep")
        return _Context()
    """
)


def test_the_report_reader_keeps_kprofs_kernels_in_order_with_their_values(tmp_path):
    (tmp_path / "ncu_report.py").write_text(FAKE_NCU_REPORT)
    kernels = ncu.read_report_from(str(tmp_path), "r.ncu-rep", ["gpu__time_duration.sum"])
    assert [(k.annotation, k.name) for k in kernels] == [
        ("outer/scale", "scale(float*, unsigned long)"),  # the core's demangling, not ncu's
        ("outer/scale", "scale(float*, unsigned long)"),
    ]
    assert [k.values["gpu__time_duration.sum"][0] for k in kernels] == [1200.0, 1300.0]
    assert kernels[0].facts["gpu"] == "NVIDIA H200"
    with pytest.raises(kprof.errors.ToolError, match="no metric 'dram__bytes_read.sum'"):
        ncu.read_report_from(str(tmp_path), "r.ncu-rep", ["dram__bytes_read.sum"])


def test_the_report_module_is_found_where_the_toolkits_ncu_script_looks(tmp_path, monkeypatch):
    toolkit = tmp_path / "cuda"
    (toolkit / "bin").mkdir(parents=True)
    script = toolkit / "bin" / "ncu"
    script.write_text("#!/bin/sh\n")
    for version in ("2024.10.2", "2025.3.1", "2025.1.0"):
        extras = toolkit / f"nsight-compute-{version}" / "extras" / "python"
        extras.mkdir(parents=True)
        (extras / "ncu_report.py").write_text("")
    monkeypatch.setattr(sys, "path", [p for p in sys.path if "extras" not in p])
    found = ncu.report_module_folder(str(script))
    assert found.endswith(os.path.join("nsight-compute-2025.3.1", "extras", "python"))


def test_a_listing_kprof_cannot_read_is_the_tools_fault_not_the_users():
    table = (DATA / "ncu-2025.3.1-list-sets.txt").read_text()
    # A warning after the table ends it; without its header there is no table.
    assert ncu.listed(table + "==WARNING== something\n")[-1] == "roofline"
    assert ncu.listed(table.replace("Identifier", "Name")) == []
    with pytest.raises(kprof.errors.ToolError, match="listed no sets"):
        ncu._listing("/bin/true", "set")
