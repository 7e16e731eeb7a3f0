# SPDX-License-Identifier: Apache-2.0
"""``kprof.annotate``: marks the code whose kernels are measured."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from types import TracebackType
from typing import Any, TypeVar

from kprof import _arguments
from kprof._native import core as _core
from kprof.errors import AnnotationError, KprofError

__all__ = ["annotate"]


F = TypeVar("F", bound=Callable[..., Any])


class annotate:  # lower case: nsight-python's name
    """Marks a region of code whose GPU kernels kprof measures. Context manager and decorator.

    Every kernel launched while the region is open is attributed to it by CUPTI correlation
    id, not by position, so the region may launch any number of kernels, from this thread or
    (when this thread has no region of its own open) from worker threads while the profiling
    thread has it open. Kernels launched outside every annotation are not measured: put setup,
    data generation and warm-up outside.

    Annotations nest, unlike in nsight-python. The inner region's rows are named
    ``"outer/inner"``, and the outer region's values include the kernels of the regions nested
    in it, as NVTX ranges do::

        @kprof.analyze.kernel(configs=[(1024,), (4096,)], runs=10)
        def bench(n):
            a = torch.randn(n, n, device="cuda")
            with kprof.annotate("step"):
                with kprof.annotate("matmul"):
                    a @ a
                with kprof.annotate("relu"):
                    torch.relu(a)
        # rows: "step" (both kernels), "step/matmul", "step/relu"

    Each annotation also opens an NVTX range named ``name`` in the NVTX domain ``"kprof"``,
    so Nsight Systems shows the same regions on its timeline.

    One name may be used once per run at each nesting level; opening the same path twice in
    one run raises :class:`kprof.errors.AnnotationError` (use distinct names, or nest). Outside
    a profile an annotation does nothing but keep track of nesting, so annotated code can run
    unprofiled at no cost.

    Args:
        name: The region's name; the ``Annotation`` column of the results: 1 to 256 bytes
            of printable text (no NUL, newline or other control character), not only blanks,
            without ``/``, which joins nested names. Checked inside and outside a profile.
        ignore_failures: When True, an exception raised inside the region is swallowed: a
            ``RuntimeWarning`` names the annotation and the exception, this run's values of
            the region become NaN (and are left out of ``NumRuns`` and every statistic), and
            the sweep goes on. Useful for configs that may legitimately fail, e.g. out of
            memory for the largest sizes. Unlike nsight-python this needs no cuda-core and
            launches no dummy kernel. Only ``Exception`` subclasses are swallowed;
            ``KeyboardInterrupt`` always stops the profile.

    Raises:
        TypeError: ``name`` is not a str, or what the decorator is given is not callable.
        kprof.errors.AnnotationError: For an invalid name, a path opened twice in one run, or
            regions closed out of order (outside a profile too); and, when a profile begins,
            for an annotation still open on its thread.

    Example, as a decorator::

        @kprof.annotate("softmax")
        def softmax(x):
            return torch.softmax(x, dim=-1)
    """

    # Slots, and no call that the usual case does not need: an annotation entered and left
    # outside a profile should cost about what the NVTX range it opens does (bench/hot_path.py).
    __slots__ = ("name", "ignore_failures", "__weakref__")

    def __init__(self, name: str, ignore_failures: bool = False) -> None:
        if type(name) is not str and not isinstance(name, str):
            raise _arguments.type_error("kprof.annotate", "name", "a str", name)
        if ignore_failures is not False and ignore_failures is not True:
            ignore_failures = _arguments.flag("ignore_failures", ignore_failures)
        self.name = name
        self.ignore_failures = ignore_failures

    def __enter__(self) -> annotate:
        # The extension keeps this thread's open regions and the object that opened each: the
        # same object may be entered recursively (as a decorator) and from several threads.
        _core.annotation_open(self, self.name)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        if exc is None:  # the usual case, kept short
            if not _core.annotation_close(self, False):
                raise self._not_opened()
            return False
        failed = isinstance(exc, Exception)
        try:
            # A region that an exception left is failed even when an outer scope swallows the
            # exception: its kernels are incomplete. (If nothing swallows it, the run ends.)
            was_open = _core.annotation_close(self, failed)
        except KprofError:
            # It was open but did not close (out of order); the exception already propagating
            # explains more than the close does.
            was_open = True
        if not was_open:
            raise self._not_opened()
        swallow = self.ignore_failures and failed
        if swallow:
            warnings.warn(
                f"annotation '{self.name}' ignored a failure ({type(exc).__name__}: {exc}); "
                "the values of this run are NaN",
                RuntimeWarning,
                stacklevel=2,
            )
        return swallow

    def _not_opened(self) -> AnnotationError:
        return AnnotationError(f"annotation '{self.name}' was closed without being opened")

    def __call__(self, func: F) -> F:
        if not callable(func):
            raise TypeError(
                f"{self!r} decorates a function, not {type(func).__name__} ({func!r:.60})"
            )

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"annotate({self.name!r}, ignore_failures={self.ignore_failures})"
