# SPDX-License-Identifier: Apache-2.0
"""nsight-python's ``nsight.utils`` names that scripts import, as kprof's objects.

``from nsight.utils import VerbosityLevel`` keeps working with ``import kprof as nsight`` (as
``kprof.utils``): ``VerbosityLevel`` is :class:`kprof.VerbosityLevel` itself. The NVTX domain
of kprof's annotations is ``"kprof"`` (nsight-python's is ``"nsight-python"``).
"""

from __future__ import annotations

from kprof.verbosity import VerbosityLevel

__all__ = ["NVTX_DOMAIN", "VerbosityLevel", "col_panel", "row_panel"]

#: The NVTX domain of every :class:`kprof.annotate` range.
NVTX_DOMAIN = "kprof"


class row_panel:  # noqa: N801 (nsight-python's name)
    """nsight-python's marker class of the same name, kept so that its imports resolve."""


class col_panel:  # noqa: N801 (nsight-python's name)
    """nsight-python's marker class of the same name, kept so that its imports resolve."""
