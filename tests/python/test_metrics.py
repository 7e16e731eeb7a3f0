"""kprof.metrics: the GH100 metric catalog, sets and pass counts, offline (no GPU, no driver).

Pass counts are those the CUPTI probe measured with CUDA 13.0 (cupti-probe/NOTES.md).
"""

from __future__ import annotations

import os
import subprocess
import sys

import kprof
import pytest
from kprof import errors, metrics
from kprof._native import core


def _built_with_cuda() -> bool:
    return bool(core.query_system()["built_with_cuda"])


needs_cupti = pytest.mark.skipif(not _built_with_cuda(), reason="kprof built without CUDA")


@pytest.fixture(scope="module")
def gh100() -> metrics.Catalog:
    if not _built_with_cuda():
        pytest.skip("kprof built without CUDA")
    return metrics.catalog("GH100")


def test_metrics_is_exported():
    assert "metrics" in kprof.__all__
    assert kprof.metrics is metrics


@needs_cupti
def test_supported_chips_include_gh100():
    chips = metrics.supported_chips()
    assert "GH100" in chips
    assert len(chips) >= 20


def test_catalog_names_and_membership(gh100):
    assert gh100.chip == "GH100"
    assert metrics.catalog("gh100").chip == "GH100"
    assert len(gh100) > 100_000
    assert "dram__bytes_read.sum" in gh100
    assert "TriageCompute.sm__throughput.avg.pct_of_peak_sustained_elapsed" in gh100
    assert "dram__bytes_read" not in gh100  # a base metric needs a suffix
    assert gh100.is_base("dram__bytes_read")
    assert "sm__throughput" in gh100.base_names()
    assert "GH100" in repr(gh100)


def test_search_finds_dram_bytes_read(gh100):
    found = gh100.search("dram__bytes")
    assert "dram__bytes_read.sum" in found
    assert found == sorted(found)
    assert all("dram__bytes" in name for name in found)
    assert gh100.search_base("dram__bytes") == [
        "dram__bytes",
        "dram__bytes_read",
        "dram__bytes_write",
    ]
    assert "dram__bytes_read.sum.per_second" in gh100.search("dram__bytes_read.sum*")
    assert gh100.search("no_such_metric_anywhere") == []


def test_describe_gives_type_unit_and_passes(gh100):
    read = gh100.describe("dram__bytes_read.sum")
    assert (read.type, read.unit, read.hw_unit, read.passes) == ("counter", "byte", "dram", 1)
    assert (read.base, read.suffix) == ("dram__bytes_read", ".sum")
    assert "bytes read from DRAM" in read.description
    assert gh100.describe("gpu__time_duration.sum").unit == "nanosecond"
    sm = gh100.describe("sm__throughput.avg.pct_of_peak_sustained_elapsed")
    assert (sm.type, sm.unit, sm.passes) == ("throughput", "percent", 8)
    base = gh100.describe("dram__bytes_read")
    assert base.passes is None
    assert ".sum.per_second" in base.suffixes
    assert gh100.describe("lts__t_sector_hit_rate.ratio").unit == ""
    brief = gh100.describe("dram__bytes_read.sum.per_second", passes=False)
    assert (brief.unit, brief.passes) == ("byte/second", None)


def test_pass_counts(gh100):
    assert (
        gh100.passes(["gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum"])
        == 1
    )
    assert gh100.passes("sm__throughput.avg.pct_of_peak_sustained_elapsed") == 8
    assert gh100.passes(["TriageCompute.sm__throughput.avg.pct_of_peak_sustained_elapsed"]) == 2


def test_unknown_metric_names_the_closest(gh100):
    with pytest.raises(errors.OptionError) as info:
        gh100.describe("dram__bytes_red.sum")
    assert info.value.option == "metric"
    assert "closest: 'dram__bytes_read.sum'" in info.value.valid
    assert isinstance(info.value, ValueError)
    with pytest.raises(errors.OptionError):
        gh100.passes(["bogus__metric.sum"])
    assert gh100.closest("DRAM__BYTES_READ.SUM", 1) == ["dram__bytes_read.sum"]
    assert gh100.closest("foo") == []


@needs_cupti
def test_unknown_chip_lists_the_supported_ones():
    with pytest.raises(errors.OptionError) as info:
        metrics.catalog("GX999")
    assert info.value.option == "chip"
    assert "'GH100'" in info.value.valid


def test_sets_and_their_gh100_pass_counts(gh100):
    by_name = {s.name: s for s in metrics.sets()}
    names = ["speed-of-light", "memory", "compute", "occupancy", "launch", "analysis", "flop"]
    names.append("source")
    assert list(by_name) == names
    expected = {"speed-of-light": 9, "memory": 2, "compute": 3, "occupancy": 1, "launch": 1}
    expected["analysis"] = 13
    # The range profiler's pass of its duration and peaks; its counts take a call of their own.
    expected["flop"] = 1
    # The duration's pass; the warp samples take a call of their own.
    expected["source"] = 1
    for name, passes in expected.items():
        s = by_name[name]
        assert s.ref == "set:" + name
        assert len(s.question) > 40
        for m in s.metrics:
            assert m in gh100, (name, m)
        assert gh100.passes(s.ref) == passes, name
        print(f"set:{name}: {len(s.metrics)} metrics, {gh100.passes(s.ref)} passes on GH100")


def test_expand():
    out = metrics.expand(["dram__bytes_read.sum", "set:memory"])
    assert out[0] == "dram__bytes_read.sum"
    assert out.count("dram__bytes_read.sum") == 1
    assert "lts__t_sector_hit_rate.pct" in out
    with pytest.raises(errors.OptionError) as info:
        metrics.expand("set:nope")
    assert "'set:memory'" in info.value.valid


def test_catalog_of_the_current_gpu():
    if metrics.current_chip() is not None:
        assert metrics.catalog().chip == metrics.current_chip()
        return
    with pytest.raises(errors.NoGpuError, match=r"catalog\('GH100'\)"):
        metrics.catalog()


def test_analyze_kernel_checks_sets_before_any_gpu_work():
    # A set kprof does not know may be one of Nsight Compute's (set:full, for Tool.NCU): the
    # call says so, before any GPU work, as for an unknown metric name.
    bench = kprof.analyze.kernel(configs=[1], metrics=["set:memroy"])(lambda n: None)
    with pytest.raises(errors.OptionError) as info:
        bench()
    assert "'set:memory'" in info.value.valid
    assert "Tool.NCU" in info.value.valid
    kprof.analyze.kernel(metrics=["set:memory"])  # a set is accepted where a name is
    if metrics.current_chip() is not None:  # with a GPU the names are checked
        with pytest.raises(errors.OptionError, match="dram__bytes_read.sum"):
            kprof.analyze.kernel(metrics=["dram__bytes_red.sum"])


def test_a_set_stands_for_its_members_in_derive_metric():
    members = metrics.expand(["set:occupancy"])  # 4 metrics
    assert len(members) == 4

    def target():
        pass

    def four(duration, active, per_cycle, peak):
        return active / peak

    def one(value):
        return value

    kprof.analyze.kernel(metrics=["set:occupancy"], derive_metric=four)(target)
    with pytest.raises(errors.OptionError) as info:
        kprof.analyze.kernel(metrics=["set:occupancy"], derive_metric=one)(target)
    assert "4 metric values" in str(info.value)
    assert members[1] in str(info.value)


@needs_cupti
def test_command_line_works_offline():
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "kprof.cli",
            "metrics",
            "--chip",
            "GH100",
            "--search",
            "dram__bytes",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
    )
    assert result.returncode == 0, result.stderr
    assert "dram__bytes_read   counter  byte" in result.stdout
    result = subprocess.run(
        [sys.executable, "-m", "kprof.cli", "metrics", "--chip", "GH100", "--passes", "nope.sum"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert "metric='nope.sum' is not valid" in result.stderr


@needs_cupti
def test_catalog_works_without_the_loader_cache():
    """libcupti dlopen()s libnvperf_host.so by bare name; kprof loads it from libcupti's own
    directory first, so the catalog works where ldconfig does not list the toolkit. Emulated
    with the dynamic loader's --inhibit-cache (and no LD_LIBRARY_PATH)."""
    loader = next(
        (
            p
            for p in ("/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1")
            if os.path.exists(p)
        ),
        None,
    )
    if loader is None:
        pytest.skip("no known glibc dynamic loader")
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    result = subprocess.run(
        [loader, "--inhibit-cache", sys.executable, "-m", "kprof.cli", "metrics", "--chip", "GH100"]
        + ["--passes", "sm__throughput.avg.pct_of_peak_sustained_elapsed"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    if "error while loading shared libraries" in result.stderr and "kprof" not in result.stderr:
        pytest.skip(f"the interpreter itself needs the loader cache: {result.stderr.strip()}")
    assert result.returncode == 0, result.stderr
    assert "GH100: 8 passes for this metric" in result.stdout


# --- launch statistics --------------------------------------------------------------------


@needs_cupti
def test_launch_statistics_stand_beside_counters_at_no_pass(gh100):
    """nsight-python's own example asks for launch__sm_count beside two counters."""
    counters = [
        "smsp__sass_inst_executed_op_shared_ld.sum",
        "smsp__sass_inst_executed_op_shared_st.sum",
    ]
    assert gh100.passes([*counters, "launch__sm_count"]) == gh100.passes(counters)
    info = gh100.describe("launch__waves_per_multiprocessor")
    assert info.passes == 0 and info.hw_unit == "launch"
    assert "launch__occupancy_limit_registers" in gh100.search("launch__")
    assert gh100.passes("set:launch") == 1  # the set's duration


def test_the_launch_set_holds_nsight_computes_launch_and_occupancy_names():
    members = metrics.expand(["set:launch"])
    assert members[0] == "gpu__time_duration.sum"
    for name in (
        "launch__grid_size",
        "launch__block_size",
        "launch__registers_per_thread",
        "launch__waves_per_multiprocessor",
        "sm__maximum_warps_per_active_cycle_pct",
    ):
        assert name in members
    assert "launch" in [s.name for s in metrics.sets()]


def test_range_replay_refuses_launch_statistics_before_any_gpu_work():
    with pytest.raises(errors.OptionError) as info:
        kprof.analyze.kernel(replay_mode="range", metrics=["launch__grid_size"])
    assert "replay_mode='range'" in str(info.value)
    assert info.value.option == "metrics"


def test_sass_instruction_counters_are_refused_rather_than_printed_as_zero():
    # CUPTI's range profiler lists them and reads 0: the call says so, before any GPU work.
    # (set:flop's classes are counted in the process where CUPTI 13.5 and nvdisasm are found.)
    name = "smsp__sass_thread_inst_executed_op_integer_pred_on.sum"
    bench = kprof.analyze.kernel(configs=[1], metrics=[name])(lambda n: None)
    with pytest.raises(errors.OptionError, match=name) as info:
        bench()
    assert "instrumenting" in info.value.valid and "Tool.NCU" in info.value.valid


def test_the_flop_set_is_refused_where_this_process_cannot_count_it():
    # Before any GPU work, with the reason `kprof doctor` gives (CUPTI before 13.5, no nvdisasm).
    why = core.query_system()["flop_counting"]
    if not why:
        pytest.skip("this process counts set:flop: CUPTI 13.5 or later and nvdisasm are here")
    bench = kprof.analyze.kernel(configs=[1], metrics=["set:flop"])(lambda n: None)
    with pytest.raises(errors.OptionError, match="smsp__sass_thread_inst_executed_op_") as info:
        bench()
    assert info.value.valid == why
    assert "13.5" in why or "nvdisasm" in why or "without CUDA" in why
