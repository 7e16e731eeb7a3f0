# SPDX-License-Identifier: Apache-2.0
"""kprof's typed errors: one class per ``kprof::Error`` kind of the C++ core.

Every error that bad input can cause is raised before any GPU work and names what was wrong
and what would be valid. Errors raised while a sweep runs carry what was measured before the
failure in ``partial_results`` (a :class:`kprof.ProfileResults`, or ``None``), so that a long
sweep that fails late is not lost::

    try:
        results = bench()
    except kprof.errors.KprofError as e:
        if e.partial_results is not None:
            e.partial_results.save("partial.json")
        raise

Each class also derives from the built-in exception a Python user would expect, so that code
written for nsight-python (which raised ``ValueError`` and ``RuntimeError``) keeps working:
:class:`OptionError`, :class:`ConfigError`, :class:`AnnotationError` and :class:`FormatError`
are ``ValueError``; :class:`MeasurementError`, :class:`UserFunctionError`, :class:`NoGpuError`,
:class:`CuptiBusyError` (and :class:`CountersBusyError`), :class:`CudaError` (and
:class:`GpuFaultError`), :class:`ThermalControlError`, :class:`ClockControlError` and
:class:`ToolError` are ``RuntimeError``; :class:`UnsupportedError` is ``NotImplementedError``;
:class:`CounterPermissionError` is ``PermissionError``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = [
    "KprofError",
    "OptionError",
    "ConfigError",
    "AnnotationError",
    "MeasurementError",
    "UserFunctionError",
    "NoGpuError",
    "CuptiBusyError",
    "CountersBusyError",
    "CudaError",
    "GpuFaultError",
    "UnsupportedError",
    "FormatError",
    "OutputExistsError",
    "ThermalControlError",
    "CoolingTimeoutError",
    "ClockControlError",
    "ClockPermissionError",
    "CounterPermissionError",
    "ToolError",
    "ToolUnavailableError",
]


def _rebuild(cls: type[KprofError], message: str, state: dict[str, Any]) -> KprofError:
    return cls._create(message, **state)


class KprofError(Exception):
    """Base of every error kprof raises (``kprof::Error``).

    Attributes:
        partial_results: What was measured before a sweep failed, as a
            :class:`kprof.ProfileResults`; ``None`` outside a sweep or before the first run.
    """

    #: The C++ ``kind()`` of this class.
    kind = "KprofError"
    #: Attributes of this class besides ``partial_results``, with their defaults.
    _attributes: dict[str, Any] = {}

    def __init__(self, message: str = "", *, partial_results: Any = None) -> None:
        super().__init__(message)
        self.partial_results = partial_results

    @classmethod
    def _create(cls, message: str, partial_results: Any = None, **attributes: Any) -> KprofError:
        """Builds an instance from a message and attributes, bypassing the constructor."""
        self = cls.__new__(cls)
        Exception.__init__(self, message)
        self.partial_results = partial_results
        for name, default in cls._attributes.items():
            setattr(self, name, attributes.pop(name, default))
        for name, value in attributes.items():
            setattr(self, name, value)
        return self

    @property
    def message(self) -> str:
        """The message, without the class name."""
        return str(self)

    def __reduce__(self) -> tuple[Any, ...]:
        # partial_results holds a C++ object and is left out; everything else survives pickling
        # (multiprocessing, pytest-xdist).
        state = {k: v for k, v in self.__dict__.items() if k != "partial_results"}
        return (_rebuild, (type(self), str(self), state))


class OptionError(KprofError, ValueError):
    """An option has a value kprof cannot accept.

    Attributes:
        option: The option's name, e.g. ``"cache_control"``.
        value: The rejected value as text, e.g. ``"'cold'"``.
        valid: What would be accepted, e.g. ``"'all' or 'none'"``.
    """

    kind = "OptionError"
    _attributes = {"option": "", "value": "", "valid": ""}

    def __init__(
        self,
        option: str,
        value: str,
        valid: str,
        *,
        message: str | None = None,
        partial_results: Any = None,
    ) -> None:
        if message is None:
            message = f"{option}={value} is not valid; valid: {valid}"
        super().__init__(message, partial_results=partial_results)
        self.option = option
        self.value = value
        self.valid = valid


class ConfigError(KprofError, ValueError):
    """A configuration of the sweep does not fit the benchmark function (number of values,
    unknown keyword, configs given twice, no configs)."""

    kind = "ConfigError"


class AnnotationError(KprofError, ValueError):
    """Annotations used in a way kprof cannot measure: opened twice in one run, left open,
    closed out of order, a name that is empty or contains ``/``, or a ``normalize_against``
    naming an annotation that does not exist."""

    kind = "AnnotationError"


class MeasurementError(KprofError, RuntimeError):
    """The measurement itself failed: a region launched no kernel, records were dropped,
    several kernels in a region without combine_kernel_metrics."""

    kind = "MeasurementError"


class UserFunctionError(KprofError, RuntimeError):
    """The benchmark function raised. The original exception is the ``__cause__``.

    Attributes:
        config: Index of the config that failed (into the sweep, from 0).
        run: Index of the run that failed (from 0).
    """

    kind = "UserFunctionError"
    _attributes = {"config": None, "run": None}

    def __init__(
        self,
        message: str = "",
        *,
        config: int | None = None,
        run: int | None = None,
        partial_results: Any = None,
    ) -> None:
        super().__init__(message, partial_results=partial_results)
        self.config = config
        self.run = run


class NoGpuError(KprofError, RuntimeError):
    """No GPU available: no driver, no device, or kprof built without CUDA."""

    kind = "NoGpuError"


class CuptiBusyError(KprofError, RuntimeError):
    """Another tool holds CUPTI in this process (Nsight Systems, Nsight Compute,
    torch.profiler...).

    Attributes:
        holder: Who holds it, as far as kprof can tell.
    """

    kind = "CuptiBusyError"
    _attributes = {"holder": ""}

    def __init__(self, message: str = "", *, holder: str = "", partial_results: Any = None) -> None:
        super().__init__(message, partial_results=partial_results)
        self.holder = holder


class CountersBusyError(CuptiBusyError):
    """Another process profiles the hardware counters of the GPU (CUPTI's
    ``CUPTI_ERROR_HARDWARE_BUSY``): a GPU's counters serve one process at a time, from that
    process's first pass until its profile ends. The message names the GPU. Profile one
    process at a time, or pass ``wait_for_counters=<seconds>`` to wait for them (the message
    then says how long kprof waited). Durations (``gpu__time_duration.sum`` alone) are not
    affected. A busy answer mid-sweep keeps what was measured in ``partial_results``.

    Attributes:
        holder: ``"another process"``.
    """

    kind = "CountersBusyError"
    _attributes = {"holder": "another process"}

    def __init__(
        self, message: str = "", *, holder: str = "another process", partial_results: Any = None
    ) -> None:
        super().__init__(message, holder=holder, partial_results=partial_results)


class CudaError(KprofError, RuntimeError):
    """A CUDA or CUPTI call failed in a way that has no more specific error."""

    kind = "CudaError"


class GpuFaultError(CudaError):
    """A kernel faulted (an illegal memory access, a device-side assert...) and the CUDA
    context of the process is lost: every later CUDA call in it fails the same way, whichever
    call noticed first (the benchmark's own or kprof's). ``partial_results`` keeps every run made
    (values not yet read from the GPU are NaN) and is saved under ``output_prefix`` when
    one was given; end the process, and find the kernel with ``compute-sanitizer``."""

    kind = "GpuFaultError"


class UnsupportedError(KprofError, NotImplementedError):
    """An option value is valid, but its capability is not available in this build of kprof
    (hardware counters, range replay, clock locking, manual thermal control, info
    collectors)."""

    kind = "UnsupportedError"


class FormatError(KprofError, ValueError):
    """Reading a saved file failed: missing, malformed, or of an unknown version."""

    kind = "FormatError"


class ThermalControlError(KprofError, RuntimeError):
    """The thermal guard could not keep the GPU within its temperature limits
    (nsight-python's ``ThermalControlError``)."""

    kind = "ThermalControlError"


class CoolingTimeoutError(ThermalControlError):
    """The GPU did not cool down to ``thermal_cont`` within ``thermal_timeout``
    (nsight-python's ``CoolingTimeoutError``). ``partial_results`` holds the runs made
    before."""

    kind = "CoolingTimeoutError"


class ClockControlError(KprofError, RuntimeError):
    """``clock_control="base"`` could not lock (or give back) the SM clock: no NVML, no such
    device, or a GPU that cannot lock clocks."""

    kind = "ClockControlError"


class ClockPermissionError(ClockControlError):
    """Locking the SM clock needs a permission this process lacks (root, or an
    administrator's setting). Lock clocks yourself with ``sudo nvidia-smi -lgc base`` on a
    machine that is yours, or use ``clock_control="none"``."""

    kind = "ClockPermissionError"


class CounterPermissionError(KprofError, PermissionError):
    """This process may not read the GPU's hardware counters (CUPTI's
    ``CUPTI_ERROR_INSUFFICIENT_PRIVILEGES``, Nsight Compute's ``ERR_NVGPUCTRPERM``). Run as
    root, give a container ``--cap-add SYS_ADMIN``, or have an administrator load the driver
    with ``NVreg_RestrictProfilingToAdminUsers=0``. Durations (``gpu__time_duration.sum``
    alone) still work in the same process."""

    kind = "CounterPermissionError"


class ToolError(KprofError, RuntimeError):
    """A tool cannot be activated: another one is active already
    (:func:`kprof.activate`; nsight-python raises ``RuntimeError``)."""

    kind = "ToolError"


class ToolUnavailableError(UnsupportedError, NoGpuError):
    """The tool asked for does not exist in kprof: ``kprof.Tool.NCU`` (kprof has no Nsight
    Compute backend; ``kprof.Tool.CUPTI`` is kprof's in-process engine). Also a
    ``NoGpuError``, so ``except nsight.exceptions.NCUNotAvailableError`` catches it."""

    kind = "ToolUnavailableError"


class OutputExistsError(KprofError, FileExistsError):
    """A file kprof was asked to write exists already (``ProfileResults.save`` without
    ``overwrite=True``). Python-side only: the core never refuses to overwrite."""

    kind = "OutputExistsError"


_KINDS: dict[str, type[KprofError]] = {
    cls.kind: cls
    for cls in (
        KprofError,
        OptionError,
        ConfigError,
        AnnotationError,
        MeasurementError,
        UserFunctionError,
        NoGpuError,
        CuptiBusyError,
        CountersBusyError,
        CudaError,
        GpuFaultError,
        UnsupportedError,
        FormatError,
        OutputExistsError,
        ThermalControlError,
        CoolingTimeoutError,
        ClockControlError,
        ClockPermissionError,
        CounterPermissionError,
        ToolError,
        ToolUnavailableError,
    )
}


def error_class(kind: str) -> type[KprofError]:
    """The class for a C++ ``kind()``; :class:`KprofError` for a kind this version lacks."""
    return _KINDS.get(kind, KprofError)


# What the core's partial results become for the user: kprof.results, which sits above this
# module (this one imports none of it), registers kprof.ProfileResults as it is imported, which
# ``import kprof`` does before the extension can be loaded.
_partial_results_type: Callable[[Any], Any] | None = None


def _wrap_partial_results_with(make: Callable[[Any], Any]) -> None:
    """Called once by kprof.results: core errors' partial results are made with ``make``."""
    global _partial_results_type
    _partial_results_type = make


def _from_core(
    kind: str, message: str, attributes: dict[str, Any], partial: Any
) -> KprofError | KeyboardInterrupt:
    """Called by ``kprof._core`` to turn a ``kprof::Error`` into its Python class; ``partial``
    is the core's results of what was measured (made a :class:`kprof.ProfileResults` here), or
    ``None``. The core's ``InterruptError`` (Ctrl-C) is Python's own ``KeyboardInterrupt``,
    with ``partial_results``."""
    if partial is not None and _partial_results_type is not None:
        partial = _partial_results_type(partial)
    if kind == "InterruptError":
        interrupt = KeyboardInterrupt(message)
        interrupt.partial_results = partial  # type: ignore[attr-defined]
        return interrupt
    return error_class(kind)._create(message, partial_results=partial, **attributes)
