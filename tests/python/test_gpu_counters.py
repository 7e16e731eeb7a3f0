"""Hardware counters from kprof's in-process range profiler against theory and Nsight Compute
on the same torch kernels (H200): DRAM bytes, SM and DRAM throughput, durations, bound-ness,
the traffic a fused kernel saves, and the agreement of the three replay modes."""

from __future__ import annotations

import statistics

import pytest
from counter_ops import N_FUSION, N_SCALE, RUNS, make_ops, region_means
from gpu_reference import HERE, ncu_kernel_metrics, record

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
kprof = pytest.importorskip("kprof")

DURATION = "gpu__time_duration.sum"
READ = "dram__bytes_read.sum"
WRITE = "dram__bytes_write.sum"
SM = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
DRAM = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
METRICS = [DURATION, READ, WRITE, SM, DRAM]
MIB = 2**20
NAMES = ["scale", "matmul16", "softmax", "unfused", "addcmul"]


@pytest.fixture(scope="module")
def ops():
    return make_ops(torch)


def profile(ops, replay_mode, metrics=METRICS):
    """Means per (annotation, metric); regions of several kernels are summed."""
    return region_means(kprof, ops, NAMES, metrics, replay_mode, combine_kernel_metrics="sum")


# Bytes and durations come from 1-pass profiles; the throughputs (several passes) from
# application replay, which flushes the L2 before every pass of every kernel as Nsight Compute
# does: CUPTI 13.0's kernel replay restores the kernel's memory before every pass after the
# first and cannot flush, so the 18 us softmax reads several points off ncu there
# (docs/metrics.md). Kernel replay's throughputs are recorded beside them.
@pytest.fixture(scope="module")
def kernel_replay(ops):
    return profile(ops, "kernel", [DURATION, READ, WRITE])


@pytest.fixture(scope="module")
def range_replay(ops):
    return profile(ops, "range", [DURATION, READ, WRITE])


@pytest.fixture(scope="module")
def application_replay(ops):
    return profile(ops, "application", [DURATION, READ, WRITE])


@pytest.fixture(scope="module")
def throughput(ops):
    return profile(ops, "application", [SM, DRAM])


@pytest.fixture(scope="module")
def throughput_kernel_replay(ops):
    return profile(ops, "kernel", [SM, DRAM])


@pytest.fixture(scope="module")
def ncu():
    """ncu's values per region: kernels of one run summed (bytes, durations), medians over runs."""
    kernels = ncu_kernel_metrics([str(HERE / "counter_ops.py"), *NAMES], NAMES, METRICS)
    per_run = {"unfused": 2}  # kernels per run of each region; 1 for the others
    out, pos = {}, 0
    for name in NAMES:
        k = per_run.get(name, 1)
        runs = [kernels[pos + i * k : pos + (i + 1) * k] for i in range(RUNS)]
        pos += k * RUNS
        for m in METRICS:
            out[(name, m)] = statistics.median(sum(x[m] for x in run) for run in runs)
    assert pos == len(kernels), f"ncu profiled {len(kernels)} kernels, expected {pos}"
    return out


def test_dram_bytes_of_a_streaming_kernel_match_theory_and_ncu(kernel_replay, ncu):
    """Reads match theory; writes fall short of it by what is still in L2 when the kernel ends
    (written back later, outside the kernel), for ncu as for kprof."""
    theory = 4 * N_SCALE
    figures = {
        m: {"kprof": kernel_replay[("scale", m)], "ncu": ncu[("scale", m)], "theory": theory}
        for m in (READ, WRITE)
    }
    record("counters_scale_bytes", figures)
    assert figures[READ]["kprof"] / theory == pytest.approx(1, abs=0.01), figures
    assert figures[READ]["kprof"] / figures[READ]["ncu"] == pytest.approx(1, abs=0.01), figures
    assert 0.85 < figures[WRITE]["kprof"] / theory <= 1.01, figures
    assert figures[WRITE]["kprof"] / figures[WRITE]["ncu"] == pytest.approx(1, abs=0.02), figures


def test_throughput_and_durations_match_ncu(
    kernel_replay, throughput, throughput_kernel_replay, ncu
):
    """Within 5 points (SM, DRAM %) and 3% (durations). Kernel replay's throughputs are held to
    that on the kernels of 100 us and more only; the 18 us softmax is recorded there (its later
    passes start with a warm L2 under CUPTI 13.0, see docs/metrics.md)."""
    figures = {}
    for name in ("scale", "matmul16", "addcmul", "softmax"):
        figures[name] = {
            m: {
                "kprof": throughput[(name, m)],
                "kprof_kernel_replay": throughput_kernel_replay[(name, m)],
                "ncu": ncu[(name, m)],
            }
            for m in (SM, DRAM)
        }
        figures[name][DURATION] = {
            "kprof": kernel_replay[(name, DURATION)],
            "ncu": ncu[(name, DURATION)],
        }
    record("counters_vs_ncu", figures)
    for name, f in figures.items():
        for m in (SM, DRAM):
            assert abs(f[m]["kprof"] - f[m]["ncu"]) <= 5, (name, m, f[m])
            if name != "softmax":
                assert abs(f[m]["kprof_kernel_replay"] - f[m]["ncu"]) <= 5, (name, m, f[m])
        assert f[DURATION]["kprof"] / f[DURATION]["ncu"] == pytest.approx(1, abs=0.03), (name, f)


@pytest.fixture(scope="module")
def default_mode(ops):
    """Every metric at once with replay_mode left at its default ("auto")."""
    return profile(ops, "auto", METRICS)


def test_the_default_mode_chooses_application_replay_for_several_passes(ops):
    @kprof.analyze.kernel(metrics=[SM], runs=1, thermal_mode="off")
    def bench():
        with kprof.annotate("scale"):
            ops["scale"]()

    df = bench().to_dataframe()
    assert set(df["ReplayMode"]) == {"application"}
    assert int(df["Passes"].iloc[0]) > 1


def test_the_default_mode_matches_ncu(default_mode, ncu):
    """Durations and DRAM bytes read within 2%, SM and DRAM throughput within 2 points, DRAM
    bytes written within 5% where the output is larger than the L2 (scale, addcmul). Outputs
    smaller than the L2 (matmul16, softmax: 32 MiB) leave more of their writes to after the
    kernel, and ncu counts about 2 MB more of them on every kernel that writes
    (docs/metrics.md, "DRAM bytes written"); their DRAM throughput, bytes over time, is held to
    2 points of ncu's taken at kprof's bytes (the 18 us softmax: 2 MB is 2.4 points)."""
    names = ("scale", "matmul16", "softmax", "addcmul")
    figures = {
        f"{n} {m}": {"kprof": default_mode[(n, m)], "ncu": ncu[(n, m)]}
        for n in names
        for m in METRICS
    }
    record("counters_default_mode_vs_ncu", figures)
    for key, f in figures.items():
        print(f"[ RESULT ] default mode {key}: kprof {f['kprof']:.6g} ncu {f['ncu']:.6g}")
    bounds = {DURATION: ("rel", 0.02), READ: ("rel", 0.02), SM: ("abs", 2), DRAM: ("abs", 2)}
    misses = []
    for n in names:
        held = dict(bounds)
        theirs_at = {m: ncu[(n, m)] for m in METRICS}
        if n in ("scale", "addcmul"):
            held[WRITE] = ("rel", 0.05)
        else:
            bytes_ratio = (default_mode[(n, READ)] + default_mode[(n, WRITE)]) / (
                ncu[(n, READ)] + ncu[(n, WRITE)]
            )
            theirs_at[DRAM] = ncu[(n, DRAM)] * bytes_ratio
            print(f"[ RESULT ] default mode {n} DRAM % at kprof's bytes: ncu {theirs_at[DRAM]:.4g}")
            # ncu's extra writes, 2.1-2.5 MB on the H200 and once 3.04 MB (the fp16 matmul, whose
            # writes during the kernel move by about 0.6 MB between runs in either tool): more
            # than 3.5 MB is another cause.
            if not 0 <= ncu[(n, WRITE)] - default_mode[(n, WRITE)] <= 3.5e6:
                misses.append((n, WRITE, default_mode[(n, WRITE)], ncu[(n, WRITE)]))
        for m, (kind, bound) in held.items():
            ours, theirs = default_mode[(n, m)], theirs_at[m]
            off = abs(ours / theirs - 1) if kind == "rel" else abs(ours - theirs)
            if off > bound:
                misses.append((n, m, ours, theirs))
    assert not misses, misses


def test_a_kernel_that_writes_nothing_counts_no_writes(ops):
    """A sum over 256 MiB reads it and writes 4 bytes: kprof counts its reads and no writes.
    Nsight Compute's figures for it, in its kernel and application replay, are recorded: every
    kernel of this file reads about 2 MB more DRAM writes under ncu than under kprof, whatever
    its output (docs/metrics.md, "DRAM bytes written")."""
    ours = region_means(kprof, ops, ["total"], [READ, WRITE], "auto", combine_kernel_metrics="sum")
    figures = {"kprof": {m: ours[("total", m)] for m in (READ, WRITE)}}
    for mode in ("kernel", "application"):
        kernels = ncu_kernel_metrics(
            [str(HERE / "counter_ops.py"), "total"], ["total"], [READ, WRITE], replay_mode=mode
        )
        assert kernels and len(kernels) % RUNS == 0, (mode, len(kernels))
        k = len(kernels) // RUNS  # kernels per run, summed as kprof sums them
        runs = [kernels[i * k : (i + 1) * k] for i in range(RUNS)]
        figures[f"ncu_{mode}_replay"] = {
            m: statistics.median(sum(x[m] for x in run) for run in runs) for m in (READ, WRITE)
        }
    record("counters_no_writes", figures)
    for who, f in figures.items():
        print(f"[ RESULT ] sum over 256 MiB, {who}: read {f[READ]:.6g} B, written {f[WRITE]:.6g} B")
    assert ours[("total", READ)] / (4 * N_SCALE) == pytest.approx(1, abs=0.01), figures
    assert 0 <= ours[("total", WRITE)] < 0.05 * MIB, figures


def test_three_counters_tell_compute_from_memory_bound(throughput, ncu):
    """The matmul is compute bound and the scale memory bound by far; the softmax, near half
    of both peaks, leans to the side ncu puts it on (SM 52.7 %, DRAM 47.2 % on the H200)."""
    names = ("matmul16", "scale", "softmax")
    table = {
        n: {
            "kprof": (throughput[(n, SM)], throughput[(n, DRAM)]),
            "ncu": (ncu[(n, SM)], ncu[(n, DRAM)]),
        }
        for n in names
    }
    record("counters_boundness", table)
    assert table["matmul16"]["kprof"][0] > 2 * table["matmul16"]["kprof"][1]
    assert table["scale"]["kprof"][1] > 2 * table["scale"]["kprof"][0]
    for n in names:
        sm, dram = table[n]["kprof"]
        ncu_sm, ncu_dram = table[n]["ncu"]
        assert (sm > dram) == (ncu_sm > ncu_dram), (n, table[n])


def test_fusion_saves_a_third_of_the_traffic(kernel_replay, range_replay, ncu):
    """Range replay counts a region's whole traffic: two kernels against one, 1.5x. Kernel
    replay flushes the L2 between the two kernels, as Nsight Compute does, so the first one's
    last writes go to DRAM during the flush and count nowhere: there kprof must agree with
    ncu, not with the theory."""

    def ratio(values):
        unfused = values[("unfused", READ)] + values[("unfused", WRITE)]
        fused = values[("addcmul", READ)] + values[("addcmul", WRITE)]
        return {"unfused_bytes": unfused, "fused_bytes": fused, "ratio": unfused / fused}

    figures = {"range": ratio(range_replay), "kernel": ratio(kernel_replay), "ncu": ratio(ncu)}
    record("counters_fusion", figures)
    assert figures["range"]["ratio"] == pytest.approx(1.5, rel=0.02), figures
    assert figures["kernel"]["ratio"] == pytest.approx(figures["ncu"]["ratio"], rel=0.02), figures
    for values in (kernel_replay, range_replay):
        assert values[("addcmul", READ)] / (12 * N_FUSION) == pytest.approx(1, abs=0.01)


def test_the_replay_modes_agree(kernel_replay, range_replay, application_replay):
    """Bytes on regions of one kernel; a region of several kernels differs by the flushes
    between its kernels in range replay (see the fusion test). Application replay measures
    each kernel as kernel replay does: durations too, on every region."""
    figures = {
        f"{name} {m}": {
            "kernel": kernel_replay[(name, m)],
            "range": range_replay[(name, m)],
            "application": application_replay[(name, m)],
        }
        for name in NAMES
        for m in (READ, WRITE, DURATION)
    }
    record("counters_replay_modes", figures)
    for name in ("scale", "matmul16", "softmax", "addcmul"):
        for m, tolerance in ((READ, 0.02), (WRITE, 0.05)):
            k = kernel_replay[(name, m)]
            for other in (range_replay, application_replay):
                assert other[(name, m)] / k == pytest.approx(1, abs=tolerance), (name, m, k)
    for name in NAMES:
        k, a = kernel_replay[(name, DURATION)], application_replay[(name, DURATION)]
        assert a / k == pytest.approx(1, abs=0.03), (name, k, a)


CLOCK = "gpc__cycles_elapsed.avg.per_second"


def test_the_counted_clock_matches_ncu(ops):
    """The clock the counters give each run (MeasuredClock): kprof's and ncu's reading of the
    same counter on the same kernels, neither locking the clocks."""
    kprof_hz = profile(ops, "kernel", [DURATION, CLOCK])
    names = ["scale", "matmul16"]
    kernels = ncu_kernel_metrics([str(HERE / "counter_ops.py"), *names], names, [CLOCK])
    figures = {}
    for i, name in enumerate(names):
        theirs = statistics.median(k[CLOCK] for k in kernels[i * RUNS : (i + 1) * RUNS])
        ours = kprof_hz[(name, CLOCK)]
        figures[name] = {"kprof_mhz": ours / 1e6, "ncu_mhz": theirs / 1e6}
        print(
            f"[ RESULT ] {name}: counted clock kprof {ours / 1e6:.0f} MHz, ncu {theirs / 1e6:.0f}"
        )
    record("counters_clock", figures)
    for name, f in figures.items():
        assert f["kprof_mhz"] == pytest.approx(f["ncu_mhz"], rel=0.05), name


def test_an_unknown_metric_is_an_error_of_the_call_not_of_the_decoration():
    """As in nsight-python, a module that declares benchmarks imports on a GPU that lacks a
    metric; the call raises a ValueError, with the closest names, before anything runs."""
    ran = []

    @kprof.analyze.kernel(metrics=["dram__bytes_raed.sum"], verbosity=kprof.VerbosityLevel.SILENT)
    def bench():
        ran.append(1)

    with pytest.raises(ValueError) as info:
        bench()
    assert isinstance(info.value, kprof.errors.OptionError)
    assert "dram__bytes_raed.sum" in str(info.value)
    assert READ in str(info.value)  # the closest name
    assert not ran
