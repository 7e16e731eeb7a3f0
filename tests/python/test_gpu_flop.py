"""set:flop counted in the process on the GPU: CUPTI 13.5 or later and nvdisasm
(``validate_h200.sh flop`` preloads them); skipped with `kprof doctor`'s reason elsewhere.

Each case runs in a fresh process, as a user's script does: the counts need the code of every
counted kernel's module, which kprof keeps from the moment a decorator asking for set:flop is
made, and the earlier tests of this process have loaded torch's modules before that."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from gpu_reference import run_ncu_job
from kprof._native import core

pytestmark = pytest.mark.gpu
pytest.importorskip("torch")

FMUL = "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum"
FADD = "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"
FFMA = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"

SCRIPT = """
import json, sys
import kprof, torch

@kprof.analyze.kernel(metrics=["set:flop"], runs=2, verbosity=kprof.VerbosityLevel.SILENT)
def bench():
    with kprof.annotate("mul"):
        x * y

n = 1 << 24
x = torch.rand(n, device="cuda")  # after the decorator: its module's code is kept
y = torch.rand(n, device="cuda")
x * y  # a warm-up before the profile
df = bench().to_dataframe()
rows = {f"{r.Annotation} {r.Metric}": r.AvgValue for r in df.itertuples()}
print(json.dumps(rows))
"""


def skip_unless_countable() -> None:
    why = core.query_system()["flop_counting"]
    if why:
        pytest.skip(why)


def test_a_torch_multiply_counts_one_fmul_per_element_and_nothing_else():
    skip_unless_countable()
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=80
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = json.loads(done.stdout.strip().splitlines()[-1])
    n = 1 << 24
    print(f"[ RESULT ] set:flop, torch x * y over {n} floats: {rows['mul ' + FMUL]:.0f} FMUL")
    assert n <= rows[f"mul {FMUL}"] <= n * 1.001, rows
    assert rows[f"mul {FADD}"] == rows[f"mul {FFMA}"] == 0, rows


def flop_done(job: dict, name: str, precision: str) -> float:
    """A region's FLOP of one precision: its FLOP per second times its duration."""
    row = next(r for r in job["analysis"] if r["Annotation"] == name)
    return row[f"{precision.upper()}TFLOPs"] * 1e12 * job["durations"][name] * 1e-9


def test_each_precisions_flop_and_roofline_point_as_nsight_compute_gives_them(tmp_path):
    # The scales of test_gpu_ncu.py's Tool.NCU case, counted in the process: one multiply an
    # element, so each precision's FLOP is 2^26 (torch's fp16 multiply runs in fp32, with one
    # half-add-class instruction an element, 2^27 by Nsight Compute's formula), and the roofline's
    # FLOP/s and intensity agree with Nsight Compute's own within 5% (issue: guided analysis).
    skip_unless_countable()
    ours = run_ncu_job("flop", tmp_path, timeout=110)
    rows = {r["Annotation"]: r for r in ours["analysis"]}
    for name, precision, flop in (
        ("scale32", "fp32", 2**26),
        ("scale64", "fp64", 2**26),
        ("scale16", "fp16", 2**27),
    ):
        done = flop_done(ours, name, precision)
        print(f"[ RESULT ] set:flop in the process, {name}: {done:.0f} {precision} FLOP")
        assert done == pytest.approx(flop, rel=0.02)
    assert [rows[n]["Precision"] for n in ("scale32", "scale64", "scale16")] == [
        "fp32",
        "fp64",
        "fp32",
    ]
    record = os.environ.get("KPROF_RECORD_DIR")  # a recording for the GPU-free tests
    if record:
        shutil.copy(tmp_path / "flop-results.json", Path(record) / "h200-flop.json")
    from kprof import ncu

    try:
        ncu.find_ncu()
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"no Nsight Compute to compare with: {e}")
    theirs = {
        r["Annotation"]: r for r in run_ncu_job("ncu-flop", tmp_path, timeout=180)["analysis"]
    }
    for name in ("scale32", "scale64"):
        for column in ("AchievedTFLOPs", "ArithmeticIntensity"):
            print(
                f"[ RESULT ] {name} {column}: kprof {rows[name][column]:.4g}, "
                f"Nsight Compute {theirs[name][column]:.4g}"
            )
            assert rows[name][column] == pytest.approx(theirs[name][column], rel=0.05)
