"""kprof's compiled extension, loaded on first use rather than at ``import kprof``.

On the H200 machine (PyTorch 2.11, CUDA 13.0, Ubuntu 24.04) a process that loaded libkprof
before PyTorch crashed inside ``import torch`` (libstdc++, in torch's JIT initialisation; see
docs/validation.md). Loading the extension only when kprof is first used lets the usual
``import kprof`` / ``import torch`` at the top of a script run in either order.
"""

from __future__ import annotations

import ctypes
import importlib
import os
import re
import sys
from types import ModuleType
from typing import Any

# The CUPTI wheels' library folders under site-packages: CUDA 13's, then CUDA 12's.
_CUPTI_WHEEL_DIRS = (("nvidia", "cu13", "lib"), ("nvidia", "cuda_cupti", "lib"))


def _wheel_cupti(soname: str) -> str | None:
    """The path of ``soname`` (``libcupti.so.13``) in an NVIDIA wheel on ``sys.path``."""
    for entry in sys.path:
        for parts in _CUPTI_WHEEL_DIRS:
            path = os.path.join(entry or ".", *parts, soname)
            if os.path.isfile(path):
                return path
    return None


def _import_extension() -> ModuleType:
    """Imports ``kprof._core``. libkprof finds CUPTI through the process (PyTorch's), its run path
    (the nvidia-cuda-cupti wheel beside the kprof package, the toolkit it was built with) or the
    library path. When the wheel sits in another site-packages folder (``pip install --user``,
    a system one), none of those reach it: it is loaded from ``sys.path`` and the import retried."""
    try:
        return importlib.import_module("kprof._core")
    except ImportError as e:
        missing = re.search(r"(libcupti\.so\.\d+)", str(e))
        path = _wheel_cupti(missing.group(1)) if missing else None
        if path is None:
            raise
        try:
            ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)  # its soname now meets libkprof's need
        except OSError:
            raise e from None
        return importlib.import_module("kprof._core")


def _first_access(name: str) -> Any:
    """``core``'s ``__getattr__`` (PEP 562), called for a name it does not hold yet: imports the
    extension and keeps the attribute in ``core``, so that the next access is a plain module
    attribute (kprof.annotate makes two per region, and a failed lookup costs microseconds)."""
    # The extension registers its own exit handler (the core's log lines go back to standard
    # error before the interpreter goes away).
    value = getattr(_import_extension(), name)
    setattr(core, name, value)
    return value


# Stands for ``kprof._core``: the first access of each attribute imports it.
core: Any = ModuleType("kprof._native.core")
core.__getattr__ = _first_access
