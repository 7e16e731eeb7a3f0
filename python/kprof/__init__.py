# SPDX-License-Identifier: Apache-2.0
"""kprof: a GPU kernel profiler that lives inside the program it measures.

A drop-in replacement for NVIDIA's nsight-python for scripts that time kernels::

    import kprof as nsight

    @nsight.analyze.kernel(configs=[(1024,), (4096,)], runs=10)
    def bench(n):
        x = torch.randn(n, n, device="cuda")
        with nsight.annotate("matmul"):
            x @ x

    print(bench().to_dataframe())

Importing kprof needs no GPU and no driver: saved results can be read (:func:`load`) and
inspected anywhere. Profiling without a GPU raises :class:`kprof.errors.NoGpuError`.
"""

from __future__ import annotations

import atexit

try:
    import kprof._core as _core
except ImportError as _error:
    # A broken install (no extension, or a library it needs is missing). `import kprof` still
    # works so that the `kprof` command (kprof.cli) can say so on one line; everything else
    # raises the original error at first use.
    _CORE_ERROR = _error

    def __getattr__(name: str):
        raise _CORE_ERROR

else:
    from kprof import analyze, errors, exceptions
    from kprof.annotation import annotate
    from kprof.results import ProfileResults, load
    from kprof.verbosity import VerbosityLevel

    def _version() -> str:
        try:
            from importlib.metadata import PackageNotFoundError, version
        except ImportError:  # pragma: no cover
            return str(_core.version())
        try:
            return version("kprof")
        except PackageNotFoundError:
            return str(_core.version())

    __version__ = _version()

    # The core's "[kprof]" lines go to sys.stdout while Python runs; at exit they go back to
    # standard error, since Python can no longer take them.
    atexit.register(_core._reset_log_sink)
__all__ = [
    "analyze",
    "annotate",
    "VerbosityLevel",
    "errors",
    "exceptions",
    "load",
    "ProfileResults",
    "__version__",
]
