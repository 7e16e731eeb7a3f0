# SPDX-License-Identifier: Apache-2.0
"""How much kprof prints while it profiles (nsight-python's ``VerbosityLevel``)."""

from __future__ import annotations

from enum import IntEnum

__all__ = ["VerbosityLevel"]


class VerbosityLevel(IntEnum):
    """Terminal output of :func:`kprof.analyze.kernel`. A level enables everything at or below it.

    The values are nsight-python's, so ``nsight.VerbosityLevel.INFO`` and
    ``kprof.VerbosityLevel.INFO`` compare equal.

    Attributes:
        SILENT: Nothing at all is printed (warnings still go through :mod:`warnings`).
        INFO: A short header per profile, one line per configuration, where the CSV files went.
            Every line starts with ``[kprof]``. The default.
        DEBUG: Everything INFO prints, plus the options the core received.
    """

    SILENT = 0
    INFO = 3
    DEBUG = 4
