"""What limits a kernel: results.analysis() against Nsight Compute on the same kernels (H200).

Five kernels (analysis_ops.py): the seed's fp16 matmul, 256 MiB scale and softmax, a small
grid and a register-limited kernel. Nsight Compute's verdict is read from the message of its
SOLBottleneck rule (`--section SpeedOfLight`), its numbers from the metrics its roofline chart
and occupancy sections plot; kprof measures set:analysis in its default replay mode.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from analysis_ops import NAMES, make_ops
from counter_ops import RUNS
from gpu_reference import HERE, ncu_kernel_metrics, record

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
kprof = pytest.importorskip("kprof")

# The message of each verdict of Nsight Compute's SOLBottleneck rule (sections/SpeedOfLight.py).
NCU_VERDICTS = {
    "grid is too small to fill the available resources": "Small Grid",
    "exhibits low compute throughput and memory bandwidth utilization": "Latency Issue",
    "Compute is more heavily utilized than Memory": "High Compute Throughput",
    "Memory is more heavily utilized than Compute": "High Memory Throughput",
    "Compute and Memory are well-balanced": "Balanced Throughput",
    "utilizing greater than 80.0% of the available compute or memory": "High Throughput",
}
# ncu's roofline: each precision's instructions per cycle times the clock (SpeedOfLight_Roofline
# Chart and its Hierarchical Tensor twin), DRAM bytes per second.
INST = "smsp__sass_thread_inst_executed_op_{}_pred_on.sum.per_cycle_elapsed"
FP32 = {INST.format("fadd"): 1, INST.format("fmul"): 1, INST.format("ffma"): 2}
TENSOR = {
    f"sm__ops_path_tensor_src_{t}.sum.per_cycle_elapsed": 1
    for t in ("fp16", "bf16_dst_fp32", "tf32_dst_fp32")
}
NCU_METRICS = [
    *FP32,
    *TENSOR,
    "smsp__cycles_elapsed.avg.per_second",
    "sm__cycles_elapsed.avg.per_second",
    "dram__bytes.sum.per_second",
    "sm__maximum_warps_per_active_cycle_pct",
    "launch__waves_per_multiprocessor",
    "launch__registers_per_thread",
]
KERNEL_HEADER = re.compile(r"^  \S.*\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\), (Context|Device)")


def ncu_verdicts(names):
    """The SOLBottleneck verdict of every kernel in the kprof ranges `names`, in launch order."""
    cmd = [shutil.which("ncu") or "ncu", "--nvtx", "--section", "SpeedOfLight"]
    cmd += ["--cache-control", "all", "--clock-control", "none"]
    for name in names:
        cmd += ["--nvtx-include", f"kprof@{name}/"]
    cmd += [sys.executable, str(HERE / "analysis_ops.py"), *names]
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    blocks: list[list[str]] = []
    for line in done.stdout.splitlines():
        if KERNEL_HEADER.match(line):
            blocks.append([])
        elif blocks:
            blocks[-1].append(line.strip())
    verdicts = []
    for block in blocks:
        text = " ".join(" ".join(block).split())
        found = [v for phrase, v in NCU_VERDICTS.items() if phrase in text]
        verdicts.append(found[0] if len(found) == 1 else f"unread: {text[:400]}")
    return verdicts


@pytest.fixture(scope="module")
def ops():
    return make_ops(torch)


@pytest.fixture(scope="module")
def ours(ops):
    @kprof.analyze.kernel(metrics=["set:analysis"], runs=RUNS, thermal_mode="off")
    def analysis():
        for name in NAMES:
            with kprof.annotate(name):
                ops[name]()

    for op in ops.values():
        op()
    results = analysis()
    folder = os.environ.get("KPROF_VALIDATION_DIR")
    if folder:
        path = Path(folder) / "recordings" / "h200-analysis-2026-12-03.json"
        results.save(path, overwrite=True)
    print(results.explain())
    return results, results.analysis().set_index("Annotation")


@pytest.fixture(scope="module")
def ncu():
    kernels = ncu_kernel_metrics([str(HERE / "analysis_ops.py"), *NAMES], NAMES, NCU_METRICS)
    assert len(kernels) == RUNS * len(NAMES), kernels
    verdicts = ncu_verdicts(NAMES)
    assert len(verdicts) == RUNS * len(NAMES), verdicts
    out = {}
    for i, name in enumerate(NAMES):
        k = kernels[i * RUNS]
        fp32 = sum(k[m] * f for m, f in FP32.items()) * k["smsp__cycles_elapsed.avg.per_second"]
        tensor = sum(k[m] * f for m, f in TENSOR.items()) * k["sm__cycles_elapsed.avg.per_second"]
        out[name] = {
            "verdict": verdicts[i * RUNS],
            "fp32_tflops": fp32 / 1e12,
            "tensor_tflops": tensor / 1e12,
            "dram_tbs": k["dram__bytes.sum.per_second"] / 1e12,
            "theoretical_occupancy": k["sm__maximum_warps_per_active_cycle_pct"],
            "waves": k["launch__waves_per_multiprocessor"],
            "registers": k["launch__registers_per_thread"],
        }
    return out


def test_the_verdicts_are_nsight_computes(ours, ncu):
    _, a = ours
    figures = {}
    for name in NAMES:
        row = a.loc[name]
        figures[name] = {
            "kprof": {c: row[c] for c in ("Verdict", "Bound", "SMThroughputPct")}
            | {"MemoryThroughputPct": row["MemoryThroughputPct"], "WavesPerSM": row["WavesPerSM"]},
            "ncu": ncu[name],
        }
        print(f"[ RESULT ] {name}: kprof {row['Verdict']} ({row['Bound']}), ncu {ncu[name]}")
    record("analysis_vs_ncu", figures)
    for name in NAMES:
        assert a.loc[name, "Verdict"] == ncu[name]["verdict"], (name, figures[name])
    assert a.loc["small_grid", "Verdict"] == "Small Grid"
    assert a.loc["small_grid", "Bound"] == "latency"
    assert a.loc["matmul16", "Bound"] == "compute"
    assert a.loc["scale", "Bound"] == "memory"


def test_occupancy_and_its_limiter(ours, ncu):
    _, a = ours
    for name in NAMES:
        assert a.loc[name, "TheoreticalOccupancyPct"] == pytest.approx(
            ncu[name]["theoretical_occupancy"], abs=0.01
        ), name
        # ncu prints waves to two decimals.
        assert a.loc[name, "WavesPerSM"] == pytest.approx(ncu[name]["waves"], abs=0.01), name
    assert ncu["registers"]["registers"] >= 64
    assert a.loc["registers", "OccupancyLimiter"] == "registers"
    assert a.loc["registers", "TheoreticalOccupancyPct"] < 80
    assert "Registers limit occupancy" in a.loc["registers", "Advice"]


def test_tensor_roofline_within_five_percent_of_nsight_computes(ours, ncu):
    """The tensor cores' work: the matmul's ops per second and intensity as ncu's tensor
    roofline gives them. FP32 FLOP come from SASS counters ncu instruments for; CUPTI's range
    profiler reads them as 0, so kprof leaves them out (ncu's figures are kept beside)."""
    _, a = ours
    matmul, theirs = a.loc["matmul16"], ncu["matmul16"]
    assert matmul["Precision"] == "tensor"
    assert matmul["TensorTFLOPs"] == pytest.approx(theirs["tensor_tflops"], rel=0.05)
    ncu_intensity = theirs["tensor_tflops"] / theirs["dram_tbs"]
    assert matmul["ArithmeticIntensity"] == pytest.approx(ncu_intensity, rel=0.05)
    assert matmul["AchievedTFLOPs"] <= matmul["RooflineTFLOPs"] * 1.05
    for name in NAMES:
        if name != "matmul16":
            assert ncu[name]["tensor_tflops"] < 1e-3, name
            assert a.loc[name, "TensorTFLOPs"] == 0, name
            assert pd.isna(a.loc[name, "ArithmeticIntensity"]), name


def test_explain_and_the_roofline_from_the_recording(ours, tmp_path):
    results, _ = ours
    text = results.explain()
    for name in NAMES:
        assert name in text
    png = tmp_path / "roofline.png"
    results.plot_roofline(png)  # the matmul's tensor work is its one point
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_range_replay_analyses_without_launch_statistics(ops):
    @kprof.analyze.kernel(metrics=["set:analysis"], runs=1, replay_mode="range", thermal_mode="off")
    def ranged():
        for name in ("matmul16", "scale"):
            with kprof.annotate(name):
                ops[name]()

    a = ranged().analysis().set_index("Annotation")
    # No launch statistics in a range; a range holds the region's gaps too, so its verdict is
    # the region's, which need not be the kernel's.
    assert a["TheoreticalOccupancyPct"].isna().all()
    assert a["OccupancyLimiter"].isna().all()
    assert a["WavesPerSM"].isna().all()
    assert set(a["Bound"]) <= {"compute", "memory", "latency"}
    assert a.loc["matmul16", "Precision"] == "tensor"
