# SPDX-License-Identifier: Apache-2.0
"""Experimental APIs (nsight-python's ``nsight.experimental``): ``collect`` marks a function
as a custom information collector. They may change without the compatibility guarantees of the
rest of the package, as in nsight-python."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

from kprof.collectors import CollectionScope, canonical_scope

__all__ = ["collect"]

_Collector = TypeVar("_Collector", bound=Callable[..., Any])


@overload
def collect(_func: _Collector, *, scope: CollectionScope | str) -> _Collector: ...


@overload
def collect(
    _func: None = None, *, scope: CollectionScope | str
) -> Callable[[_Collector], _Collector]: ...


def collect(
    _func: _Collector | None = None, *, scope: CollectionScope | str
) -> _Collector | Callable[[_Collector], _Collector]:
    """Marks a function as an information collector for ``analyze.kernel(info_collectors=)``.

    The function's name becomes the column name. Works as a decorator and as a direct call::

        @kprof.experimental.collect(scope=kprof.CollectionScope.RUN)
        def allocated(*config):
            return torch.cuda.memory_allocated()

        gpu_name = kprof.experimental.collect(lambda: torch.cuda.get_device_name(), scope="once")

    Args:
        _func: The function (given by the decorator syntax, or directly).
        scope: A :class:`kprof.CollectionScope` or its value: ``"once"``, ``"config"``,
            ``"run"`` or ``"annotation"``. See :class:`kprof.CollectionScope` for what each
            collector receives.

    Returns:
        The function itself, marked (attributes ``_nsight_collector_scope`` and
        ``_nsight_collector_name``, nsight-python's, so either library reads the other's).

    Raises:
        kprof.errors.OptionError: An unknown scope (a ``ValueError``, as nsight-python's).
        TypeError: What is decorated is not callable.
    """
    value = canonical_scope(scope).value

    def decorator(func: _Collector) -> _Collector:
        if not callable(func):
            raise TypeError("collect can only decorate a callable")
        func._nsight_collector_scope = value  # type: ignore[attr-defined]
        func._nsight_collector_name = getattr(func, "__name__", repr(func))  # type: ignore[attr-defined]
        return func

    if _func is None:
        return decorator
    return decorator(_func)
