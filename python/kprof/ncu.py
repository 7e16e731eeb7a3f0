# SPDX-License-Identifier: Apache-2.0
"""``Tool.NCU``: a call of a decorated function measured by Nsight Compute, as nsight-python does.

Nsight Compute releases before 2026.2.1 cannot attach to a running process, so the script runs
again in a child process under ``ncu`` (nsight-python's launch mode): the child reaches the same
call, runs its configs ``runs`` times each inside kprof's annotations (NVTX ranges of the domain
``kprof``, which ``ncu --nvtx-include`` selects) and exits; ``ncu`` writes its report
``{output_prefix}ncu-output-{function}-{call}.ncu-rep`` and its log ``.log`` beside it. The parent
reads the report with Nsight Compute's own Python module (``ncu_report``), gives each profiled
kernel its config and run by launch order, and aggregates the records with the core's rules:
the same DataFrame as kprof's engine, derived metrics, normalisation and kernel combination
included.

The child makes every other call of a decorated function return empty results, so a script
runs on to the call being measured.
"""

from __future__ import annotations

import datetime
import glob
import hashlib
import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kprof import _version
from kprof._native import core as _core
from kprof.configs import BoundConfigs
from kprof.errors import (
    MeasurementError,
    OptionError,
    ToolError,
    ToolUnavailableError,
    UnsupportedError,
)
from kprof.ranks import rank_info
from kprof.results import ProfileResults

__all__ = [
    "CHILD_VARIABLE",
    "Kernel",
    "assign",
    "check_selections",
    "find_ncu",
    "listed",
    "ncu_command",
    "profile",
    "read_report",
    "report_module_folder",
]

#: Set in the child: the call it measures (``call_key``).
CHILD_VARIABLE = "KPROF_NCU_CHILD"
#: NVTX ranges of kprof's annotations, as ``ncu --nvtx-include`` names them.
NVTX_INCLUDE = "regex:kprof@.+/"


def _ncu_replay_mode(mode: str) -> str:
    """kprof's replay mode in ncu's words (the core's table of modes); "auto", kprof's engine's
    choice, is ncu's default here."""
    return _core.REPLAY_MODES[mode]["ncu_name"]


def find_ncu() -> str:
    """The ``ncu`` executable: ``$KPROF_NCU``, else ``ncu`` on PATH.

    Raises:
        kprof.errors.ToolUnavailableError: Neither names an executable.
    """
    given = os.environ.get("KPROF_NCU")
    path = shutil.which(given) if given else shutil.which("ncu")
    if path is None:
        where = f"KPROF_NCU={given!r} is not an executable" if given else "no ncu on PATH"
        raise ToolUnavailableError(
            f"Tool.NCU needs Nsight Compute's command line ({where}): install Nsight Compute "
            "and put ncu on PATH, or set KPROF_NCU to its path; kprof's own engine "
            "(Tool.CUPTI) needs neither"
        )
    return path


def report_module_folder(ncu: str) -> str:
    """The folder of Nsight Compute's report module (``ncu_report.py``): the ``extras/python``
    folder of the install that ``ncu`` belongs to, else of one already importable."""
    home = os.path.dirname(os.path.realpath(ncu))
    candidates = [os.path.join(home, "extras", "python")]
    # The CUDA toolkit's bin/ncu is a script that runs the newest Nsight Compute installed
    # beside the toolkit (a .run install) or under /opt/nvidia/nsight-compute (a package).
    found = glob.glob(os.path.join(home, "..", "nsight-compute*", "extras", "python"))
    found += glob.glob("/opt/nvidia/nsight-compute/*/extras/python")
    candidates += sorted(found, key=_version_key, reverse=True)
    spec = importlib.util.find_spec("ncu_report")
    if spec is not None and spec.origin:
        candidates.append(os.path.dirname(spec.origin))
    for folder in candidates:
        if os.path.exists(os.path.join(folder, "ncu_report.py")):
            return folder
    raise ToolUnavailableError(
        f"Nsight Compute's report module (ncu_report.py) is not beside {ncu} "
        f"(looked in {', '.join(candidates)}); put its extras/python folder on PYTHONPATH"
    )


def _version_key(folder: str) -> list[int]:
    """2025.3.1 in .../nsight-compute-2025.3.1/extras/python or .../2025.3.1/extras/python."""
    name = os.path.basename(os.path.dirname(os.path.dirname(folder)))
    return [int(p) for p in name.rsplit("-", 1)[-1].split(".") if p.isdigit()]


def report_paths(prefix: str, tag: str) -> tuple[str, str]:
    """nsight-python's names: ``{prefix}ncu-output-{tag}.ncu-rep`` and its ``.log``."""
    report = f"{prefix}ncu-output-{tag}.ncu-rep"
    return report, report[: -len(".ncu-rep")] + ".log"


def call_key(name: str, call_id: int, bound: BoundConfigs) -> str:
    """What tells the child which call to measure: the function, its call number and its
    configs (as the core stores them)."""
    digest = hashlib.sha1(json.dumps(bound.core_points()).encode()).hexdigest()[:16]
    return f"{name}:{call_id}:{digest}"


def listed(table: str) -> list[str]:
    """The identifiers of a table that ``ncu --list-sets`` or ``--list-sections`` prints: the
    first column of each row under the ``Identifier`` header, whose span the rule of dashes
    under the header gives. A long row goes on in lines whose first column is blank; the table
    ends at the first line that is neither."""
    lines = table.splitlines()
    header = next((i for i, line in enumerate(lines) if line.split()[:1] == ["Identifier"]), None)
    if header is None or header + 1 >= len(lines) or "---" not in lines[header + 1]:
        return []
    rule = lines[header + 1]
    start = len(rule) - len(rule.lstrip())
    end = rule.find(" ", start)
    names = []
    for line in lines[header + 2 :]:
        cell = line[start : end if end > 0 else None].strip()
        if not cell:
            if not line.strip():
                break
            continue  # a long row goes on
        if not cell.replace("_", "").isalnum():
            break  # a rule, a warning: the table is over
        names.append(cell)
    return names


def check_selections(ncu: str, metrics: Sequence[str]) -> list[str]:
    """ncu's options for the sets and sections named in ``metrics`` (``--set full``,
    ``--section Occupancy``), each checked against what this ncu lists.

    Raises:
        kprof.errors.OptionError: A name this ncu does not list, or more than one set (ncu
            takes one).
        kprof.errors.ToolError: ncu cannot list its sets or sections.
    """
    selections = _core.ncu_selections(list(metrics))
    sets = [name for kind, name in selections if kind == "set"]
    if len(sets) > 1:
        raise OptionError(
            "metrics",
            ", ".join(f"'set:{s}'" for s in sets),
            "one of Nsight Compute's sets (ncu takes one --set), with any number of sections",
        )
    known: dict[str, list[str]] = {}
    args = []
    for kind, name in selections:
        if kind not in known:
            known[kind] = _listing(ncu, kind)
        if name not in known[kind]:
            raise OptionError(
                "metrics",
                f"'{kind}:{name}'",
                f"one of Nsight Compute's {kind}s ({kind}:NAME): {', '.join(known[kind])}; or "
                "kprof's sets (kprof metrics --sets)",
            )
        args += [f"--{kind}", name]
    return args


def _listing(ncu: str, kind: str) -> list[str]:
    """What ``ncu --list-sets`` (kind "set") or ``--list-sections`` names."""
    flag = f"--list-{kind}s"
    try:
        done = subprocess.run([ncu, flag], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ToolError(f"{ncu} {flag} failed: {e}") from e
    names = listed(done.stdout) if done.returncode == 0 else []
    if not names:
        raise ToolError(
            f"{ncu} {flag} (exit status {done.returncode}) listed no {kind}s kprof could read: "
            f"{(done.stderr or done.stdout).strip()[:500]}"
        )
    return names


def ncu_command(
    ncu: str,
    report: str,
    log: str,
    options: Any,
    argv: Sequence[str],
    selections: Sequence[str] = (),
) -> list[str]:
    """The command line that runs ``argv`` (the script and its arguments) under Nsight Compute
    with the options of the call; ``selections`` are its sets and sections
    (:func:`check_selections`)."""
    return [
        ncu,
        *selections,
        "--log-file",
        log,
        "--cache-control",
        options.cache_control,
        "--clock-control",
        options.clock_control,
        "--replay-mode",
        _ncu_replay_mode(options.replay_mode),
        "--nvtx",
        "--nvtx-include",
        NVTX_INCLUDE,
        "--metrics",
        ",".join(options.measured_metrics),
        "-f",
        "-o",
        report,
        sys.executable,
        *argv,
    ]


@dataclass
class Kernel:
    """One kernel of the report: the annotation path it ran in, its name, and its values."""

    annotation: str
    name: str
    values: dict[str, tuple[float, str]]  # metric -> (value, unit)
    facts: dict[str, Any] = field(default_factory=dict)  # gpu, clocks


def assign(kernels: Sequence[Kernel], configs: int, runs: int) -> dict[str, list[Any]]:
    """The records of ``kernels`` (in launch order): each annotation's kernels are its
    ``configs * runs`` runs in order, the same number in each (nsight-python's rule).

    Raises:
        kprof.errors.MeasurementError: An annotation's kernels do not divide into its runs.
    """
    by_annotation: dict[str, list[Kernel]] = {}
    for k in kernels:
        by_annotation.setdefault(k.annotation, []).append(k)
    cols: dict[str, list[Any]] = {
        c: [] for c in ("config", "run", "annotation", "kernel", "kernel_index", "metric")
    }
    cols.update(value=[], unit=[])
    slots = configs * runs
    for annotation, ks in by_annotation.items():
        if len(ks) % slots:
            raise MeasurementError(
                f"Nsight Compute profiled {len(ks)} kernels in annotation {annotation!r} over "
                f"{configs} configs of {runs} runs: not the same number in each run"
            )
        per_run = len(ks) // slots
        for i, k in enumerate(ks):
            slot, index = divmod(i, per_run)
            for metric, (value, unit) in k.values.items():
                for name, v in (
                    ("config", slot // runs),
                    ("run", slot % runs),
                    ("annotation", annotation),
                    ("kernel", k.name),
                    ("kernel_index", index),
                    ("metric", metric),
                    ("value", value),
                    ("unit", _core.short_unit(unit)),
                ):
                    cols[name].append(v)
    return cols


def read_report(ncu: str, report: str, metrics: Sequence[str]) -> list[Kernel]:
    """Every kernel of the report that ran in a kprof annotation, in launch order, read with
    the report module of the Nsight Compute that ``ncu`` runs."""
    return read_report_from(report_module_folder(ncu), report, metrics)


def read_report_from(folder: str, report: str, metrics: Sequence[str]) -> list[Kernel]:
    """:func:`read_report` with the ``ncu_report`` of ``folder``, read by ``_ncu_reader.py`` in
    a clean process (see there why), each kernel named as kprof's engine names it (demangled by
    the core)."""
    reader = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_ncu_reader.py")
    # -I: the reader's process sees neither PYTHONPATH nor kprof's folder, only the folder of
    # ncu_report it is given.
    with tempfile.TemporaryDirectory(prefix="kprof-ncu-") as scratch:
        out = os.path.join(scratch, "kernels.json")
        done = subprocess.run(
            [sys.executable, "-I", reader, folder, report, ",".join(metrics), out],
            capture_output=True,
            text=True,
        )
        try:
            with open(out, encoding="utf-8") as f:
                kernels = json.load(f) if done.returncode == 0 else None
        except (OSError, ValueError):
            kernels = None
    if kernels is None:
        raise ToolError(
            f"reading Nsight Compute's report {report} failed (exit status "
            f"{done.returncode}): {(done.stderr or done.stdout).strip()[-2000:]}"
        )
    return [
        Kernel(k["annotation"], _core.demangle(k["mangled"]), k["values"], k["facts"])
        for k in kernels
    ]


def options_for_records(options: Any) -> Any:
    """A copy of the call's options whose metrics are those the records hold: the core derives
    and aggregates from them, as profile() does once sets are expanded (the name of a set has no
    samples)."""
    copy = options.for_call(None, None)
    copy.metrics = options.measured_metrics
    return copy


def _session(options: Any, kernels: Sequence[Kernel], runs: int) -> dict[str, Any]:
    """The session of Nsight Compute's results: the options as ncu ran them, written by the core
    (``describe_options``), and the facts of the device the report names."""
    ran = options.for_call(None, None)
    ran.replay_mode = _ncu_replay_mode(options.replay_mode)  # "auto" is ncu's default
    ran.runs = runs
    ran.thermal_mode = "off"  # kprof's thermal guard does not run under Nsight Compute
    # What the tables hold, then what only the report does (set:full, section:NAME).
    ran.metrics = list(options.measured_metrics) + [
        f"{kind}:{name}" for kind, name in _core.ncu_selections(list(options.metrics))
    ]
    facts = kernels[0].facts if kernels else {}
    session = dict(_core.describe_options(ran))
    session.update(
        gpu=str(facts.get("gpu", "")),
        host=socket.gethostname(),
        compute_clock_khz=int(facts.get("compute_clock_khz", 0)),
        memory_clock_khz=int(facts.get("memory_clock_khz", 0)),
        backend="nsight-compute",
        kprof_version=_version.version(),
        started_at=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    )
    return session


def script_argv() -> list[str]:
    """The arguments that start this script again: ``-m module ...`` for one started with
    ``python -m`` (its path alone would lose the package), else ``sys.argv``."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if spec is not None and spec.name and spec.name != "__main__":
        return ["-m", spec.name, *sys.argv[1:]]
    return list(sys.argv)


def _rank_fields(rank: dict[str, Any]) -> dict[str, Any]:
    """The session's rank fields, as kprof's engine records them."""
    return {k: rank[k] for k in ("rank", "world_size", "local_rank", "launcher")}


def _log_errors(log: str) -> str:
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            lines = [line.strip() for line in f if "ERROR" in line]
    except OSError:
        return ""
    return "; ".join(lines[:5])


def profile(
    profiler: Any, bound: BoundConfigs, options: Any, tag: str, prefix: str
) -> ProfileResults:
    """In the parent: runs the script again under ``ncu`` for this call and reads its report."""
    if profiler.settings.stopping is not None:
        raise UnsupportedError(
            "Tool.NCU runs each config a fixed number of times: runs='auto' and stopping rules "
            "need kprof's own engine (Tool.CUPTI)"
        )
    if profiler.settings.options.warmup:
        raise UnsupportedError(
            "Tool.NCU profiles every call the child makes inside kprof's annotations: warm-up "
            "calls would be measured too; leave warmup at 0, or use Tool.CUPTI"
        )
    ncu = find_ncu()
    rank = rank_info()
    report, log = report_paths(prefix, _core.rank_file_tag(tag, rank["rank"], rank["world_size"]))
    selections = check_selections(ncu, options.metrics)
    os.makedirs(os.path.dirname(report) or ".", exist_ok=True)
    env = dict(os.environ)
    env[CHILD_VARIABLE] = call_key(profiler.params.name, profiler.call_id, bound)
    command = ncu_command(ncu, report, log, options, script_argv(), selections)
    done = subprocess.run(command, env=env)
    if done.returncode != 0 or not os.path.exists(report):
        raise ToolError(
            f"Nsight Compute exited with {done.returncode} profiling {tag} "
            f"({_log_errors(log) or 'no report written'}); its log: {log}"
        )
    kernels = read_report(ncu, report, options.measured_metrics)
    runs = profiler.settings.runs
    records = assign(kernels, len(bound.values), runs)
    session = {**_session(options, kernels, runs), **_rank_fields(rank)}
    core = _core._aggregate(
        session, bound.columns, bound.core_points(), records, options_for_records(options)
    )
    results = ProfileResults(core, bound.columns, bound.values)
    results.ncu_report, results.ncu_log = report, log  # type: ignore[attr-defined]
    return results


def in_child() -> bool:
    """Whether this process is a child that ``ncu`` runs for a parent."""
    return CHILD_VARIABLE in os.environ


def child_call(profiler: Any, bound: BoundConfigs, calls: Iterable[Any]) -> ProfileResults:
    """In the child: the call being measured runs its configs ``runs`` times each and ends the
    process; any other call returns empty results."""
    if os.environ[CHILD_VARIABLE] != call_key(profiler.params.name, profiler.call_id, bound):
        return ProfileResults(_core.Results())
    for call_args, call_kwargs in calls:
        for _ in range(profiler.settings.runs):
            profiler.func(*call_args, **call_kwargs)
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        torch.cuda.synchronize()  # the last kernels end before the process does
    sys.stdout.flush()
    os._exit(0)  # the rest of the script is the parent's
