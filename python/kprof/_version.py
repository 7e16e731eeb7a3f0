# SPDX-License-Identifier: Apache-2.0
"""kprof's version: the installed package's, or the compiled extension's in a build tree."""

from __future__ import annotations

import functools

__all__ = ["version"]


@functools.cache
def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as package_version

    try:
        return package_version("kprof")
    except PackageNotFoundError:  # run from a build tree: ask the extension
        from kprof._native import core

        return str(core.version())
