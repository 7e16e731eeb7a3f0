# SPDX-License-Identifier: Apache-2.0
"""Results in files: kprof's JSON document (the core writes and reads it), or one Parquet table
that holds the core's tables too (:mod:`kprof._parquet`), chosen by the file's suffix."""

from __future__ import annotations

import os
from typing import Any

from kprof import _arguments, _parquet
from kprof._native import core as _core
from kprof._results_data import ResultsData
from kprof.errors import KprofError, OptionError, OutputExistsError

__all__ = ["save", "read"]


def _checked(function: str, path: Any) -> str:
    """The path of a results file to write: one of the endings save() knows; anything else is
    refused rather than written as JSON under a name that says otherwise."""
    path = _arguments.path(function, "path", path)
    endings = (".json", *_parquet.suffixes())
    if not path.lower().endswith(endings):
        raise OptionError(
            "path",
            repr(path),
            "a file name ending in " + ", ".join(endings[:-1]) + " or " + endings[-1],
        )
    return path


def save(results: ResultsData, path: str | os.PathLike[str], overwrite: bool = False) -> str:
    """Writes ``results`` to ``path`` (see :meth:`kprof.ProfileResults.save`); returns the path
    written."""
    path = _checked("ProfileResults.save", path)
    overwrite = _arguments.flag("overwrite", overwrite)
    if _parquet.is_parquet(path):
        return _parquet.write(results, path, overwrite)
    if os.path.exists(path) and not overwrite:
        raise OutputExistsError(f"{path} exists; pass overwrite=True to replace it")
    parent = os.path.dirname(path)
    try:
        if parent:
            os.makedirs(parent, exist_ok=True)
    except OSError as e:  # said as the core says a file it cannot write
        raise KprofError(f"cannot write {path}: {e.strerror or e}") from None
    results.core.write_json(path)
    return path


def read(path: str | os.PathLike[str]) -> Any:
    """The ``kprof._core.Results`` saved in ``path`` (see :func:`kprof.load`)."""
    path = _arguments.path("kprof.load", "path", path)
    if _parquet.is_parquet(path):
        return _parquet.read(path)
    return _core.Results.read_json(path)
