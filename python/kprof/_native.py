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


class _LazyCore:
    """Stands for ``kprof._core``: the first attribute access imports it."""

    _module: ModuleType | None = None

    def load(self) -> ModuleType:
        if _LazyCore._module is None:
            # The extension registers its own exit handler (the core's log lines go back to
            # standard error before the interpreter goes away).
            _LazyCore._module = importlib.import_module("kprof._core")
        return _LazyCore._module

    def __getattr__(self, name: str) -> Any:
        return getattr(self.load(), name)


core: Any = _LazyCore()
