# SPDX-License-Identifier: Apache-2.0
"""Reads the kernels of a Nsight Compute report into a JSON file, in a process of its own:
``python -I _ncu_reader.py FOLDER REPORT METRIC,METRIC... OUT`` (FOLDER holds
``ncu_report.py``; OUT is the JSON file written, so that whatever the module prints does not
mix with it).

It runs as a script, importing the standard library and ``ncu_report`` alone: in a process that
had torch and pandas loaded, Nsight Compute 2025.3.1's module crashed (a segmentation fault in
``IMetric.unit()`` on the H200) where the same calls in a clean process succeed.

Each kernel that ran inside a kprof annotation (NVTX domain ``kprof``), in launch order:
``{"annotation": "outer/inner", "mangled": name, "values": {metric: [value, unit]},
"facts": {fact: value}}``. A metric the report lacks is an error (exit status 2).
"""

from __future__ import annotations

import json
import sys

# The session's facts, as Nsight Compute records them with each kernel.
FACTS = (
    ("gpu", "device__attribute_display_name"),
    ("compute_clock_khz", "device__attribute_clock_rate"),
    ("memory_clock_khz", "device__attribute_memory_clock_rate"),
)


def annotation(action) -> str:
    """The kprof annotations open at the kernel's launch, outermost first, joined by '/'."""
    state = action.nvtx_state()
    if state is None:
        return ""
    for domain_id in state.domains():
        domain = state.domain_by_id(domain_id)
        if domain.name() == "kprof":
            return "/".join(domain.push_pop_ranges())
    return ""


def kernel(action, path: str, metrics: list[str], mangled_base) -> dict:
    values = {}
    for m in metrics:
        metric = action.metric_by_name(m)
        if metric is None:
            raise LookupError(m)
        values[m] = [metric.as_double(), metric.unit()]
    facts = {}
    for fact, m in FACTS:
        metric = action.metric_by_name(m)
        if metric is not None:
            facts[fact] = metric.value()
    name = action.name(mangled_base) if mangled_base is not None else action.name()
    return {"annotation": path, "mangled": name, "values": values, "facts": facts}


def main(argv: list[str]) -> int:
    folder, path, out = argv[1], argv[2], argv[4]
    metrics = [m for m in argv[3].split(",") if m]
    sys.path.insert(0, folder)
    import ncu_report

    report = ncu_report.load_report(path)
    base = getattr(ncu_report.IAction, "NameBase_MANGLED", None)
    kernels = []
    for r in range(report.num_ranges()):
        current = report.range_by_idx(r)
        for a in range(current.num_actions()):
            action = current.action_by_idx(a)
            path = annotation(action)
            if not path:
                continue
            try:
                kernels.append(kernel(action, path, metrics, base))
            except LookupError as e:
                print(f"Nsight Compute's report has no metric {e.args[0]!r}", file=sys.stderr)
                return 2
    with open(out, "w", encoding="utf-8") as f:
        json.dump(kernels, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
