"""Copies and memsets in a region (H200): measured from CUPTI's memcpy and memset records, their
kind and bytes in records_dataframe(), durations against torch.profiler's on the same copies
(in a child process: torch.profiler keeps CUPTI until its process ends), left out of the values
of a region that also launched a kernel, and drawn in the trace."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys

import pytest
from gpu_reference import record

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
kprof = pytest.importorskip("kprof")
cupy = pytest.importorskip("cupy")  # cudaMemsetAsync

N = 2**26  # 256 MiB of floats: larger than the L2, so the cache state before it hardly matters
RUNS = 10

# The child: the same copies under torch.profiler, their GPU durations (us) from its trace.
CHILD = """
import json, sys, tempfile, torch
n, runs = int(sys.argv[1]), int(sys.argv[2])
x = torch.rand(n, device="cuda"); y = torch.empty_like(x)
host = torch.empty(n // 16, pin_memory=True); dev = torch.empty(n // 16, device="cuda")
for _ in range(3):
    y.copy_(x); dev.copy_(host, non_blocking=True)
torch.cuda.synchronize()
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
    for _ in range(runs):
        y.copy_(x)
        dev.copy_(host, non_blocking=True)
    torch.cuda.synchronize()
path = tempfile.mktemp(suffix=".json")
prof.export_chrome_trace(path)
events = json.load(open(path))["traceEvents"]
copies = [e for e in events if e.get("cat") == "gpu_memcpy"]
out = {"DtoD": [e["dur"] for e in copies if "DtoD" in e["name"]],
       "HtoD": [e["dur"] for e in copies if "HtoD" in e["name"]]}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def tensors():
    x = torch.rand(N, device="cuda")
    host = torch.empty(N // 16, pin_memory=True)
    return {
        "x": x,
        "y": torch.empty_like(x),
        "host": host,
        "dev": torch.empty(N // 16, device="cuda"),
    }


def profile(tensors, **options):
    t = tensors

    @kprof.analyze.kernel(runs=RUNS, thermal_mode="off", **options)
    def copies():
        with kprof.annotate("DtoD"):
            t["y"].copy_(t["x"])
        with kprof.annotate("HtoD"):
            t["dev"].copy_(t["host"], non_blocking=True)
        with kprof.annotate("memset"):
            stream = torch.cuda.current_stream().cuda_stream
            cupy.cuda.runtime.memsetAsync(t["y"].data_ptr(), 0, 4 * N, stream)
        with kprof.annotate("scale and copy"):
            torch.mul(t["x"], 2.0, out=t["y"])
            t["y"].copy_(t["x"])

    return copies()


@pytest.fixture(scope="module")
def results(tensors):
    return profile(tensors)


def test_copies_are_measured_with_kind_bytes_and_durations_torch_profiler_gives(results):
    rec = results.records_dataframe()
    dtod = rec[rec["Annotation"] == "DtoD"]
    assert set(dtod["Kind"]) == {"memcpy DtoD"}
    assert set(dtod["Bytes"]) == {4 * N}
    memset = rec[rec["Annotation"] == "memset"]
    assert set(memset["Kind"]) == {"memset"}
    assert set(memset["Bytes"]) == {4 * N}
    htod = rec[rec["Annotation"] == "HtoD"]
    assert set(htod["Kind"]) == {"memcpy HtoD"}
    assert set(htod["Bytes"]) == {4 * N // 16}
    df = results.to_dataframe().set_index("Annotation")
    ours = {name: df.loc[name, "AvgValue"] / 1e3 for name in ("DtoD", "HtoD")}  # us

    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(N), str(RUNS)],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    theirs = {k: statistics.mean(v) for k, v in json.loads(done.stdout.splitlines()[-1]).items()}
    figures = {k: {"kprof_us": ours[k], "torch_profiler_us": theirs[k]} for k in ours}
    record("copies_vs_torch_profiler", figures)
    for k, f in figures.items():
        print(
            f"[ RESULT ] {k}: kprof {f['kprof_us']:.2f} us, torch.profiler "
            f"{f['torch_profiler_us']:.2f} us"
        )
    for k, f in figures.items():
        assert f["kprof_us"] == pytest.approx(f["torch_profiler_us"], rel=0.02), k


def test_a_copy_beside_a_kernel_stays_in_the_records(results):
    df = results.to_dataframe().set_index("Annotation")
    row = df.loc["scale and copy"]
    assert "memcpy" not in row["Kernel"]  # the kernel's value, as Nsight Compute gives it
    rec = results.records_dataframe()
    mixed = rec[rec["Annotation"] == "scale and copy"]
    assert set(mixed["Kind"]) == {"kernel", "memcpy DtoD"}
    trace = json.loads(results.to_trace())
    categories = {e.get("cat") for e in trace["traceEvents"]}
    assert {"kernel", "memcpy DtoD", "memcpy HtoD", "memset"} <= categories
