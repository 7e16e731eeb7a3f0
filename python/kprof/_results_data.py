# SPDX-License-Identifier: Apache-2.0
"""The data of a profile's results: the core's tables as pandas DataFrames, text and JSON.

Every number here was computed by the C++ core (statistics, combination of kernels, derived
and normalized metrics), and every DataFrame's columns are the core's result layout
(``kprof._core.result_layout()``, include/kprof/layout.hpp): their names, order, kinds and the
fields they come from. This module only turns each kind into its dtype and puts the original
Python config objects into the parameter columns. Plots, reports and files sit in the modules
above it; :class:`kprof.ProfileResults` joins them.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from kprof import _arguments
from kprof._layout_cells import _arrays, _cells, _column, _layout, _object_column, _shown, _Text
from kprof._native import core as _core
from kprof.errors import OutputExistsError

__all__ = ["ResultsData"]

_R = TypeVar("_R", bound="ResultsData")


class ResultsData:
    """The results of one profile as data: aggregated rows, per-run samples, raw kernel
    records and the conditions of the runs, as DataFrames (see :class:`kprof.ProfileResults`,
    which adds plots, reports and saving)."""

    def __init__(
        self,
        core: Any,
        parameters: Sequence[str] | None = None,
        config_values: Sequence[Sequence[Any]] | None = None,
        info_objects: dict[tuple[str, int, int, str], Any] | None = None,
    ) -> None:
        self._core = core
        self._info_objects = dict(info_objects or {})
        self._parameters = list(core.sweep_names if parameters is None else parameters)
        if config_values is None:
            config_values = core.sweep_points
        self._configs = [tuple(c) for c in config_values]
        if any(len(c) != len(self._parameters) for c in self._configs):
            raise ValueError("every config needs one value per parameter")

    # --- what there is ------------------------------------------------------------------------

    @property
    def core(self) -> Any:
        """The underlying ``kprof._core.Results``."""
        return self._core

    @property
    def session(self) -> dict[str, Any]:
        """Where and how the profile ran: GPU, host, clocks, backend, replay mode, cache
        control, passes, runs, metrics, versions, start time, and the conditions:
        ``clock_control``, ``thermal_mode``, ``throttle_threshold`` and the stopping rule
        (``stop_rel_half_width``, ``stop_min_runs``, ``stop_max_runs``, ``stop_time_budget_s``;
        NaN / 0 with a fixed number of runs, and ``runs`` is 0 when a rule decided);
        ``clock_source`` (where ``MeasuredClock`` came from: ``"counters"``, ``"nvml"``,
        ``"probe kernel"`` or empty) and ``profiler_seconds`` (wall time inside CUPTI's range
        profiler with counters, NaN without)."""
        return dict(self._core.session)

    @property
    def parameters(self) -> list[str]:
        """Names of the parameter columns."""
        return list(self._parameters)

    @property
    def configs(self) -> list[tuple[Any, ...]]:
        """The configs, in sweep order, as the original Python objects."""
        return list(self._configs)

    @property
    def metrics(self) -> list[str]:
        """The metrics in the rows (measured, then derived), in order of first appearance."""
        return list(dict.fromkeys(self._core.rows_columns()["metric"]))

    @property
    def empty(self) -> bool:
        return bool(self._core.empty())

    def __len__(self) -> int:
        return int(self._core.num_rows)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ResultsData):
            return NotImplemented
        return bool(self._core == other._core)

    __hash__ = None  # type: ignore[assignment]

    # --- DataFrames ---------------------------------------------------------------------------

    def _param_columns(self, config_indices: Sequence[int]) -> dict[str, pd.Series]:
        """Each parameter's value for each item: the configs' values, typed once per config
        (a sweep has far fewer configs than samples), then taken by the items' configs."""
        where = np.asarray(config_indices, dtype=np.intp)
        if len(where) == 0:  # no rows: no values to type the columns by
            return {name: pd.Series([], dtype=object) for name in self._parameters}
        return {
            name: _object_column([c[j] for c in self._configs]).take(where).reset_index(drop=True)
            for j, name in enumerate(self._parameters)
        }

    def _info_values(self) -> list[tuple[str, str, int, int, str, Any]]:
        """Every info collector value: (name, scope, config, run, annotation, value), the
        value as collected (the object, a float, or None when there was none)."""
        v = self._core.info_values_columns()
        out = []
        for name, scope, config, run, annotation, value, text in zip(
            v["name"],
            v["scope"],
            v["config"],
            v["run"],
            v["annotation"],
            v["value"],
            v["text"],
            strict=True,
        ):
            key = (name, config, run, annotation)
            if key in self._info_objects:
                obj = self._info_objects[key]
            elif text:
                obj = text
            else:
                obj = None if math.isnan(value) else value
            out.append((name, scope, config, run, annotation, obj))
        return out

    def _info_row_columns(self, annotations: Sequence[str], configs: Sequence[int]) -> dict:
        """The rows' info collector columns, in nsight-python's naming. The statistics are the
        core's; a one-value column shows the first value of the row's (the object itself
        when this process collected it)."""
        columns: dict[str, Any] = {}
        core_columns = self._core.info_columns()
        values = self._info_values()
        for name, numeric in self._core.info_layout():
            if numeric:
                for suffix in ("_Avg", "_Std", "_Min", "_Max"):
                    columns[name + suffix] = np.asarray(core_columns[name + suffix], dtype=float)
                continue
            mine = [v for v in values if v[0] == name and v[5] is not None]
            cells = []
            for annotation, config, core_value in zip(
                annotations, configs, core_columns[name], strict=True
            ):
                first = next((v[5] for v in mine if _belongs(v, annotation, config)), core_value)
                cells.append(first)
            columns[name] = _object_column(cells)
        return columns

    def _info_raw_columns(
        self, annotations: Sequence[str], configs: Sequence[int], runs: Sequence[int]
    ) -> dict[str, Any]:
        """One column per info collector: its value for each (annotation, config, run)."""
        values = self._info_values()
        names = list(dict.fromkeys(v[0] for v in values))
        lookup: dict[tuple[str, int, int, str], Any] = {}
        once: dict[str, Any] = {}
        scopes: dict[str, str] = {}
        for name, scope, config, run, annotation, obj in values:
            scopes.setdefault(name, scope)
            if scope == "once":
                once.setdefault(name, obj)
            else:
                lookup[(name, config, run, annotation)] = obj
        columns: dict[str, Any] = {}
        for name in names:
            scope = scopes[name]
            cells = []
            for a, c, k in zip(annotations, configs, runs, strict=True):
                if scope == "once":
                    cells.append(once.get(name))
                elif scope == "config":
                    cells.append(lookup.get((name, c, -1, "")))
                elif scope == "run":
                    cells.append(lookup.get((name, c, k, "")))
                else:
                    cells.append(lookup.get((name, c, k, a)))
            columns[name] = _object_column(cells)
        return columns

    def _run_values(self, items: Mapping[str, Sequence[Any]]) -> Callable[[str], Any]:
        """The values of a run field for each item's (config, run); missing (NaN, or -1 for
        integers and flags) where no run. Items find their run through a table indexed by
        (config, run): a dictionary lookup per item costs more than the rest of a million
        samples' DataFrame."""
        r = _arrays(self._core, "runs")
        configs = np.asarray(items["config"], dtype=np.int64)
        runs = np.asarray(items["run"], dtype=np.int64)
        run_configs = np.asarray(r["config"], dtype=np.int64)
        run_runs = np.asarray(r["run"], dtype=np.int64)
        width = 1 + max(runs.max(initial=0), run_runs.max(initial=0))
        height = 1 + max(configs.max(initial=0), run_configs.max(initial=0))
        table = np.full((height, width), len(run_configs), dtype=np.int64)  # the missing value
        table[run_configs, run_runs] = np.arange(len(run_configs))
        known = (configs >= 0) & (runs >= 0)
        where = np.full(len(configs), len(run_configs), dtype=np.int64)
        where[known] = table[configs[known], runs[known]]

        def values(field: str) -> Any:
            column = r[field]
            missing = np.nan if column.dtype.kind == "f" else -1
            return np.append(column, np.asarray(missing, dtype=column.dtype))[where]

        return values

    def _session_values(self, items: Mapping[str, Sequence[Any]]) -> Callable[[str], Any]:
        """The values of a session field for each item's config: the session of its part in
        merged results (:func:`kprof.merge`), else the one session. Text comes as codes into
        the parts' values, numbers as an array: a column of a million items, built once."""
        n = len(items["config"])
        if self._core.parts:
            sessions = [p["session"] for p in self._core.parts]
            configs = np.asarray(items["config"]).tolist()
            where = np.asarray(self._core.part_indices(configs), dtype=np.int64)
        else:
            sessions = [self._core.session]
            where = np.zeros(n, dtype=np.int64)

        def values(field: str) -> Any:
            per_part = [s[field] for s in sessions]
            if all(isinstance(v, str) for v in per_part):
                distinct = list(dict.fromkeys(per_part))
                codes = np.asarray([distinct.index(v) for v in per_part], dtype=np.int32)
                return _Text(codes[where], distinct)
            numbers = np.asarray(per_part)
            if numbers.dtype.kind not in "iuf":  # not all numbers of one kind
                numbers = np.asarray(per_part, dtype=object)
            return numbers[where]

        return values

    def _frame(self, table: str, items: Mapping[str, Sequence[Any]]) -> pd.DataFrame:
        """The DataFrame of one of the core's tables, its columns in the layout's order."""
        n = len(items["config"])
        data = self._frame_columns(table, items, keep_text=False)
        return pd.DataFrame({k: _column(v, n) for k, v in data.items()})

    def _table_columns(self, table: str) -> dict[str, Any]:
        """The columns of :meth:`to_dataframe` (``"rows"``) or :meth:`raw_dataframe`
        (``"samples"``) by name, text kept as codes into its values (``_Text``): for writers
        that keep text encoded, such as Parquet's."""
        return self._frame_columns(table, _arrays(self._core, table), keep_text=True)

    def _frame_columns(
        self, table: str, items: Mapping[str, Sequence[Any]], keep_text: bool
    ) -> dict[str, Any]:
        columns = _layout(table)
        shown = _shown(columns, items)
        run_values = session_values = None
        data: dict[str, Any] = {}
        for c in columns:
            if c.shown not in shown:
                continue
            if c.kind == "parameters":
                data.update(self._param_columns(items[c.field]))
            elif c.kind == "info" and c.source == "item":
                data.update(self._info_row_columns(items["annotation"], items["config"]))
            elif c.kind == "info":
                data.update(
                    self._info_raw_columns(items["annotation"], items["config"], items["run"])
                )
            elif c.source == "session":
                session_values = session_values or self._session_values(items)
                data[c.name] = _cells(c.kind, session_values(c.field), keep_text)
            elif c.source == "run":
                run_values = run_values or self._run_values(items)
                data[c.name] = _cells(c.kind, run_values(c.field), keep_text)
            else:
                data[c.name] = _cells(c.kind, items[c.field], keep_text)
        return data

    def to_dataframe(self) -> pd.DataFrame:
        """The aggregated results: one row per (annotation, config, metric), and per kernel
        in per-kernel mode.

        Columns, nsight-python's first and in its order: ``Annotation``, ``Metric``, one
        column per parameter (the original config objects), ``AvgValue``, ``StdDev`` (sample,
        n-1; NaN for one run), ``MinValue``, ``MaxValue``, ``NumRuns`` (runs with a value;
        failed runs are left out), ``Kernel`` (``"k1|k2"`` when kernels were combined),
        ``GPU``, ``Host``, ``ComputeClock`` and ``MemoryClock`` (rated clocks, kHz), ``Unit``,
        ``CI95_Lower`` and ``CI95_Upper`` (Student-t interval of the mean, not nsight-python's
        z interval), ``RelativeStdDevPct``, ``StableMeasurement`` (RSD < 2 %; a nullable
        boolean, ``pd.NA`` when undefined), ``Normalized`` (False, or the baseline
        annotation), ``NormalizationValue`` (only when normalizing: the baseline's mean),
        ``Geomean`` (over the configs of the annotation and metric). Info collectors' columns
        come after ``Unit``, as in nsight-python: ``<name>_Avg``, ``<name>_Std``,
        ``<name>_Min``, ``<name>_Max`` for numbers per config, run or annotation, ``<name>``
        for once-scope values and values that are not numbers.

        Then kprof's own: ``Median``, ``KernelIndex`` (per-kernel mode only), ``Backend``,
        ``ReplayMode``, ``CacheControl``, ``Passes``, and the conditions of the config's
        runs: ``RunsDone`` (runs made, failed ones included), ``StoppedBy`` (``"runs"``, or
        with a stopping rule ``"precision"``, ``"max_runs"``, ``"time_budget"``),
        ``MeasuredClock`` (mean SM clock of the runs as NVML read it, kHz like
        ``ComputeClock``), ``Temperature`` (mean GPU temperature, degrees C),
        ``ThrottledRuns`` (runs whose clock was below 75% of ``ComputeClock``); NaN without
        NVML. Last, ``Rank`` (the process's rank in its job, 0 alone) and ``Device`` (the CUDA
        ordinal of the GPU): in merged results (:func:`kprof.merge`) each row's own.
        """
        return self._frame("rows", _arrays(self._core, "rows"))

    def runs_dataframe(self) -> pd.DataFrame:
        """One row per run of the benchmark function (kprof only): ``Config`` (index into
        the sweep), ``Run``, ``Seconds`` (wall time of the call), ``ThermalPause`` (seconds the
        thermal guard paused before it), ``MeasuredClock`` (kHz; with counters the mean clock
        of the run's kernels, else NVML's reading after the run, or a probe kernel's where NVML
        has none; NaN when the GPU idled then; ``session["clock_source"]`` says which),
        ``Temperature`` (degrees C), ``ClockEventReasons`` (NVML's clock event / throttle
        reason bits), ``Throttled`` (``MeasuredClock``
        below the threshold share of ``ComputeClock``, 75% by default, NVBench's rule), then
        the parameter columns. NaN / ``<NA>`` where NVML could not read."""
        return self._frame("runs", self._core.runs_columns())

    def raw_dataframe(self) -> pd.DataFrame:
        """One row per (annotation, config, run, metric): the values the statistics were
        computed from, after kernels were combined and metrics derived (NaN for failed runs).

        Columns: nsight-python's ``profiled_data`` layout ``Annotation``, ``Value``,
        ``Metric``, ``Kernel``, ``GPU``, ``Host``, ``ComputeClock``, ``MemoryClock``,
        ``Unit``, one column per info collector (the value collected for that run, config or
        annotation), then ``Run`` (from 0), ``KernelIndex`` (per-kernel mode only), the run's
        conditions ``MeasuredClock``, ``Temperature``, ``ClockEventReasons``, ``Throttled``
        (see :meth:`runs_dataframe`), and the parameter columns last.
        """
        return self._frame("samples", _arrays(self._core, "samples"))

    def records_dataframe(self) -> pd.DataFrame:
        """The raw records: one row per measured kernel, run and metric, before kernels were
        combined (kprof only). Columns: ``Annotation`` (the path, ``"outer/inner"`` when
        nested), ``Kernel``, ``KernelIndex`` (launch order inside the region in that run),
        ``Run``, ``Metric``, ``Value``, ``Unit``, then the parameter columns."""
        return self._frame("records", _arrays(self._core, "records"))

    # --- analysis -------------------------------------------------------------------------------

    def analysis(self) -> pd.DataFrame:
        """What limits each region: one row per (annotation, config), and per kernel with
        ``per_kernel=True``, from results that measured ``metrics=["set:analysis"]``.

        The verdict is Nsight Compute's Speed-of-Light rule on the same counters, so both tools
        say the same of a kernel: SM and memory throughput both under 60% of peak is
        ``"latency"`` (``Verdict`` ``"Small Grid"`` under one wave per SM, else ``"Latency
        Issue"``); otherwise the higher one bounds the kernel (``"High Compute Throughput"``,
        ``"High Memory Throughput"`` 10 points or more apart, ``"Balanced Throughput"`` closer,
        ``"High Throughput"`` at 80% or more).

        Columns: ``Annotation``, ``Kernel``, ``KernelIndex`` (per kernel only), ``Bound``
        (``"compute"``, ``"memory"`` or ``"latency"``), ``Verdict``, ``SMThroughputPct``,
        ``MemoryThroughputPct``, ``DRAMThroughputPct``, ``LimitingUnit`` and
        ``LimitingUnitPct`` (the busiest of DRAM, L2, L1/TEX and the FMA, ALU, FP64, tensor and
        load/store pipes), ``AchievedOccupancyPct``, ``TheoreticalOccupancyPct`` and
        ``OccupancyLimiter`` (registers, shared memory, block size or blocks per SM),
        ``WavesPerSM``, ``ArithmeticIntensity`` (FLOP per DRAM byte), ``Precision``
        (``"tensor"``, ``"fp32"``, ``"fp64"`` or ``"fp16"``: of the precisions that did work,
        the one closest to its peak), ``AchievedTFLOPs``, ``PeakTFLOPs`` (at the measured
        clock), ``RooflineTFLOPs`` (the roofline at that intensity), ``TensorTFLOPs`` and
        ``TensorPeakTFLOPs``, ``FP32TFLOPs``, ``FP64TFLOPs`` and ``FP16TFLOPs`` with their
        ``...PeakTFLOPs``, ``DRAMTBs`` and ``DRAMPeakTBs``, ``Advice`` (a sentence per
        finding), and the parameter columns. FLOP outside the tensor cores come from SASS
        instruction counters that need the code instrumented (``set:flop``, counted by kprof
        where CUPTI 13.5 is loaded, else under ``kprof.Tool.NCU``; NaN where not measured:
        docs/analysis.md).

        Raises:
            kprof.errors.OptionError: The results lack metrics of set:analysis (the message
                names them), or were normalized.
        """
        return self._frame("analysis", self._core.analysis_columns())

    def stalls(self) -> pd.DataFrame:
        """Why each region's warps waited, from results that sampled warps
        (``metrics=["set:source"]``): a row per region (annotation and config, and kernel per
        kernel) and stall reason with samples, most first.

        Every 2^N cycles each SM reports one of its warps and why it was not issued; a reason's
        share of a region's samples is the share of its warps' time spent on it (Nsight
        Compute's warp-state sampling, on the same CUPTI). ``long_scoreboard`` is waiting for
        global or local memory, ``barrier`` for sibling warps at ``__syncthreads``, ``wait`` for
        a fixed-latency dependency, ``math_pipe_throttle`` for a busy math pipe, ``selected``
        the warp issuing (no stall): docs/source.md lists them all.

        Columns: ``Annotation``, ``Kernel``, ``KernelIndex`` (per kernel only), ``Region`` (as
        reports name it), ``Reason``, ``Samples``, ``SharePct`` (of the region's samples; the
        plain reasons add up to 100) and the parameter columns.

        Raises:
            kprof.errors.OptionError: The results hold no warp samples, or were normalized.
        """
        return self._frame("stalls", self._core.stalls_columns())

    def source_dataframe(self) -> pd.DataFrame:
        """Where each region's warps waited, from results that sampled warps
        (``metrics=["set:source"]``): a row per region and sampled instruction, most samples
        first.

        Columns: ``Annotation``, ``Kernel``, ``Region`` (as reports name it), ``PcOffset`` (bytes
        from the function's start), ``Sass`` (the instruction's opcode; None where the module's
        code or nvdisasm was missing), ``File`` and ``Line`` (None and 0 where the code has no
        line information: build CUDA C++ with ``-lineinfo``; cuBLAS's and PyTorch's own kernels
        have none), ``Samples`` (each sampled warp counts once), ``SharePct`` (of the region's
        samples), ``TopReason`` (the stall reason most of them had), the parameter columns, then
        one column per stall reason asked for with the instruction's samples of it, most sampled
        reason first (the ``_not_issued`` variants where asked for by name).

        A line of a few samples says little: with N samples, a share is known to about
        ``100 / sqrt(N)`` percent of itself.

        Raises:
            kprof.errors.OptionError: The results hold no sampled instructions.
        """
        items = self._core.instruction_columns()
        shares = self._frame("instructions", items)
        lines = self._core.source_columns()
        # An instruction of a region: its config, annotation, kernel, module and offset (the
        # parameters may repeat across merged ranks, or hold lists).
        fields = ("config", "annotation", "kernel", "cubin", "pc_offset")
        key = pd.MultiIndex.from_arrays([items[f] for f in fields])
        by_reason = pd.DataFrame({"Reason": lines["reason"], "Samples": lines["samples"]})
        by_reason.index = pd.MultiIndex.from_arrays([lines[f] for f in fields])
        reasons = by_reason.set_index("Reason", append=True)["Samples"]
        reasons = reasons.groupby(level=[*range(len(fields)), len(fields)], sort=False).sum()
        table = reasons.unstack(len(fields), fill_value=0.0)
        order = by_reason.groupby("Reason")["Samples"].sum().sort_values(ascending=False)
        table = table.reindex(index=key, columns=list(order.index), fill_value=0.0)
        for reason in order.index:
            name = reason if reason not in shares.columns else f"{reason} (samples)"
            shares[name] = table[reason].to_numpy()
        return shares

    # --- ranks ----------------------------------------------------------------------------------

    @property
    def ranks(self) -> list[int]:
        """The ranks the results come from: ``[session["rank"]]``, or every rank of merged
        results (:func:`kprof.merge`, :func:`kprof.gather`)."""
        return list(self._core.ranks())

    @property
    def parts(self) -> list[dict[str, Any]]:
        """Merged results: per part, ``first_config``, ``configs`` (how many) and the
        ``session`` it was measured in; empty for the results of one profile."""
        return list(self._core.parts)

    def imbalance(self) -> pd.DataFrame:
        """Where ranks measured the same region, metric and config: the slowest and the fastest
        rank. Only metrics of time, and only where two ranks or more measured.

        Columns: ``Annotation``, ``Metric``, ``Kernel``, ``KernelIndex`` (per-kernel mode), the
        parameter columns, ``Ranks`` (how many measured it), ``SlowestRank`` and ``Slowest``
        (its mean), ``FastestRank`` and ``Fastest``, ``Ratio`` (slowest / fastest) and
        ``Unit``. Empty for the results of one rank.
        """
        return self._frame("imbalance", self._core.imbalance_columns())

    def explain(self) -> str:
        """:meth:`analysis` as text: a table and the advice for each region, as ``kprof
        report FILE --explain`` prints it."""
        return str(self._core.analysis_text())

    def source_text(self, per_region: int = 10) -> str:
        """:meth:`source_dataframe` as text: each region's ``per_region`` hottest instructions
        with their share, the reason most of their samples had, file:line and SASS, and the
        line's text where the file can be read, as ``kprof report FILE --source`` prints it."""
        return str(self._core.source_text(per_region))

    def stalls_text(self) -> str:
        """:meth:`stalls` as text: each region's reasons over 1% with a bar, as ``kprof report
        FILE --stalls`` prints it."""
        return str(self._core.stalls_text())

    # --- text -----------------------------------------------------------------------------------

    def table(self) -> str:
        """An aligned text table of the rows, values scaled to readable units."""
        return str(self._core.table())

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        return self.table()

    # --- files ----------------------------------------------------------------------------------

    def to_json(self) -> str:
        """The whole result (session, sweep, records, samples, rows) as one JSON document."""
        return str(self._core.to_json())

    def to_google_benchmark_json(self, time_unit: str = "ns") -> str:
        """The result as Google Benchmark's JSON (``--benchmark_format=json``), which its
        ``tools/compare.py`` and CI dashboards read: a benchmark per annotation and config, a
        repetition per run, the mean, median and stddev aggregates, the duration as
        ``real_time`` in ``time_unit`` (``"ns"``, ``"us"``, ``"ms"`` or ``"s"``), every other
        metric as a counter. ``kprof export FILE`` writes the same (docs/cli.md).

        Raises:
            kprof.errors.OptionError: ``time_unit`` is none of those.
            kprof.errors.FormatError: The results are normalized, or hold no durations.
        """
        unit = _arguments.text("ProfileResults.to_google_benchmark_json", "time_unit", time_unit)
        return str(self._core.to_google_benchmark_json(unit))

    def to_trace(self, path: str | os.PathLike[str] | None = None, overwrite: bool = False) -> str:
        """The kernels as a Chrome trace, which ui.perfetto.dev and chrome://tracing open: a
        slice per kernel at its GPU time on a track per stream, the annotations around them
        (nested ones nest), the configs and runs; times in microseconds from the first kernel.
        Written whole to ``path`` when given (then the path is returned), else returned as
        text. An existing file is replaced only with ``overwrite=True``. ``kprof export FILE
        --trace OUT.json`` writes the same.

        Raises:
            kprof.errors.FormatError: The kernels carry no GPU timestamps (counters from the
                range profiler, or results saved before kprof kept them).
            kprof.errors.OutputExistsError: ``path`` exists and ``overwrite`` is not True.
        """
        if path is None:
            return str(self._core.to_chrome_trace_json())
        path = _arguments.path("ProfileResults.to_trace", "path", path)
        overwrite = _arguments.flag("overwrite", overwrite)
        if os.path.exists(path) and not overwrite:
            raise OutputExistsError(f"{path} exists; pass overwrite=True to replace it")
        self._core.write_chrome_trace(path)
        return path

    @classmethod
    def from_json(cls: type[_R], text: str) -> _R:
        """Results from the JSON document :meth:`to_json` gives (or a saved file's text).

        Raises:
            kprof.errors.FormatError: ``text`` is not a kprof results document.
        """
        text = _arguments.text("ProfileResults.from_json", "text", text)
        return cls(_core.Results.from_json(text))

    def write_csv(self, prefix: str | os.PathLike[str], tag: str) -> list[str]:
        """Writes nsight-python's CSV files, ``<prefix>profiled_data-<tag>.csv`` (per run)
        and ``<prefix>processed_data-<tag>.csv`` (aggregated), plus kprof's
        ``<prefix>records-<tag>.csv`` (raw records) and ``<prefix>session-<tag>.csv``. A
        missing folder in ``prefix`` is created. Returns the paths written."""
        prefix = _arguments.path("ProfileResults.write_csv", "prefix", prefix)
        tag = _arguments.text("ProfileResults.write_csv", "tag", tag)
        folder = os.path.dirname(prefix)
        if folder:
            os.makedirs(folder, exist_ok=True)
        return list(self._core.write_csv(prefix, tag))

    @classmethod
    def read_csv(cls: type[_R], prefix: str | os.PathLike[str], tag: str) -> _R:
        """Reads the files written by :meth:`write_csv` back."""
        prefix = _arguments.path("ProfileResults.read_csv", "prefix", prefix)
        tag = _arguments.text("ProfileResults.read_csv", "tag", tag)
        return cls(_core.Results.read_csv(prefix, tag))


def _belongs(value: tuple[str, str, int, int, str, Any], annotation: str, config: int) -> bool:
    """Whether an info collector value belongs to the row of (annotation, config)."""
    _, scope, c, _, a, _ = value
    if scope == "once":
        return True
    return c == config and (scope != "annotation" or a == annotation)
