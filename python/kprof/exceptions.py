# SPDX-License-Identifier: Apache-2.0
"""nsight-python's ``nsight.exceptions`` names, mapped onto kprof's errors.

Code written for nsight-python that catches its exceptions keeps working with
``import kprof as nsight``:

- ``ProfilerException`` is :class:`kprof.errors.KprofError`, the base of every kprof error
  (nsight-python raised it for most failures).
- ``NCUNotAvailableError`` is :class:`kprof.errors.NoGpuError`: kprof needs no Nsight Compute,
  the closest failure is a machine without a usable GPU.
- ``ThermalControlError`` and ``CoolingTimeoutError`` are kprof's own
  (:class:`kprof.errors.CoolingTimeoutError` is raised when the GPU does not cool down within
  ``thermal_timeout``).

The kprof classes themselves are re-exported, so ``kprof.exceptions.OptionError`` works too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from kprof.errors import (
    AnnotationError,
    ConfigError,
    CoolingTimeoutError,
    CudaError,
    CuptiBusyError,
    FormatError,
    KprofError,
    MeasurementError,
    NoGpuError,
    OptionError,
    OutputExistsError,
    ThermalControlError,
    UnsupportedError,
    UserFunctionError,
)

__all__ = [
    "ProfilerException",
    "NCUNotAvailableError",
    "ThermalControlError",
    "CoolingTimeoutError",
    "MetricErrorType",
    "NCUErrorContext",
    "CUDA_CORE_UNAVAILABLE_MSG",
    "CUPTI_UNAVAILABLE_MSG",
    "KprofError",
    "OptionError",
    "ConfigError",
    "AnnotationError",
    "MeasurementError",
    "UserFunctionError",
    "NoGpuError",
    "CuptiBusyError",
    "CudaError",
    "UnsupportedError",
    "FormatError",
    "OutputExistsError",
]

ProfilerException = KprofError
NCUNotAvailableError = NoGpuError


class MetricErrorType(Enum):
    """Why a metric was rejected (nsight-python name)."""

    INVALID = "Invalid"
    UNSUPPORTED = "Unsupported"


@dataclass
class NCUErrorContext:
    """Context of a profiler failure (nsight-python name; kprof does not fill it)."""

    errors: list[str] = field(default_factory=list)
    log_file_path: str = ""
    metrics: list[str] = field(default_factory=list)


CUDA_CORE_UNAVAILABLE_MSG = (
    "kprof does not need cuda-core: annotate(ignore_failures=True) works without it."
)
CUPTI_UNAVAILABLE_MSG = (
    "kprof loads CUPTI itself (the one already in the process, else the CUDA toolkit's); "
    "no cupti-python package is needed."
)
