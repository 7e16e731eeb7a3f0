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

from kprof import (
    _version,
    analyze,
    errors,
    exceptions,
    experimental,
    info_collector,
    metrics,
    utils,
)
from kprof.annotation import annotate
from kprof.collectors import CollectionScope, InfoCollector
from kprof.comparison import CompareWarning, compare
from kprof.merging import gather, merge
from kprof.ranks import rank_info
from kprof.results import ProfileResults, load
from kprof.stopping import StoppingRule
from kprof.tools import Tool, activate, deactivate, get_active_tool

# nsight-python's top level has these too, outside its __all__.
from kprof.utils import col_panel as col_panel
from kprof.utils import row_panel as row_panel
from kprof.verbosity import VerbosityLevel
from kprof.visualization import plot_file

__version__ = _version.version()

__all__ = [
    "analyze",
    "annotate",
    "compare",
    "rank_info",
    "merge",
    "gather",
    "CompareWarning",
    "VerbosityLevel",
    "errors",
    "metrics",
    "exceptions",
    "info_collector",
    "utils",
    "load",
    "ProfileResults",
    "plot_file",
    "experimental",
    "CollectionScope",
    "InfoCollector",
    "StoppingRule",
    "Tool",
    "activate",
    "deactivate",
    "get_active_tool",
    "__version__",
]
