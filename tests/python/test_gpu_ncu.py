"""Tool.NCU on the GPU: the same kernels measured by kprof's engine and by Nsight Compute (the
script run again under ncu) give durations within 3% and the same kernel names, and the report
kprof leaves opens with Nsight Compute's own ncu_report module (the seed tutorial's last step)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from gpu_reference import run_ncu_job
from kprof.errors import OptionError

pytestmark = pytest.mark.gpu
pytest.importorskip("torch")


def test_nsight_compute_and_kprofs_engine_agree(tmp_path):
    from kprof import ncu

    try:
        ncu.find_ncu()
    except Exception as e:  # noqa: BLE001
        pytest.skip(str(e))
    cupti, nsight = run_ncu_job("cupti", tmp_path), run_ncu_job("ncu", tmp_path)
    assert nsight["backend"] == "nsight-compute"
    assert nsight["kernels"] == cupti["kernels"]
    for ours, theirs in zip(cupti["values"], nsight["values"], strict=True):
        print(f"[ RESULT ] scale: kprof {ours:.0f} ns, Nsight Compute {theirs:.0f} ns")
        assert ours == pytest.approx(theirs, rel=0.03)
    report = Path(nsight["report"])
    assert report.name == "ncu-ncu-output-scale-0.ncu-rep"
    assert report.with_suffix(".log").exists()
    assert open_report(report)["actions"] == 2 * 5  # two configs of five runs, a kernel each


# The seed tutorial's last step, in a clean process: Nsight Compute 2025.3.1's ncu_report
# crashed in a process that had torch and pandas loaded (kprof reads its reports the same way).
OPEN_REPORT = """
import json, sys
sys.path.insert(0, sys.argv[1])
import ncu_report
context = ncu_report.load_report(sys.argv[2])
actions = [context.range_by_idx(r).action_by_idx(a) for r in range(context.num_ranges())
           for a in range(context.range_by_idx(r).num_actions())]
print(json.dumps({"actions": len(actions), "metrics": list(actions[0].metric_names())}))
"""


def open_report(report: Path) -> dict:
    """How many kernels the report holds and the metric names of the first, as ncu_report
    reads them."""
    from kprof import ncu

    folder = ncu.report_module_folder(ncu.find_ncu())
    done = subprocess.run(
        [sys.executable, "-c", OPEN_REPORT, folder, str(report)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_nsight_computes_sets_and_sections_go_to_its_report(tmp_path):
    from kprof import ncu

    try:
        ncu_path = ncu.find_ncu()
    except Exception as e:  # noqa: BLE001
        pytest.skip(str(e))
    for flag in ("--list-sets", "--list-sections"):  # what this ncu offers, for the record
        listing = subprocess.run([ncu_path, flag], capture_output=True, text=True).stdout
        print(f"[ RESULT ] ncu {flag}: {ncu.listed(listing)}")
        out = os.environ.get("OUT")
        if out:
            Path(out, f"ncu{flag[6:]}.txt").write_text(listing)
    job = run_ncu_job("ncu-sections", tmp_path)
    assert job["metrics"] == ["gpu__time_duration.sum"]  # the DataFrame: what metrics named
    names = set(open_report(Path(job["report"]))["metrics"])
    print(f"[ RESULT ] ncu set:basic + section:MemoryWorkloadAnalysis: {len(names)} metrics")
    assert "sm__throughput.avg.pct_of_peak_sustained_elapsed" in names  # SpeedOfLight (basic)
    assert any(n.startswith("lts__t_sector_hit_rate") for n in names)  # MemoryWorkloadAnalysis
    # A name this ncu does not list is refused before anything runs.
    with pytest.raises(OptionError, match="'set:fulll'") as info:
        ncu.check_selections(ncu_path, ["set:fulll"])
    assert "full" in info.value.valid


def test_nsight_computes_sass_counts_give_each_precision_its_flop_and_roof(tmp_path):
    # set:flop through Tool.NCU (Nsight Compute instruments the code): a scale of 2^26 floats,
    # then of 2^26 doubles, does one multiply an element, so each precision's FLOP per second
    # times the duration is 2^26, and the point of each region is its own precision.
    from kprof import ncu

    try:
        ncu.find_ncu()
    except Exception as e:  # noqa: BLE001
        pytest.skip(str(e))
    job = run_ncu_job("ncu-flop", tmp_path)
    rows = {r["Annotation"]: r for r in job["analysis"]}

    def flop(name: str, precision: str) -> float:
        r = rows[name]
        done = r[f"{precision.upper()}TFLOPs"] * 1e12 * job["durations"][name] * 1e-9
        print(
            f"[ RESULT ] {name}: {r[f'{precision.upper()}TFLOPs']:.4f} TFLOP/s of {precision} "
            f"(peak {r[f'{precision.upper()}PeakTFLOPs']:.2f}), {r['ArithmeticIntensity']:.4f} "
            f"FLOP/B, point {r['Precision']}, {done:.0f} {precision} FLOP (2^26 = {2**26})"
        )
        return done

    for name, precision in (("scale32", "fp32"), ("scale64", "fp64")):
        assert flop(name, precision) == pytest.approx(2**26, rel=0.02)
        assert rows[name]["Precision"] == precision
        assert rows[name]["AchievedTFLOPs"] == pytest.approx(
            rows[name][f"{precision.upper()}TFLOPs"]
        )
    # torch multiplies halves in fp32: 2^27 "FP16 FLOP" by Nsight Compute's half-precision
    # formula (one HADD2-class instruction an element, likely the conversion, counted twice),
    # and the point is the fp32 work's, as close to its peak (H200, 2026-12-04).
    assert flop("scale16", "fp16") == pytest.approx(2**27, rel=0.02)
    assert flop("scale16", "fp32") > 0
    assert rows["scale16"]["Precision"] == "fp32"
    # fp32's FMA peak is above fp64's on every GPU (twice it on the H200: 128 and 64 FMA a
    # cycle per SM; 66.7 and 33.4 TFLOP/s there).
    peak32, peak64 = rows["scale32"]["FP32PeakTFLOPs"], rows["scale64"]["FP64PeakTFLOPs"]
    assert peak32 > peak64 > 0
    record = os.environ.get("KPROF_RECORD_DIR")  # a recording for the GPU-free tests
    if record:
        shutil.copy(tmp_path / "ncu-flop-results.json", Path(record) / "h200-ncu-flop.json")
