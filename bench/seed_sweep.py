"""What kprof adds to a timing sweep, against a CUDA-event loop and against Nsight Compute.

The seed sweep: torch fp32 matmul, n = 512, 1024, 2048, 4096, 10 runs each, cold L2.
Every mode does the same work; what differs is how it is timed:

  plain   the sweep inside NVTX ranges, untimed (the floor every tool adds to)
  events  CUDA events around each matmul, with the same L2 flush before each run
  kprof   @kprof.analyze.kernel, cache_control="all"
  ncu     the plain sweep, in a child process, under
          ncu --nvtx --nvtx-include kprof@matmul/ --metrics gpu__time_duration.sum
              --cache-control all --clock-control none
          (and the same child without ncu, so that interpreter start-up cancels out)

Added time = mode wall time - plain wall time; per kernel = added / kernels measured.
Run on a GPU:  python3 bench/seed_sweep.py [--json out.json] [--skip-ncu]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys

from wall_clock import child_wall, timed

SIZES = (512, 1024, 2048, 4096)
RUNS = 10


def make_inputs(torch):
    return {n: (torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")) for n in SIZES}


def flush_buffer(torch):
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    return torch.empty(2 * l2, dtype=torch.uint8, device="cuda")


def sweep_plain(torch, inputs):
    import kprof

    for n in SIZES:
        a, b = inputs[n]
        for _ in range(RUNS):
            with kprof.annotate("matmul"):  # outside a profile: an NVTX range only
                torch.matmul(a, b)
    torch.cuda.synchronize()


def sweep_events(torch, inputs, scratch):
    times = []
    for n in SIZES:
        a, b = inputs[n]
        for _ in range(RUNS):
            scratch.zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            torch.matmul(a, b)
            end.record()
            times.append((start, end))
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in times]


# kprof without what each part of its work costs: the thermal guard's NVML readings, the L2
# flush, and the overhead disclosure's unprofiled call of each config (kprof's defaults are timed
# on their own).
VARIANTS = {
    "kprof, thermal off": {"thermal_mode": "off"},
    "kprof, cache none": {"cache_control": "none"},
    "kprof, both off": {"thermal_mode": "off", "cache_control": "none"},
    "kprof, no disclosure": {"disclose_overhead": False},
}


def sweep_kprof(torch, inputs, **options):
    import kprof

    # cuBLAS splits the smallest products in two kernels: their total is the product's time.
    @kprof.analyze.kernel(
        configs=SIZES,
        runs=RUNS,
        combine_kernel_metrics="sum",
        verbosity=kprof.VerbosityLevel.SILENT,
        **options,
    )
    def matmul(n):
        a, b = inputs[n]
        with kprof.annotate("matmul"):
            torch.matmul(a, b)

    return matmul()


def ncu_added(skip):
    """Wall time ncu adds to the plain sweep, measured on child processes."""
    ncu = shutil.which("ncu")
    if skip or ncu is None:
        return None
    child = [sys.executable, __file__, "--child"]
    child_wall(child)  # warm the file cache
    base = min(child_wall(child) for _ in range(2))
    under = child_wall(
        [
            ncu,
            "--nvtx",
            "--nvtx-include",
            "kprof@matmul/",
            "--metrics",
            "gpu__time_duration.sum",
            "--cache-control",
            "all",
            "--clock-control",
            "none",
            *child,
        ]
    )
    return under - base


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument("--skip-ncu", action="store_true")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    import torch

    inputs = make_inputs(torch)
    if args.child:
        sweep_plain(torch, inputs)
        return
    scratch = flush_buffer(torch)
    sweep_plain(torch, inputs)  # warm-up: cuBLAS handles, kernel selection, module loads
    sweep_events(torch, inputs, scratch)
    sweep_kprof(torch, inputs)

    plain = min(timed(sweep_plain, torch, inputs)[0] for _ in range(3))
    events = min(timed(sweep_events, torch, inputs, scratch)[0] for _ in range(3))
    kprof_runs = [timed(sweep_kprof, torch, inputs) for _ in range(3)]
    kprof_wall = min(t for t, _ in kprof_runs)
    kernels = len(kprof_runs[0][1].records_dataframe())
    variants = {
        name: min(timed(lambda o=options: sweep_kprof(torch, inputs, **o))[0] for _ in range(3))
        for name, options in VARIANTS.items()
    }
    ncu = ncu_added(args.skip_ncu)

    figures = {
        "kernels": kernels,
        "plain_s": plain,
        "events_s": events,
        "kprof_s": kprof_wall,
        "events_added_ms_per_kernel": 1e3 * (events - plain) / kernels,
        "kprof_added_ms_per_kernel": 1e3 * (kprof_wall - plain) / kernels,
        "kprof_over_events_ms_per_kernel": 1e3 * (kprof_wall - events) / kernels,
        "variants_added_ms_per_kernel": {
            name: 1e3 * (wall - plain) / kernels for name, wall in variants.items()
        },
        "ncu_added_s": ncu,
        "ncu_added_ms_per_kernel": None if ncu is None else 1e3 * ncu / kernels,
    }
    if ncu is not None:
        figures["ncu_added_over_kprof_added"] = ncu / max(kprof_wall - plain, 1e-9)
    print(f"seed sweep: torch fp32 matmul n={list(SIZES)} x {RUNS} runs, {kernels} kernels")
    print(f"{'mode':8} {'wall s':>8} {'added ms/kernel':>16}")
    print(f"{'plain':8} {plain:8.3f} {'-':>16}")
    print(f"{'events':8} {events:8.3f} {figures['events_added_ms_per_kernel']:16.3f}")
    print(f"{'kprof':8} {kprof_wall:8.3f} {figures['kprof_added_ms_per_kernel']:16.3f}")
    for name, wall in variants.items():
        print(f"  {name:20} {wall:8.3f} {1e3 * (wall - plain) / kernels:10.3f}")
    if ncu is not None:
        print(f"{'ncu':8} {plain + ncu:8.3f} {figures['ncu_added_ms_per_kernel']:16.3f}")
        print(f"ncu adds {figures['ncu_added_over_kprof_added']:.0f}x the time kprof adds")
    print(
        f"kprof over the event loop: {figures['kprof_over_events_ms_per_kernel']:.3f} ms/kernel"
        " (goal <= 0.5)"
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)


if __name__ == "__main__":
    main()
