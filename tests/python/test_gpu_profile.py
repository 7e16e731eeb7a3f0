"""End-to-end profiles of kprof's demo kernels through the Python API (needs a GPU).

Run on a GPU machine with ``pytest -m gpu tests/python/test_gpu_profile.py``. Set
``KPROF_RECORD_DIR`` to also save a recording (JSON) of a small profile there, for the GPU-free
tests under tests/data.
"""

from __future__ import annotations

import datetime
import math
import os
import warnings

import kprof
import pandas as pd
import pytest
from kprof import errors

pytestmark = pytest.mark.gpu

SILENT = kprof.VerbosityLevel.SILENT
N = 1 << 20


@pytest.fixture(scope="module")
def demo():
    k = kprof._core.DemoKernels(1 << 24)
    k.scale(N)  # warm up: module load, first launch
    k.synchronize()
    return k


def test_durations_of_a_sweep(demo):
    @kprof.analyze.kernel(configs=[N, 4 * N, 16 * N], runs=5, verbosity=SILENT)
    def bench(n):
        with kprof.annotate("scale"):
            demo.scale(n)

    res = bench()
    df = res.to_dataframe()
    assert list(df["n"]) == [N, 4 * N, 16 * N]
    assert (df["Annotation"] == "scale").all()
    assert (df["Metric"] == "gpu__time_duration.sum").all()
    assert (df["NumRuns"] == 5).all()
    assert (df["AvgValue"] > 0).all()
    assert (df["Unit"] == "ns").all()
    assert df["Kernel"].str.contains("scale").all()
    assert df["GPU"].iloc[0]
    assert df["ComputeClock"].iloc[0] > 0
    assert (df["MinValue"] <= df["Median"]).all() and (df["Median"] <= df["MaxValue"]).all()
    # A memory-bound kernel takes longer on 16x the data.
    assert df["AvgValue"].iloc[2] > df["AvgValue"].iloc[0]
    raw = res.raw_dataframe()
    assert len(raw) == 15
    assert sorted(set(raw["Run"])) == [0, 1, 2, 3, 4]
    assert list(raw.columns[-1:]) == ["n"]


def test_nested_annotations(demo):
    @kprof.analyze.kernel(configs=[N], runs=4, combine_kernel_metrics="sum", verbosity=SILENT)
    def bench(n):
        with kprof.annotate("step"):
            with kprof.annotate("scale"):
                demo.scale(n)
            with kprof.annotate("add"):
                demo.add(n)

    res = bench()
    df = res.to_dataframe()
    assert list(df["Annotation"]) == ["step", "step/scale", "step/add"]
    raw = res.raw_dataframe()
    for run in range(4):
        at = raw[raw["Run"] == run].set_index("Annotation")["Value"]
        # The outer region includes the kernels of the inner ones: same records, summed.
        assert at["step"] == pytest.approx(at["step/scale"] + at["step/add"], rel=1e-12)
    records = res.records_dataframe()
    assert set(records[records["Annotation"] == "step"]["KernelIndex"]) == {0, 1}


def test_derived_metric_per_run(demo):
    iterations = 256

    def tflops(ns, n):
        return 2.0 * n * iterations / ns / 1e3, "TFLOP/s"

    @kprof.analyze.kernel(configs=[N, 2 * N], runs=3, derive_metric=tflops, verbosity=SILENT)
    def bench(n):
        with kprof.annotate("fma"):
            demo.fma(n, iterations)

    res = bench()
    df = res.to_dataframe()
    assert list(df["Metric"]) == ["gpu__time_duration.sum"] * 2 + ["tflops"] * 2
    assert set(df[df["Metric"] == "tflops"]["Unit"]) == {"TFLOP/s"}
    raw = res.raw_dataframe()
    for (n, _run), group in raw.groupby(["n", "Run"]):
        values = group.set_index("Metric")["Value"]
        expected = 2.0 * n * iterations / values["gpu__time_duration.sum"] / 1e3
        assert values["tflops"] == pytest.approx(expected, rel=1e-12)


def test_derived_metric_mapping_and_no_unit_warning(demo):
    def metrics(ns, n):
        return {"GB/s": (8.0 * n / ns, "GB/s"), "ns_per_element": ns / n}

    @kprof.analyze.kernel(configs=[N], runs=2, derive_metric=metrics, verbosity=SILENT)
    def bench(n):
        with kprof.annotate("scale"):
            demo.scale(n)

    with pytest.warns(UserWarning, match="ns_per_element"):
        df = bench().to_dataframe()
    assert list(df["Metric"]) == ["gpu__time_duration.sum", "GB/s", "ns_per_element"]
    assert pd.isna(df["Unit"].iloc[2])


def test_normalize_against(demo):
    @kprof.analyze.kernel(configs=[N, 4 * N], runs=3, normalize_against="small", verbosity=SILENT)
    def bench(n):
        with kprof.annotate("small"):
            demo.scale(n)
        with kprof.annotate("large"):
            demo.scale(4 * n)

    df = bench().to_dataframe()
    assert set(df["Normalized"]) == {"small"}
    small = df[df["Annotation"] == "small"]
    assert small["AvgValue"].tolist() == pytest.approx([1.0, 1.0])
    assert (df[df["Annotation"] == "large"]["AvgValue"] > 1.0).all()
    assert (df["NormalizationValue"] > 0).all()


def test_normalize_against_unknown_annotation(demo):
    @kprof.analyze.kernel(configs=[N], runs=2, normalize_against="nope", verbosity=SILENT)
    def bench(n):
        with kprof.annotate("scale"):
            demo.scale(n)

    with pytest.raises(errors.AnnotationError, match="nope"):
        bench()


@pytest.mark.parametrize("combine", ["max", "min", "sum", lambda a, b: max(a, b)])
def test_combine_kernel_metrics(demo, combine):
    @kprof.analyze.kernel(configs=[N], runs=3, combine_kernel_metrics=combine, verbosity=SILENT)
    def bench(n):
        with kprof.annotate("two"):
            demo.scale(n)
            demo.add(n)

    res = bench()
    raw = res.raw_dataframe()
    records = res.records_dataframe()
    reduce = {"max": max, "min": min, "sum": lambda a, b: a + b}.get(combine, combine)
    for run in range(3):
        kernels = records[records["Run"] == run].sort_values("KernelIndex")["Value"].tolist()
        assert len(kernels) == 2
        assert raw[raw["Run"] == run]["Value"].iloc[0] == pytest.approx(reduce(*kernels))
    assert "|" in res.to_dataframe()["Kernel"].iloc[0]


def test_per_kernel(demo):
    @kprof.analyze.kernel(configs=[N], runs=3, per_kernel=True, verbosity=SILENT)
    def bench(n):
        with kprof.annotate("two"):
            demo.scale(n)
            demo.add(n)

    df = bench().to_dataframe()
    assert list(df["KernelIndex"]) == [0, 1]
    assert "scale" in df["Kernel"].iloc[0] and "add" in df["Kernel"].iloc[1]


def test_ignore_kernel_list(demo):
    @kprof.analyze.kernel(
        configs=[N], runs=2, ignore_kernel_list=["kprof::demo::add_kernel"], verbosity=SILENT
    )
    def bench(n):
        with kprof.annotate("two"):
            demo.scale(n)
            demo.add(n)

    records = bench().records_dataframe()
    assert not records["Kernel"].str.contains("add").any()


def test_ignore_failures_gives_a_nan_run(demo):
    calls = {"n": 0}

    @kprof.analyze.kernel(configs=[N], runs=4, verbosity=SILENT)
    def bench(n):
        calls["n"] += 1
        with kprof.annotate("flaky", ignore_failures=True):
            demo.scale(n)
            if calls["n"] == 2:
                raise MemoryError("simulated out of memory")

    with pytest.warns(RuntimeWarning, match="flaky"):
        res = bench()
    df = res.to_dataframe()
    assert df["NumRuns"].iloc[0] == 3
    raw = res.raw_dataframe()
    assert raw["Value"].isna().sum() == 1
    assert math.isnan(raw[raw["Run"] == 1]["Value"].iloc[0])


def test_exception_mid_sweep_keeps_partial_results(demo):
    @kprof.analyze.kernel(configs=[(N, "a"), (2 * N, "b"), (3 * N, "c")], runs=2, verbosity=SILENT)
    def bench(n, tag):
        with kprof.annotate("scale"):
            demo.scale(n)
        if tag == "c":
            raise ValueError("config c is broken")

    with pytest.raises(errors.UserFunctionError) as info:
        bench()
    e = info.value
    assert isinstance(e.__cause__, ValueError)
    assert "config c is broken" in str(e)
    assert "tag='c'" in str(e)
    assert (e.config, e.run) == (2, 0)
    partial = e.partial_results
    assert partial is not None
    df = partial.to_dataframe()
    assert list(df["tag"]) == ["a", "b"]
    assert (df["NumRuns"] == 2).all()


def test_kprof_error_from_user_code_is_itself(demo):
    @kprof.analyze.kernel(configs=[N], runs=2, verbosity=SILENT)
    def bench(n):
        with kprof.annotate("twice"):
            demo.scale(n)
        with kprof.annotate("twice"):
            demo.scale(n)

    with pytest.raises(errors.AnnotationError, match="twice"):
        bench()


def test_keyboard_interrupt_is_not_wrapped(demo):
    @kprof.analyze.kernel(configs=[N], runs=2, verbosity=SILENT)
    def bench(n):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        bench()


def test_profiles_after_failures_still_work(demo):
    @kprof.analyze.kernel(configs=[N], runs=2, verbosity=SILENT)
    def fails(n):
        with kprof.annotate("x"):
            demo.scale(n)
            raise RuntimeError("boom")

    @kprof.analyze.kernel(configs=[N], runs=2, verbosity=SILENT)
    def works(n):
        with kprof.annotate("x"):
            demo.scale(n)

    for _ in range(2):
        with pytest.raises(errors.UserFunctionError):
            fails()
        assert works().to_dataframe()["NumRuns"].iloc[0] == 2


def test_call_time_configs_and_keywords(demo):
    @kprof.analyze.kernel(runs=2, verbosity=SILENT)
    def bench(n, a=2.0, *, label="x"):
        with kprof.annotate(label):
            demo.scale(n, a)

    df = bench(configs=[N, 2 * N], a=3.0, label="scaled").to_dataframe()
    assert list(df.columns[:5]) == ["Annotation", "Metric", "n", "a", "label"]
    assert list(df["a"]) == [3.0, 3.0]
    assert set(df["Annotation"]) == {"scaled"}
    one = bench(N).to_dataframe()
    assert list(one["n"]) == [N]


def test_verbosity_info_and_silent(demo, capsys):
    def body(n):
        with kprof.annotate("scale"):
            demo.scale(n)

    kprof.analyze.kernel(configs=[N, 2 * N], runs=2, verbosity=SILENT)(body)()
    assert capsys.readouterr().out == ""
    kprof.analyze.kernel(configs=[N, 2 * N], runs=2)(body)()
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.startswith("[kprof]") for line in lines)
    assert len(lines) >= 3  # a header and a line per config


def test_return_value_warning_and_output_csv(demo, tmp_path):
    @kprof.analyze.kernel(
        configs=[N], runs=2, output_prefix=str(tmp_path) + "/", output_csv=True, verbosity=SILENT
    )
    def bench(n):
        with kprof.annotate("scale"):
            demo.scale(n)
        return 42

    with pytest.warns(RuntimeWarning, match="returns a value"):
        bench()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bench()
    names = sorted(p.name for p in tmp_path.iterdir())
    for call in (0, 1):
        for kind in ("processed_data", "profiled_data", "records"):
            assert f"{kind}-bench-{call}.csv" in names


def test_save_and_load_a_measurement(demo, tmp_path):
    @kprof.analyze.kernel(configs=[N, 2 * N], runs=3, verbosity=SILENT)
    def bench(n):
        with kprof.annotate("scale"):
            demo.scale(n)

    res = bench()
    res.save(tmp_path / "r.json")
    loaded = kprof.load(tmp_path / "r.json")
    assert loaded == res
    pd.testing.assert_frame_equal(loaded.to_dataframe(), res.to_dataframe())


def test_kernels_from_a_worker_thread(demo):
    import threading

    @kprof.analyze.kernel(configs=[N], runs=3, verbosity=SILENT)
    def bench(n):
        with kprof.annotate("threaded"):
            worker = threading.Thread(target=demo.scale, args=(n,))
            worker.start()
            worker.join()

    records = bench().records_dataframe()
    assert len(records) == 3
    assert records["Kernel"].str.contains("scale").all()


def test_spin_kernel_duration(demo):
    @kprof.analyze.kernel(configs=[50.0, 200.0], runs=3, verbosity=SILENT)
    def bench(us):
        with kprof.annotate("spin"):
            demo.spin(us)

    df = bench().to_dataframe()
    for us, mean_ns in zip(df["us"], df["AvgValue"], strict=True):
        # A kernel that busy-waits `us` microseconds lasts at least that, plus little.
        assert us * 1e3 * 0.98 <= mean_ns <= us * 1e3 * 1.5


def test_annotate_as_decorator_inside_a_profile(demo):
    @kprof.annotate("scale")
    def scale(n):
        demo.scale(n)

    @kprof.analyze.kernel(configs=[N], runs=2, verbosity=SILENT)
    def bench(n):
        scale(n)

    assert list(bench().to_dataframe()["Annotation"]) == ["scale"]


def test_record_for_gpu_free_tests(demo):
    """Saves small real recordings when KPROF_RECORD_DIR is set (see tests/data)."""
    out = os.environ.get("KPROF_RECORD_DIR")
    if not out:
        pytest.skip("KPROF_RECORD_DIR not set")
    iterations = 256

    def throughput(ns, n, dtype):
        return n / ns, "Gelem/s"

    def body(n, dtype):
        with kprof.annotate("fma"):
            demo.fma(n, iterations)
        with kprof.annotate("memory"):
            with kprof.annotate("scale"):
                demo.scale(n)
            with kprof.annotate("add"):
                demo.add(n)

    configs = [(N, "fp32"), (4 * N, "fp32")]
    day = datetime.date.today().isoformat()

    def save(res, what):
        gpu = res.session["gpu"].replace("NVIDIA ", "").replace(" ", "-").lower()
        res.save(os.path.join(out, f"{gpu}-python-{what}-{day}.json"), overwrite=True)

    demo_sweep = kprof.analyze.kernel(
        configs=configs,
        runs=5,
        derive_metric=throughput,
        combine_kernel_metrics="sum",
        verbosity=SILENT,
    )(body)
    save(demo_sweep(), "demo")
    normalized = kprof.analyze.kernel(
        configs=configs,
        runs=5,
        normalize_against="memory/scale",
        combine_kernel_metrics="sum",
        verbosity=SILENT,
    )(body)
    save(normalized(), "normalized")

    @kprof.analyze.kernel(configs=[N], runs=5, per_kernel=True, verbosity=SILENT)
    def per_kernel(n):
        with kprof.annotate("two"):
            demo.scale(n)
            demo.add(n)

    save(per_kernel(), "per-kernel")

    # Hardware counters (range profiler, kernel replay, 1 pass), for the front ends' units.
    counters = kprof.analyze.kernel(
        configs=configs,
        runs=3,
        combine_kernel_metrics="sum",
        metrics=["gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum"],
        verbosity=SILENT,
    )(body)
    save(counters(), "counters")


# --- kernels from other libraries ---------------------------------------------------------------


def test_torch_kernels():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")

    # cuBLAS runs a 256 x 256 product as a GEMM and a split-K reduction (seen on the H200).
    @kprof.analyze.kernel(
        configs=[256, 1024], runs=3, combine_kernel_metrics="sum", verbosity=SILENT
    )
    def matmul(n):
        a = torch.randn(n, n, device="cuda")
        b = torch.randn(n, n, device="cuda")
        torch.cuda.synchronize()
        with kprof.annotate("torch"):
            a @ b

    df = matmul().to_dataframe()
    assert (df["AvgValue"] > 0).all()
    assert df["AvgValue"].iloc[1] > df["AvgValue"].iloc[0]


def test_cupy_kernels():
    import cupy  # on the GPU machine: missing is a failure, not a skip

    @kprof.analyze.kernel(configs=[1 << 20], runs=3, combine_kernel_metrics="sum", verbosity=SILENT)
    def saxpy(n):
        x = cupy.ones(n, dtype=cupy.float32)
        cupy.cuda.Device().synchronize()
        with kprof.annotate("cupy"):
            2.0 * x + 1.0

    df = saxpy().to_dataframe()
    assert (df["AvgValue"] > 0).all()


def test_triton_kernels():
    torch = pytest.importorskip("torch")
    import triton  # on the GPU machine: missing is a failure, not a skip
    import triton.language as tl

    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(
            out_ptr + offs,
            tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
            mask=mask,
        )

    def run(x, y, out):
        n = x.numel()
        add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)

    x = torch.randn(1 << 20, device="cuda")
    y = torch.randn_like(x)
    out = torch.empty_like(x)
    run(x, y, out)  # compile outside the profile
    torch.cuda.synchronize()

    @kprof.analyze.kernel(runs=3, verbosity=SILENT)
    def bench():
        with kprof.annotate("triton"):
            run(x, y, out)

    df = bench().to_dataframe()
    assert (df["AvgValue"] > 0).all()
    assert df["Kernel"].str.contains("add_kernel").all()


def test_after_torch_profiler_no_crash():
    """torch.profiler (Kineto) keeps CUPTI after it ends: kprof must either measure or say who
    holds CUPTI (CuptiBusyError), never crash. In a subprocess: the state does not go away."""
    pytest.importorskip("torch")
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(
        """
        import torch, kprof
        x = torch.randn(1024, 1024, device="cuda")
        with torch.profiler.profile():
            x @ x
        torch.cuda.synchronize()

        @kprof.analyze.kernel(runs=2, verbosity=kprof.VerbosityLevel.SILENT)
        def bench():
            with kprof.annotate("mm"):
                x @ x

        try:
            df = bench().to_dataframe()
            print("measured", int(df["NumRuns"].iloc[0]))
        except kprof.errors.CuptiBusyError as e:
            print("busy", repr(e.holder), str(e)[:300])
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    print(out.stdout, out.stderr[-2000:])
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith(("measured 2", "busy"))
