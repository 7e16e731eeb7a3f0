# SPDX-License-Identifier: Apache-2.0
"""``ProfileResults``: what a profile returns, as pandas DataFrames, text and files.

Every number here was computed by the C++ core (statistics, combination of kernels, derived
and normalized metrics); this module only arranges the core's columns into DataFrames and puts
the original Python config objects into the parameter columns.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from kprof._native import core as _core
from kprof.errors import OutputExistsError

__all__ = ["ProfileResults", "load"]

#: nsight-python's processed columns, in its order (the parameter columns go after Metric).
_NSIGHT_STAT_COLUMNS = [
    "AvgValue",
    "StdDev",
    "MinValue",
    "MaxValue",
    "NumRuns",
    "Kernel",
    "GPU",
    "Host",
    "ComputeClock",
    "MemoryClock",
    "Unit",
    "CI95_Lower",
    "CI95_Upper",
    "RelativeStdDevPct",
    "StableMeasurement",
    "Normalized",
]


def _object_column(values: Sequence[Any]) -> pd.Series:
    """A column of arbitrary Python objects (tuples, tensors, dtypes...) kept as they are,
    with plain numbers and strings given their natural dtype."""
    arr = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        arr[i] = v  # element by element: sequences must not be broadcast
    return pd.Series(arr, dtype=object).infer_objects()


def _units(units: Sequence[str]) -> list[str | None]:
    # A derived metric without a unit has no unit (nsight-python: NaN), not an empty string.
    return [u if u else None for u in units]


class ProfileResults:
    """The results of one profile: aggregated rows, per-run samples and raw kernel records.

    Returned by functions decorated with :func:`kprof.analyze.kernel`, by :func:`kprof.load`,
    and attached to errors raised mid-sweep as ``partial_results``.

    - :meth:`to_dataframe`: one row per (annotation, config, metric), or per kernel as well
      with ``per_kernel=True``, with nsight-python's columns first.
    - :meth:`raw_dataframe`: one row per (annotation, config, run, metric): nsight-python's
      ``profiled_data`` layout.
    - :meth:`records_dataframe`: one row per measured kernel and run (kprof only).
    - :meth:`table`, ``str(results)``: an aligned text table.
    - :meth:`save` / :func:`kprof.load`: JSON that round-trips exactly;
      :meth:`write_csv`: nsight-python's CSV files.

    Parameter columns hold the original Python objects of the configs (tuples, dtypes,
    tensors...). Saved files hold them as the core stores them: integers, floats, and
    ``str(obj)`` for anything else; results read back show those.
    """

    def __init__(
        self,
        core: Any,
        parameters: Sequence[str] | None = None,
        config_values: Sequence[Sequence[Any]] | None = None,
    ) -> None:
        self._core = core
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
        control, passes, runs, metrics, versions, start time."""
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
        if not isinstance(other, ProfileResults):
            return NotImplemented
        return bool(self._core == other._core)

    __hash__ = None  # type: ignore[assignment]

    # --- DataFrames ---------------------------------------------------------------------------

    def _param_columns(self, config_indices: Sequence[int]) -> dict[str, pd.Series]:
        return {
            name: _object_column([self._configs[i][j] for i in config_indices])
            for j, name in enumerate(self._parameters)
        }

    def _context(self, n: int) -> dict[str, list[Any]]:
        s = self._core.session
        return {
            "GPU": [s["gpu"]] * n,
            "Host": [s["host"]] * n,
            "ComputeClock": [s["compute_clock_khz"]] * n,
            "MemoryClock": [s["memory_clock_khz"]] * n,
        }

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
        ``Geomean`` (over the configs of the annotation and metric).

        Then kprof's own: ``Median``, ``KernelIndex`` (per-kernel mode only), ``Backend``,
        ``ReplayMode``, ``CacheControl``, ``Passes``.
        """
        rows = self._core.rows_columns()
        n = len(rows["annotation"])
        session = self._core.session
        normalized = any(rows["normalized_against"])
        per_kernel = any(k >= 0 for k in rows["kernel_index"])

        data: dict[str, Any] = {
            "Annotation": rows["annotation"],
            "Metric": rows["metric"],
        }
        data.update(self._param_columns(rows["config"]))
        data.update(
            {
                "AvgValue": np.asarray(rows["mean"], dtype=float),
                "StdDev": np.asarray(rows["stddev"], dtype=float),
                "MinValue": np.asarray(rows["min"], dtype=float),
                "MaxValue": np.asarray(rows["max"], dtype=float),
                "NumRuns": np.asarray(rows["num_runs"], dtype=np.int64),
                "Kernel": rows["kernel"],
            }
        )
        data.update(self._context(n))
        data.update(
            {
                "Unit": _units(rows["unit"]),
                "CI95_Lower": np.asarray(rows["ci95_lower"], dtype=float),
                "CI95_Upper": np.asarray(rows["ci95_upper"], dtype=float),
                "RelativeStdDevPct": np.asarray(rows["rel_stddev_pct"], dtype=float),
                "StableMeasurement": pd.array(rows["stable"], dtype="boolean"),
                "Normalized": _object_column(
                    [a if a else False for a in rows["normalized_against"]]
                ),
            }
        )
        if normalized:
            data["NormalizationValue"] = np.asarray(rows["normalization_value"], dtype=float)
        data["Geomean"] = np.asarray(rows["geomean"], dtype=float)
        data["Median"] = np.asarray(rows["median"], dtype=float)
        if per_kernel:
            data["KernelIndex"] = np.asarray(rows["kernel_index"], dtype=np.int64)
        data.update(
            {
                "Backend": [session["backend"]] * n,
                "ReplayMode": [session["replay_mode"]] * n,
                "CacheControl": [session["cache_control"]] * n,
                "Passes": np.full(n, session["passes"], dtype=np.int64),
            }
        )
        return pd.DataFrame({k: _column(v, n) for k, v in data.items()})

    def raw_dataframe(self) -> pd.DataFrame:
        """One row per (annotation, config, run, metric): the values the statistics were
        computed from, after kernels were combined and metrics derived (NaN for failed runs).

        Columns: nsight-python's ``profiled_data`` layout ``Annotation``, ``Value``,
        ``Metric``, ``Kernel``, ``GPU``, ``Host``, ``ComputeClock``, ``MemoryClock``,
        ``Unit``, then ``Run`` (from 0), ``KernelIndex`` (per-kernel mode only), and the
        parameter columns last.
        """
        s = self._core.samples_columns()
        n = len(s["annotation"])
        data: dict[str, Any] = {
            "Annotation": s["annotation"],
            "Value": np.asarray(s["value"], dtype=float),
            "Metric": s["metric"],
            "Kernel": s["kernel"],
        }
        data.update(self._context(n))
        data["Unit"] = _units(s["unit"])
        data["Run"] = np.asarray(s["run"], dtype=np.int64)
        if any(k >= 0 for k in s["kernel_index"]):
            data["KernelIndex"] = np.asarray(s["kernel_index"], dtype=np.int64)
        data.update(self._param_columns(s["config"]))
        return pd.DataFrame({k: _column(v, n) for k, v in data.items()})

    def records_dataframe(self) -> pd.DataFrame:
        """The raw records: one row per measured kernel, run and metric, before kernels were
        combined (kprof only). Columns: ``Annotation`` (the path, ``"outer/inner"`` when
        nested), ``Kernel``, ``KernelIndex`` (launch order inside the region in that run),
        ``Run``, ``Metric``, ``Value``, ``Unit``, then the parameter columns."""
        r = self._core.records_columns()
        n = len(r["annotation"])
        data: dict[str, Any] = {
            "Annotation": r["annotation"],
            "Kernel": r["kernel"],
            "KernelIndex": np.asarray(r["kernel_index"], dtype=np.int64),
            "Run": np.asarray(r["run"], dtype=np.int64),
            "Metric": r["metric"],
            "Value": np.asarray(r["value"], dtype=float),
            "Unit": _units(r["unit"]),
        }
        data.update(self._param_columns(r["config"]))
        return pd.DataFrame({k: _column(v, n) for k, v in data.items()})

    # --- text -----------------------------------------------------------------------------------

    def table(self) -> str:
        """An aligned text table of the rows, values scaled to readable units."""
        return str(self._core.table())

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        return self.table()

    def _repr_html_(self) -> str:
        return str(self.to_dataframe()._repr_html_())

    # --- files ----------------------------------------------------------------------------------

    def to_json(self) -> str:
        """The whole result (session, sweep, records, samples, rows) as one JSON document."""
        return str(self._core.to_json())

    @classmethod
    def from_json(cls, text: str) -> ProfileResults:
        return cls(_core.Results.from_json(text))

    def save(self, path: str | os.PathLike[str], overwrite: bool = False) -> str:
        """Writes the results to a JSON file that :func:`kprof.load` reads back exactly.

        Args:
            path: The file to write. Missing parent folders are created.
            overwrite: Replace an existing file. Without it an existing file raises
                :class:`kprof.errors.OutputExistsError` (a ``FileExistsError``).

        Returns:
            The path written.
        """
        path = os.fspath(path)
        if os.path.exists(path) and not overwrite:
            raise OutputExistsError(f"{path} exists; pass overwrite=True to replace it")
        parent = os.path.dirname(path)
        if parent:
            os.makedirs(parent, exist_ok=True)
        self._core.write_json(path)
        return path

    def write_csv(self, prefix: str | os.PathLike[str], tag: str) -> list[str]:
        """Writes nsight-python's CSV files, ``<prefix>profiled_data-<tag>.csv`` (per run)
        and ``<prefix>processed_data-<tag>.csv`` (aggregated), plus kprof's
        ``<prefix>records-<tag>.csv`` (raw records) and ``<prefix>session-<tag>.csv``. A
        missing folder in ``prefix`` is created. Returns the paths written."""
        prefix = os.fspath(prefix)
        folder = os.path.dirname(prefix)
        if folder:
            os.makedirs(folder, exist_ok=True)
        return list(self._core.write_csv(prefix, tag))

    @classmethod
    def read_csv(cls, prefix: str | os.PathLike[str], tag: str) -> ProfileResults:
        """Reads the files written by :meth:`write_csv` back."""
        return cls(_core.Results.read_csv(os.fspath(prefix), tag))


def _column(values: Any, n: int) -> Any:
    # Empty lists would become float columns; the rows' types matter only when there are rows.
    if n == 0 and isinstance(values, list):
        return pd.Series(values, dtype=object)
    return values


def load(path: str | os.PathLike[str]) -> ProfileResults:
    """Reads results saved with :meth:`ProfileResults.save` (or written by the C++ API's
    ``Results::write_json`` or the ``kprof`` command). The parameter columns hold the saved
    values (int, float or str).

    Raises:
        kprof.errors.FormatError: The file is missing, malformed, or of an unknown version.
    """
    return ProfileResults(_core.Results.read_json(os.fspath(path)))
