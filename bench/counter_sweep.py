"""What kprof's hardware counters add to a sweep, against Nsight Compute and CUPTI's own floor.

Four sweeps (torch kernels, cold L2): a, b and c in kernel and range replay, a and c in
application replay too, a and d in the default mode:

  a  the seed sweep: fp32 matmul n = 512..4096, 10 runs; duration, SM % and DRAM % (8 passes)
  b  the same sweep with a 1-pass set: duration, DRAM bytes read and written
  c  1,000 regions of one small kernel (y = 2x over 4096 floats) with the 1-pass set
  d  the seed sweep with set:analysis (what limits each kernel, 13 passes) in the default
     replay mode, against ncu with the sections that answer the same question (SpeedOfLight,
     Occupancy, LaunchStats, SpeedOfLight_RooflineChart)
  e  d with set:flop too (FP32/FP64/FP16 FLOP, which ncu's roofline section counts as well), where
     kprof counts it in the process (CUPTI 13.5 or later, nvdisasm: else skipped, saying why); its
     call of each config under CUPTI's SASS counter is beyond the floor below

Added time = wall time of the profiled sweep - wall time of the same sweep unprofiled.
ncu runs the unprofiled sweep in a child process with the same metrics and NVTX filter
(ncu --nvtx --nvtx-include kprof@REGION/ --metrics ... --cache-control all
--clock-control none), against the same child without ncu; the faster of two ncu runs counts.

CUPTI's floor is measured in the same profile: the wall time kprof spent inside the range
profiler (its calls, and in kernel replay the launch calls in which CUPTI replays each kernel:
session["profiler_seconds"]), plus the sweep's own work as often again as kprof must call it:
once more per extra pass in range and application replay, once more for the unmeasured call of
each config that sizes the sessions before they start (CUPTI needs their capacity and nesting
depth up front), and the unprofiled call of each config that the overhead disclosure makes after
the profile (on by default: session["unprofiled_seconds_per_run"] per config). kprof's own share
is what the profile added beyond that floor; it is also measured with cache_control="none",
since the L2 flushes (a read of twice the L2 before every kernel or region, which ncu's
--cache-control all does too) are GPU time rather than kprof's, and for sweep c also without the
overhead disclosure (disclose_overhead=False): its wait after each run, which times a run alone
as its unprofiled call is timed, keeps the GPU from running one run's work while the host
prepares the next.
What a standalone CUPTI program measured on the H200 without PyTorch (kernel replay 12 ms per
kernel at 1 pass, 70 ms at more; range replay 0.25 s per session plus, per pass, 2.5 ms and
1 ms per region) is printed next to it.

Run on a GPU:  python3 bench/counter_sweep.py [--json out.json] [--skip-ncu] [--only a,b,c]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys

from wall_clock import child_wall, timed

SIZES = (512, 1024, 2048, 4096)
RUNS = 10
SMALL_REGIONS = 1000
NCU_REPEATS = 2
DURATION = "gpu__time_duration.sum"
THROUGHPUT = [
    DURATION,
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
]
BYTES = [DURATION, "dram__bytes_read.sum", "dram__bytes_write.sum"]
SWEEPS = {"a": ("seed", THROUGHPUT), "b": ("seed", BYTES), "c": ("small", BYTES)}
SWEEPS["d"] = ("seed", ["set:analysis"])
SWEEPS["e"] = ("seed", ["set:analysis", "set:flop"])
# What ncu is given for a sweep: its metrics, or for d and e the sections of the same analysis.
NCU_SECTIONS = {"d": ["SpeedOfLight", "Occupancy", "LaunchStats", "SpeedOfLight_RooflineChart"]}
NCU_SECTIONS["e"] = NCU_SECTIONS["d"]
GOALS = {("a", "kernel"): 2.5, ("a", "range"): 2.5, ("b", "kernel"): 4, ("b", "range"): 8}
GOALS.update({("a", "application"): 2.5, ("a", "auto"): 2.5, ("c", "range"): 30})
# Sweep a also runs the default, replay_mode="auto", and prints the mode it chose.
REPLAYS = {"a": ("auto", "kernel", "range", "application"), "d": ("auto",), "e": ("auto",)}
REPLAYS["c"] = ("kernel", "range", "application")  # else kernel, range
GOALS[("d", "auto")] = GOALS[("e", "auto")] = 2.5


def make_inputs(torch):
    seed = {n: (torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")) for n in SIZES}
    x = torch.rand(4096, device="cuda")
    return {"seed": seed, "small": (x, torch.empty_like(x))}


def plain(torch, inputs, which):
    """The sweep's work inside kprof's annotations (NVTX ranges outside a profile)."""
    import kprof

    if which == "seed":
        for n in SIZES:
            a, b = inputs["seed"][n]
            for _ in range(RUNS):
                with kprof.annotate("matmul"):
                    torch.matmul(a, b)
    else:
        x, y = inputs["small"]
        for _ in range(SMALL_REGIONS):
            with kprof.annotate("scale"):
                torch.mul(x, 2.0, out=y)
    torch.cuda.synchronize()


def profiled(torch, inputs, which, metrics, replay, cache="all", disclose=True):
    import kprof

    quiet = kprof.VerbosityLevel.SILENT
    if which == "seed":
        # cuBLAS splits the small products into two kernels: their values are summed (the
        # figures here are wall times, not the values).
        @kprof.analyze.kernel(
            configs=SIZES,
            runs=RUNS,
            metrics=metrics,
            replay_mode=replay,
            cache_control=cache,
            combine_kernel_metrics="sum",
            disclose_overhead=disclose,
            verbosity=quiet,
        )
        def matmul(n):
            a, b = inputs["seed"][n]
            with kprof.annotate("matmul"):
                torch.matmul(a, b)

        return matmul()
    x, y = inputs["small"]

    @kprof.analyze.kernel(
        configs=range(SMALL_REGIONS),
        runs=1,
        metrics=metrics,
        replay_mode=replay,
        cache_control=cache,
        disclose_overhead=disclose,
        verbosity=quiet,
    )
    def small(i):
        with kprof.annotate("scale"):
            torch.mul(x, 2.0, out=y)

    return small()


_NCU_CACHE: dict[tuple[str, tuple[str, ...]], float | None] = {}


def ncu_added(which, metrics, sections=()):
    """ncu's added time for a sweep, measured once per sweep and metric set (or sections)."""
    key = (which, tuple(metrics) + tuple(sections))
    if key not in _NCU_CACHE:
        _NCU_CACHE[key] = _ncu_added(which, metrics, sections)
    return _NCU_CACHE[key]


def _ncu_added(which, metrics, sections):
    ncu = shutil.which("ncu")
    if ncu is None:
        return None
    child = [sys.executable, __file__, "--child", which]
    # ncu brings its own CUPTI: not the one sweep e may have preloaded (both runs alike).
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    base = min(child_wall(child, env) for _ in range(2))
    region = "matmul" if which == "seed" else "scale"
    cmd = [ncu, "--nvtx", "--nvtx-include", f"kprof@{region}/"]
    if sections:
        cmd += [arg for s in sections for arg in ("--section", s)]
    else:
        cmd += ["--metrics", ",".join(metrics)]
    cmd += ["--cache-control", "all", "--clock-control", "none", *child]
    # ncu's own time varies by up to 2x from run to run (docs/validation.md): its best of two.
    return min(child_wall(cmd, env) for _ in range(NCU_REPEATS)) - base


def measured_floor_s(results, passes, plain_s):
    """CUPTI's time in this profile, and the sweep's own work as often again as CUPTI's protocol
    and the disclosure make kprof call it: once more per extra pass of range and application
    replay, once more for the unmeasured call of each config that sizes the sessions before they
    start (every counter mode), and the unprofiled call of each config that tells what
    profiling added (disclose_overhead, on by default)."""
    session = results.session
    cupti = float(session.get("profiler_seconds", float("nan")))
    disclosed = float(session.get("unprofiled_seconds_per_run", float("nan"))) * len(
        results.configs
    )
    # The mode the profile ran in ("auto" chooses one).
    repeated = plain_s if session["replay_mode"] == "kernel" else passes * plain_s
    return cupti + repeated + (disclosed if math.isfinite(disclosed) else 0.0)


def floor_s(replay, passes, kernels, plain_s):
    """CUPTI's own cost for this sweep as a standalone CUPTI program measured it (H200, no
    PyTorch)."""
    if replay == "kernel":
        return kernels * (0.012 if passes == 1 else 0.070)
    per_region = 0.001 if passes > 1 else 20e-6
    return 0.25 + passes * (0.0025 + per_region * kernels) + (passes - 1) * plain_s


def measure(torch, inputs, key, replay, skip_ncu):
    which, metrics = SWEEPS[key]
    base = min(timed(plain, torch, inputs, which)[0] for _ in range(3))
    wall, results = timed(profiled, torch, inputs, which, metrics, replay)
    records = results.records_dataframe()
    kernels = int((records["Metric"] == DURATION).sum())  # every sweep measures the duration
    passes = int(results.session["passes"])
    added = wall - base
    used = results.session["replay_mode"]  # the mode "auto" chose
    row = {"sweep": key, "replay": replay, "replay_used": used, "kernels": kernels}
    row.update({"passes": passes, "plain_s": base, "kprof_s": wall, "kprof_added_s": added})
    row["floor_s"] = measured_floor_s(results, passes, base)
    row["added_over_floor"] = added / row["floor_s"]
    row["standalone_floor_s"] = floor_s(used, passes, kernels, base)
    # The same profile without L2 flushes: kprof's own share without the GPU's time flushing.
    warm_wall, warm = timed(profiled, torch, inputs, which, metrics, replay, "none")
    row["kprof_added_no_flush_s"] = warm_wall - base
    row["no_flush_over_floor"] = row["kprof_added_no_flush_s"] / measured_floor_s(
        warm, passes, base
    )
    if key == "c":  # and without the overhead disclosure's calls and its wait after each run
        bare_wall, bare = timed(profiled, torch, inputs, which, metrics, replay, "none", False)
        row["bare_over_floor"] = (bare_wall - base) / measured_floor_s(bare, passes, base)
    ncu = None if skip_ncu else ncu_added(which, metrics, NCU_SECTIONS.get(key, ()))
    row["ncu_added_s"] = ncu
    row["ncu_over_kprof"] = None if ncu is None else ncu / max(added, 1e-9)
    row["goal_ncu_over_kprof"] = GOALS.get((key, replay))
    return row


def summary_line(key, replay, r):
    ncu = "-" if r["ncu_added_s"] is None else f"{r['ncu_added_s']:.2f}"
    ratio = "-" if r["ncu_over_kprof"] is None else f"{r['ncu_over_kprof']:.1f}x"
    goal = r["goal_ncu_over_kprof"]
    mode = replay if replay != "auto" else f"auto={r['replay_used']}"
    bare = f", {r['bare_over_floor']:.2f}x nor the disclosure" if "bare_over_floor" in r else ""
    return (
        f"{key} {mode:11} kernels {r['kernels']:5} passes {r['passes']} | "
        f"kprof added {r['kprof_added_s']:7.2f} s (CUPTI {r['floor_s']:6.2f} s, "
        f"{r['added_over_floor']:.2f}x, {r['no_flush_over_floor']:.2f}x without flushes{bare}; "
        f"standalone {r['standalone_floor_s']:.2f} s) | "
        f"ncu added {ncu} s | ncu/kprof {ratio}" + (f" (goal >= {goal}x)" if goal else "")
    )


def keep_module_code():
    """set:flop counts the kernels of modules loaded after a decorator asking for it is made:
    made here, before the inputs' first CUDA work. False (saying why) where it cannot count."""
    import kprof
    from kprof._native import core

    why = core.query_system()["flop_counting"]
    if why:
        print(f"sweep e skipped: {why}", flush=True)
        return False

    @kprof.analyze.kernel(metrics=["set:flop"])
    def never_called():
        pass

    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument("--skip-ncu", action="store_true")
    parser.add_argument("--only", default="a,b,c", help="sweeps to run, of a, b, c, d, e")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()

    import torch

    sweeps = args.only.split(",")
    if "e" in sweeps and not args.child and not keep_module_code():
        sweeps.remove("e")
    inputs = make_inputs(torch)
    if args.child:
        plain(torch, inputs, args.child)
        return
    plain(torch, inputs, "seed")  # warm-up: cuBLAS handles, kernel selection, module loads
    plain(torch, inputs, "small")
    # And a profile: the figures are each profile's own, without the first profile's one-time
    # costs in this process (importing pandas, loading the extension and CUPTI, ~0.5 s), which
    # the first sweep measured would carry alone.
    profiled(torch, inputs, "small", BYTES, "kernel")
    rows = []
    for key in sweeps:
        for replay in REPLAYS.get(key, ("kernel", "range")):
            rows.append(measure(torch, inputs, key, replay, args.skip_ncu))
            print(summary_line(key, replay, rows[-1]), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
