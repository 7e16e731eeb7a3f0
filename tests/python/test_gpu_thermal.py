"""A sweep long enough to heat the GPU (about a minute of fp16 matmuls at full power): every run
keeps its clock and temperature, and the session says whether any run was throttled. Whether
the GPU throttles is the machine's business; the test asserts what kprof records, and the
figures (temperature rise, clock range, throttled runs) go to docs/validation.md."""

from __future__ import annotations

import pytest
from gpu_reference import record

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
kprof = pytest.importorskip("kprof")

N = 8192
MATMULS_PER_RUN = 20  # ~1.4 ms each on an H200: ~30 ms per run
RUNS = 1500


def test_a_long_sweep_records_clock_and_temperature_of_every_run():
    a, b = (torch.randn(N, N, device="cuda", dtype=torch.float16) for _ in range(2))

    @kprof.analyze.kernel(
        runs=RUNS,
        thermal_mode="auto",
        combine_kernel_metrics="sum",
        verbosity=kprof.VerbosityLevel.SILENT,
    )
    def heat():
        with kprof.annotate("matmul"):
            for _ in range(MATMULS_PER_RUN):
                a @ b

    results = heat()
    runs = results.runs_dataframe()
    assert len(runs) == RUNS
    assert runs["Temperature"].notna().all()
    assert runs["MeasuredClock"].notna().mean() > 0.9  # a reading of an idle GPU has none
    row = results.to_dataframe().iloc[0]
    throttled = int(runs["Throttled"].fillna(False).sum())
    assert row["ThrottledRuns"] == throttled
    tenth = RUNS // 10
    figures = {
        "runs": RUNS,
        "seconds": float(runs["Seconds"].sum()),
        "clock_source": results.session["clock_source"],
        "temperature_first_tenth_c": float(runs["Temperature"][:tenth].mean()),
        "temperature_last_tenth_c": float(runs["Temperature"][-tenth:].mean()),
        "temperature_max_c": float(runs["Temperature"].max()),
        "clock_first_tenth_mhz": float(runs["MeasuredClock"][:tenth].mean() / 1e3),
        "clock_last_tenth_mhz": float(runs["MeasuredClock"][-tenth:].mean() / 1e3),
        "clock_min_mhz": float(runs["MeasuredClock"].min() / 1e3),
        "throttled_runs": throttled,
        "thermal_pauses": int((runs["ThermalPause"] > 0).sum()),
        "mean_us_per_matmul": float(row["AvgValue"]) / 1e3 / MATMULS_PER_RUN,
        # NVML's clock event reasons, as hex, with the number of runs that read each
        "reasons": {
            hex(int(k)): int(v) for k, v in runs["ClockEventReasons"].value_counts().items()
        },
    }
    print(f"[ RESULT ] {figures}")
    record("thermal_sweep", figures)
