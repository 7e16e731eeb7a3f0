"""kprof under load: what a long job does to its process, measured in one run.

  runs      100,000 annotated runs of one small kernel, as 100 calls of 1,000 runs: resident
            size and time per run after each call (goal: resident size grows by less than 1%
            after the first 10,000 runs; time per run of the last tenth over the first)
  configs   one sweep of 10,000 configs, one run each: its wall time and resident size
  profiles  1,000 profiles in a row (each subscribes to CUPTI and leaves it) of durations, and
            100 of a hardware counter: open files, threads, resident size and free GPU memory
            after the first tenth and at the end (goal: the same files, threads and GPU memory;
            resident size within 1%)

Open files cover NVML's and the driver's handles, threads CUPTI's; GPU memory is
cudaMemGetInfo's free bytes. Prints one line per part; --json writes the figures, which
tests/python/test_gpu_soak.py checks (all but the times).

Run on a GPU:  python3 bench/soak.py [--json out.json] [--scale 0.1]
"""

from __future__ import annotations

import argparse
import json
import os
import time


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def resources(torch):
    """What a leak would grow: open files, threads, resident size, free GPU memory."""
    torch.cuda.synchronize()
    return {
        "open_files": len(os.listdir("/proc/self/fd")),
        "threads": len(os.listdir("/proc/self/task")),
        "rss_bytes": rss_bytes(),
        "gpu_free_bytes": torch.cuda.mem_get_info()[0],
    }


def make_bench(kprof, x, runs, configs=(0,), metrics=None):
    quiet = kprof.VerbosityLevel.SILENT
    extra = {} if metrics is None else {"metrics": metrics}

    @kprof.analyze.kernel(configs=configs, runs=runs, verbosity=quiet, thermal_mode="off", **extra)
    def scale(c):
        with kprof.annotate("scale"):
            x.mul_(1.0)

    return scale


def soak_runs(kprof, x, calls, runs):
    bench = make_bench(kprof, x, runs)
    rss, per_run_us = [], []
    for _ in range(calls):
        t0 = time.perf_counter()
        results = bench()
        per_run_us.append((time.perf_counter() - t0) / runs * 1e6)
        assert int(results.to_dataframe()["NumRuns"].iloc[0]) == runs
        del results
        rss.append(rss_bytes())
    tenth = max(1, calls // 10)
    first, last = sorted(per_run_us[:tenth]), sorted(per_run_us[-tenth:])
    return {
        "runs": calls * runs,
        "rss_after_first_tenth": rss[tenth - 1],
        "rss_at_end": rss[-1],
        "rss_growth": rss[-1] / rss[tenth - 1] - 1,
        "us_per_run_first_tenth": first[len(first) // 2],
        "us_per_run_last_tenth": last[len(last) // 2],
        "time_ratio_last_over_first": last[len(last) // 2] / first[len(first) // 2],
    }


def soak_configs(kprof, x, configs):
    bench = make_bench(kprof, x, 1, configs=range(configs))
    t0 = time.perf_counter()
    results = bench()
    wall = time.perf_counter() - t0
    rows = len(results.to_dataframe())
    return {"configs": configs, "rows": rows, "seconds": wall, "rss_bytes": rss_bytes()}


def soak_profiles(kprof, torch, x, count, metrics=None):
    bench = make_bench(kprof, x, 1, metrics=metrics)
    tenth = max(1, count // 10)
    early = None
    t0 = time.perf_counter()
    for i in range(count):
        bench()
        if i + 1 == tenth:
            early = resources(torch)
    end = resources(torch)
    figures = {"profiles": count, "seconds": time.perf_counter() - t0}
    for key in end:
        figures[key + "_after_first_tenth"] = early[key]
        figures[key + "_at_end"] = end[key]
    figures["rss_growth"] = end["rss_bytes"] / early["rss_bytes"] - 1
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument("--scale", type=float, default=1.0, help="of every count (a quick try)")
    args = parser.parse_args()

    import kprof
    import torch

    def n(count):
        return max(10, int(count * args.scale))

    x = torch.rand(4096, device="cuda")
    make_bench(kprof, x, 3)()  # warm-up: CUPTI, NVML, the kernel's module
    figures = {}
    r = figures["runs"] = soak_runs(kprof, x, calls=100, runs=n(1000))
    print(
        f"runs      {r['runs']} annotated runs: resident size +{100 * r['rss_growth']:.2f}% "
        f"after the first tenth (goal < 1%); {r['us_per_run_first_tenth']:.1f} -> "
        f"{r['us_per_run_last_tenth']:.1f} us per run ({r['time_ratio_last_over_first']:.2f}x)",
        flush=True,
    )
    c = figures["configs"] = soak_configs(kprof, x, n(10_000))
    print(
        f"configs   {c['configs']} configs in {c['seconds']:.2f} s, {c['rows']} rows, "
        f"resident {c['rss_bytes'] / 2**20:.0f} MiB",
        flush=True,
    )
    for key, count, metrics in (
        ("profiles", n(1000), None),
        ("counter_profiles", n(100), ["dram__bytes_read.sum"]),
    ):
        p = figures[key] = soak_profiles(kprof, torch, x, count, metrics)
        print(
            f"{key:17} {p['profiles']} in {p['seconds']:.1f} s: open files "
            f"{p['open_files_after_first_tenth']} -> {p['open_files_at_end']}, threads "
            f"{p['threads_after_first_tenth']} -> {p['threads_at_end']}, resident "
            f"+{100 * p['rss_growth']:.2f}%, free GPU memory "
            f"{(p['gpu_free_bytes_at_end'] - p['gpu_free_bytes_after_first_tenth']) / 2**20:+.1f}"
            " MiB",
            flush=True,
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)


if __name__ == "__main__":
    main()
