"""kprof's per-call costs in Python, each printed beside the reference measured in the same run.

  annotation  ``with kprof.annotate(name):`` entered and left outside a profile, a new object
              each time and one object reused, against the NVTX push and pop it stands for
              (the ``nvtx`` package nsight-python uses, where installed, and torch's NVTX
              binding) (goal: at most 1 us a pair)
  profile     one call of a decorated function (one config, one run, one small kernel), as an
              autotuner pays it once per candidate, against the same function undecorated:
              with the defaults, without the thermal guard, without the L2 flush
              (goal: at most 1 ms more with the defaults)

Run on a GPU:  python3 bench/hot_path.py [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

PAIRS = 200_000
CALLS = 50


def per_pair_ns(fn, pairs=PAIRS, repeats=5):
    """The median over `repeats` of fn(pairs)'s time per pair, in ns."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(pairs)
        times.append((time.perf_counter() - t0) / pairs * 1e9)
    return statistics.median(times)


def annotation_figures(torch):
    import kprof

    def kprof_pairs(n):
        for _ in range(n):
            with kprof.annotate("region"):
                pass

    def kprof_reused_pairs(n):  # one object entered again and again, as a decorator is
        region = kprof.annotate("region")
        for _ in range(n):
            with region:
                pass

    def torch_pairs(n):
        push, pop = torch.cuda.nvtx.range_push, torch.cuda.nvtx.range_pop
        for _ in range(n):
            push("region")
            pop()

    figures = {
        "kprof_ns": per_pair_ns(kprof_pairs),
        "kprof_reused_ns": per_pair_ns(kprof_reused_pairs),
        "torch_nvtx_ns": per_pair_ns(torch_pairs),
    }
    try:
        import nvtx

        def nvtx_pairs(n):
            for _ in range(n):
                with nvtx.annotate("region", domain="kprof"):
                    pass

        figures["nvtx_package_ns"] = per_pair_ns(nvtx_pairs)
    except ImportError:
        pass
    return figures


def median_ms(fn, calls=CALLS):
    fn()  # warm-up
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


VARIANTS = {
    "defaults": {},
    "thermal off": {"thermal_mode": "off"},
    "cache none": {"cache_control": "none"},
    "both off": {"thermal_mode": "off", "cache_control": "none"},
}


def profile_figures(torch):
    import kprof

    x = torch.randn(1 << 20, device="cuda")

    def body():
        with kprof.annotate("scale"):
            x.mul_(1.0)
        torch.cuda.synchronize()

    figures = {"undecorated_ms": median_ms(body)}
    for name, options in VARIANTS.items():
        bench = kprof.analyze.kernel(runs=1, verbosity=kprof.VerbosityLevel.SILENT, **options)(body)
        figures[name] = median_ms(bench)
    # The same call through the bindings alone (options built once, no Python settings,
    # configs or results): what of the fixed cost is the core's and what the decorator's.
    from kprof import _core

    options = _core.Options(verbosity=0)
    figures["_core.profile"] = median_ms(lambda: _core.profile(options, [], [[]], lambda i: body()))
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()

    import torch

    torch.zeros(1, device="cuda")
    annotation = annotation_figures(torch)
    profile = profile_figures(torch)

    print("annotation outside a profile (ns per enter + exit):")
    print(f"  kprof.annotate      {annotation['kprof_ns']:8.0f}  (goal <= 1000)")
    print(f"  the same, reused    {annotation['kprof_reused_ns']:8.0f}  (goal <= 1000)")
    for key, label in (("nvtx_package_ns", "nvtx.annotate"), ("torch_nvtx_ns", "torch nvtx")):
        if key in annotation:
            ratio = annotation["kprof_ns"] / annotation[key]
            print(f"  {label:19} {annotation[key]:8.0f}  kprof/this {ratio:.2f}")
    plain = profile["undecorated_ms"]
    print(f"one decorated call (one run of one kernel), undecorated {plain:.3f} ms:")
    for name in [*VARIANTS, "_core.profile"]:
        added = profile[name] - plain
        print(
            f"  {name:12} {profile[name]:7.3f} ms, fixed cost {added:6.3f} ms, "
            f"{profile[name] / plain:5.1f}x the undecorated call"
            + ("  (goal <= 1 ms)" if name == "defaults" else "")
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"annotation": annotation, "profile": profile}, f, indent=2)


if __name__ == "__main__":
    main()
