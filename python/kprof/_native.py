"""kprof's compiled extension, loaded on first use rather than at ``import kprof``.

On the H200 machine (PyTorch 2.11, CUDA 13.0, Ubuntu 24.04) a process that loaded libkprof
before PyTorch crashed inside ``import torch`` (libstdc++, in torch's JIT initialisation; see
docs/validation.md). Loading the extension only when kprof is first used lets the usual
``import kprof`` / ``import torch`` at the top of a script run in either order.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


def _first_access(name: str) -> Any:
    """``core``'s ``__getattr__`` (PEP 562), called for a name it does not hold yet: imports the
    extension and keeps the attribute in ``core``, so that the next access is a plain module
    attribute (kprof.annotate makes two per region, and a failed lookup costs microseconds)."""
    # The extension registers its own exit handler (the core's log lines go back to standard
    # error before the interpreter goes away).
    value = getattr(importlib.import_module("kprof._core"), name)
    setattr(core, name, value)
    return value


# Stands for ``kprof._core``: the first access of each attribute imports it.
core: Any = ModuleType("kprof._native.core")
core.__getattr__ = _first_access
