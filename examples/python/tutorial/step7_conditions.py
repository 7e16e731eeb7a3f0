"""Tutorial step 7: record the clock and temperature every run, with collectors.

30 runs of an fp16 4096 matmul, with the thermal guard off and then on ("auto"). Two RUN-scope
collectors read NVML (through ctypes, no extra package) before every run: the SM clock and the
GPU temperature. The counter gpc__cycles_elapsed.avg.per_second gives the clock the kernel
itself ran at, which kprof also keeps per run (MeasuredClock, in kHz) to flag runs whose clock
fell below 75% of the rated clock.

Written the way nsight-python scripts are (`import kprof as nsight`,
`nsight.experimental.collect`); MeasuredClock and Throttled are kprof's own columns.
"""

import ctypes

import kprof as nsight
import torch

nvml = ctypes.CDLL("libnvidia-ml.so.1")
nvml.nvmlInit_v2()
handle = ctypes.c_void_p()
nvml.nvmlDeviceGetHandleByIndex_v2(torch.cuda.current_device(), ctypes.byref(handle))


def nvml_uint(function, *args):
    value = ctypes.c_uint()
    result = getattr(nvml, function)(handle, *args, ctypes.byref(value))
    return value.value if result == 0 else float("nan")


@nsight.experimental.collect(scope=nsight.CollectionScope.RUN)
def nvml_clock_mhz():
    return nvml_uint("nvmlDeviceGetClockInfo", 1)  # NVML_CLOCK_SM


@nsight.experimental.collect(scope=nsight.CollectionScope.RUN)
def temperature_c():
    return nvml_uint("nvmlDeviceGetTemperature", 0)  # NVML_TEMPERATURE_GPU


a, b = (torch.randn(4096, 4096, device="cuda", dtype=torch.float16) for _ in range(2))

for mode in ("off", "auto"):

    @nsight.analyze.kernel(
        metrics=["gpu__time_duration.sum", "gpc__cycles_elapsed.avg.per_second"],
        runs=30,
        thermal_mode=mode,
        info_collectors=[nvml_clock_mhz, temperature_c],
    )
    def matmul():
        with nsight.annotate("matmul"):
            a @ b

    results = matmul()
    raw = results.raw_dataframe()
    raw = raw[raw["Metric"] == "gpu__time_duration.sum"].copy()
    raw["us"] = raw["Value"] / 1e3
    raw["counted_mhz"] = raw["MeasuredClock"] / 1e3
    columns = ["us", "counted_mhz", "nvml_clock_mhz", "temperature_c"]
    print(f"thermal_mode={mode!r}: session clock source {results.session['clock_source']!r}")
    print(raw[["Run", *columns, "Throttled"]].round(1).to_string(index=False))
    print(raw[columns].corr().round(2).to_string())
    row = results.to_dataframe().set_index("Metric").loc["gpu__time_duration.sum"]
    print(f"mean {row['AvgValue'] / 1e3:.1f} us, throttled runs: {int(row['ThrottledRuns'])}")
