# SPDX-License-Identifier: Apache-2.0
"""Results in files: kprof's JSON document (the core writes and reads it), or one Parquet table
with the JSON document in its metadata (:mod:`kprof._parquet`), chosen by the file's suffix."""

from __future__ import annotations

import os
from typing import Any

from kprof import _parquet
from kprof._native import core as _core
from kprof._results_data import ResultsData
from kprof.errors import OutputExistsError

__all__ = ["save", "read"]


def save(results: ResultsData, path: str | os.PathLike[str], overwrite: bool = False) -> str:
    """Writes ``results`` to ``path`` (see :meth:`kprof.ProfileResults.save`); returns the path
    written."""
    if _parquet.is_parquet(path):
        return _parquet.write(results, path, overwrite)
    path = os.fspath(path)
    if os.path.exists(path) and not overwrite:
        raise OutputExistsError(f"{path} exists; pass overwrite=True to replace it")
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    results.core.write_json(path)
    return path


def read(path: str | os.PathLike[str]) -> Any:
    """The ``kprof._core.Results`` saved in ``path`` (see :func:`kprof.load`)."""
    if _parquet.is_parquet(path):
        return _core.Results.from_json(_parquet.read_json(path))
    return _core.Results.read_json(os.fspath(path))
