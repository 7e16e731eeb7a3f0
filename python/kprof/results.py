# SPDX-License-Identifier: Apache-2.0
"""``ProfileResults``: what a profile returns, with its plots, reports and files.

The data (DataFrames, text, JSON and CSV) is :class:`kprof._results_data.ResultsData`'s; this
module sits above the modules that draw (:mod:`kprof.visualization`, :mod:`kprof.roofline`),
render (:mod:`kprof.report`) and save (:mod:`kprof._saving`) results and gives them their
methods.
"""

from __future__ import annotations

import os
from typing import Any

from kprof import _saving, errors, report, roofline, visualization
from kprof._results_data import ResultsData

__all__ = ["ProfileResults", "load"]


class ProfileResults(ResultsData):
    """The results of one profile: aggregated rows, per-run samples and raw kernel records.

    Returned by functions decorated with :func:`kprof.analyze.kernel`, by :func:`kprof.load`,
    and attached to errors raised mid-sweep as ``partial_results``.

    - :meth:`to_dataframe`: one row per (annotation, config, metric), or per kernel as well
      with ``per_kernel=True``, with nsight-python's columns first.
    - :meth:`raw_dataframe`: one row per (annotation, config, run, metric): nsight-python's
      ``profiled_data`` layout.
    - :meth:`records_dataframe`: one row per measured kernel and run (kprof only).
    - :meth:`runs_dataframe`: one row per run: its time, thermal pause, measured SM clock,
      temperature and clock event reasons (kprof only).
    - :meth:`table`, ``str(results)``: an aligned text table.
    - :meth:`save` / :func:`kprof.load`: JSON that round-trips exactly;
      :meth:`write_csv`: nsight-python's CSV files.

    Parameter columns hold the original Python objects of the configs (tuples, dtypes,
    tensors...). Saved files hold them as the core stores them: integers, floats, and
    ``str(obj)`` for anything else; results read back show those. The same holds for the
    values of info collectors that are not numbers (``info_objects``: the objects, keyed by
    ``(name, config, run, annotation)``).
    """

    def _repr_html_(self) -> str:
        """The notebook view: the context line and the results table, numbers scaled as in
        :meth:`table` (see :func:`kprof.report.results_html`)."""
        return report.results_html(self)

    def plot(self, filename: str | os.PathLike[str] | None = None, **options: Any) -> Any:
        """Draws the results and returns the matplotlib ``Figure``; writes it to ``filename``
        (png, svg, pdf... by extension) when given.

        Takes the options of :func:`kprof.analyze.plot` (``metric``, ``plot_type``,
        ``row_panels``, ``x_keys``, ``show_aggregate``, ``error_bars``...). Every metric is drawn
        unless ``metric`` names one or a list. Needs matplotlib (``pip install 'kprof[plot]'``);
        no display is needed. In a notebook the returned figure shows itself.

        Raises:
            kprof.errors.OptionError: An option is invalid for these results.
            ImportError: matplotlib is not installed.
        """
        options.setdefault("title", "")
        return visualization.plot_results(self, filename, **options)

    def plot_roofline(self, filename: str | os.PathLike[str] | None = None, **options: Any) -> Any:
        """Draws the roofline of results that measured ``metrics=["set:analysis"]`` and
        returns the matplotlib ``Figure``; writes it to ``filename`` (png, svg, pdf... by
        extension) when given.

        Log-log axes: FLOP per DRAM byte across, TFLOP/s up. Each precision the kernels used (the
        tensor cores'; FP32, FP64 and FP16 where ``set:flop`` was measured) has its roof, min(peak,
        intensity x DRAM peak), labelled with its peak; the DRAM slope is labelled with its
        bandwidth. Each region (annotation and config, and kernel with ``per_kernel=True``) is a
        point named as :meth:`explain` names it. Regions without FLOP or without DRAM bytes have no
        place on the chart; a note in the figure names them. Every value is a column of
        :meth:`analysis`, computed by the core. ``kprof report FILE --roofline PATH`` draws the
        same.

        Options: ``title`` (the first line of the title; ``"Roofline"`` by default, ``""``
        for none). Needs matplotlib (``pip install 'kprof[plot]'``); no display is needed. In
        a notebook the returned figure shows itself.

        Raises:
            kprof.errors.OptionError: The results lack the metrics of set:analysis (option
                ``"metrics"``), or no region has both FLOP and DRAM bytes (option
                ``"results"``).
            ImportError: matplotlib is not installed.
        """
        return roofline.plot_roofline(self, filename, **options)

    # --- files ----------------------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str], overwrite: bool = False) -> str:
        """Writes the results to a JSON file that :func:`kprof.load` reads back exactly.

        A path ending in ``.parquet`` (or ``.pq``) writes one Parquet table instead, the rows
        and the per-run samples told apart by a ``Kind`` column, for table tools; the JSON
        document rides in its metadata, so :func:`kprof.load` reads it back exactly too.
        Parquet needs pyarrow (``pip install 'kprof[parquet]'``).

        The file is written to a temporary file first and renamed into place: a reader never
        sees half a file, and a failed write leaves any existing file as it was.

        Args:
            path: The file to write, ending in ``.json``, ``.parquet`` or ``.pq``. Missing
                parent folders are created.
            overwrite: Replace an existing file (True or False). Without it an existing file
                raises :class:`kprof.errors.OutputExistsError` (a ``FileExistsError``).

        Returns:
            The path written.

        Raises:
            TypeError: ``path`` is not a str or ``os.PathLike``.
            kprof.errors.OptionError: ``path`` has another ending or a NUL, or ``overwrite``
                is not a bool.
            kprof.errors.OutputExistsError: ``path`` exists and ``overwrite`` is not True.
            kprof.errors.KprofError: The file cannot be written (the message names it and
                says why: no such folder, no permission, no space left).
        """
        return _saving.save(self, path, overwrite)


# Core errors carry their partial results as ProfileResults (kprof.errors asks this module).
errors._wrap_partial_results_with(ProfileResults)


def load(path: str | os.PathLike[str]) -> ProfileResults:
    """Reads results saved with :meth:`ProfileResults.save` (or written by the C++ API's
    ``Results::write_json`` or the ``kprof`` command). The parameter columns hold the saved
    values (int, float or str).

    A ``.parquet`` (or ``.pq``) file written by :meth:`ProfileResults.save` is read back
    the same way (it needs pyarrow).

    Raises:
        TypeError: ``path`` is not a str or ``os.PathLike``.
        kprof.errors.FormatError: The file is missing, malformed, of an unknown version, or
            inconsistent (a sample of a config the sweep lacks, a negative duration).
    """
    return ProfileResults(_saving.read(path))
