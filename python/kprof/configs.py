# SPDX-License-Identifier: Apache-2.0
"""Configs: sanitising the sweep a user gives and binding each config to the parameters of the
decorated function (nsight-python 1.0/1.1 rules, plus keyword arguments at call time).

The rules, in order:

- Positional arguments at call time form one config; ``configs=`` (at decoration or at call,
  not both) gives many. With neither, a function whose parameters all have defaults gets one
  empty config; otherwise :class:`~kprof.errors.ConfigError`.
- Keyword arguments at call time bind by name to parameters the function takes and are the
  same for every config (kprof only; nsight-python rejects them). The remaining parameters, in
  declaration order, receive the config values.
- Any iterable of configs works (lists, generators, ``itertools.product``); it is materialised
  once, before any GPU work.
- A config is a sequence of positional values (a tuple or a list), whatever the number of
  parameters. A function with exactly one free parameter also accepts a scalar (anything that
  is not a sequence, or a str): ``configs=[1, 2, 3]``; for one without parameters a scalar is a
  value too many. A tuple-valued parameter is written as a one-value config,
  ``configs=[((100, 200),)]``: ``configs=[(100, 200)]`` is two values.
- Every config has the same number of values, between the number of free parameters without
  defaults and the number of free parameters; trailing parameters left out get their defaults.
- Keyword-only parameters are passed as keywords; ``*args`` and ``**kwargs`` are tolerated
  (``**kwargs`` receives call-time keywords the function does not name).
"""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kprof.errors import ConfigError

__all__ = ["BoundConfigs", "FunctionParams", "bind", "core_value", "describe", "materialize"]

_P = inspect.Parameter


@dataclass(frozen=True)
class FunctionParams:
    """The parameters of a decorated function that configs can bind to."""

    name: str
    params: tuple[inspect.Parameter, ...]  # regular (not variadic), declaration order
    var_positional: bool
    var_keyword: bool

    @classmethod
    def of(cls, func: Callable[..., Any]) -> FunctionParams:
        try:
            sig = inspect.signature(func)
        except (TypeError, ValueError) as e:
            raise ConfigError(f"cannot read the parameters of {func!r}: {e}") from None
        kinds = [p.kind for p in sig.parameters.values()]
        return cls(
            name=getattr(func, "__name__", type(func).__name__),
            params=tuple(
                p
                for p in sig.parameters.values()
                if p.kind not in (_P.VAR_POSITIONAL, _P.VAR_KEYWORD)
            ),
            var_positional=_P.VAR_POSITIONAL in kinds,
            var_keyword=_P.VAR_KEYWORD in kinds,
        )

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.params]

    def signature_text(self) -> str:
        return f"{self.name}({', '.join(self.names)})"


@dataclass
class BoundConfigs:
    """A sweep bound to a function: what the DataFrame shows and what each run calls."""

    #: Parameter columns: the function's regular parameters in declaration order, then
    #: call-time keywords that only ``**kwargs`` receives.
    columns: list[str]
    #: Per config, one original Python object per column.
    values: list[tuple[Any, ...]]
    #: Per config, the positional and keyword arguments of the call.
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]]
    #: Per config, the values of the regular parameters (what derive_metric receives after
    #: the metric values).
    derive_args: list[tuple[Any, ...]]

    def core_points(self) -> list[list[int | float | str]]:
        """The values as the core stores them (int, float or str)."""
        return [[core_value(v) for v in config] for config in self.values]

    def describe(self, index: int) -> str:
        return describe(self.columns, self.values[index])


def core_value(obj: Any) -> int | float | str:
    """A config value as the core keeps it in its files: bool and integers -> int, other real
    numbers -> float, str -> str, anything else -> ``str(obj)``. The DataFrame keeps the
    original object."""
    if isinstance(obj, bool):
        return int(obj)
    if isinstance(obj, numbers.Integral):
        return int(obj)
    if isinstance(obj, numbers.Real):
        return float(obj)
    if isinstance(obj, str):
        return obj
    return str(obj)


def describe(columns: Sequence[str], values: Sequence[Any]) -> str:
    """``"n=1024, dtype='fp16'"``; long values are shortened."""
    parts = []
    for name, value in zip(columns, values, strict=True):
        text = repr(value)
        if len(text) > 40:
            text = text[:37] + "..."
        parts.append(f"{name}={text}")
    return ", ".join(parts)


def materialize(configs: Any, where: str) -> list[Any]:
    """Turns any iterable of configs into a list, once (generators can be read only once)."""
    if isinstance(configs, (str, bytes, Mapping)) or not isinstance(configs, Iterable):
        raise ConfigError(
            f"configs given at {where} must be an iterable of configs (a list of tuples, or of "
            f"values for a function of one parameter), not {type(configs).__name__}"
        )
    out = list(configs)
    if not out:
        raise ConfigError(f"configs given at {where} cannot be empty")
    return out


def _is_scalar(config: Any) -> bool:
    """nsight-python's rule: a str, or anything that is not a sequence, is one value."""
    return isinstance(config, (str, bytes)) or not isinstance(config, Sequence)


def _as_values(config: Any, index: int, free: int) -> tuple[Any, ...]:
    """A config's values. A scalar is one value for a function of at most one free parameter
    (nsight-python's rule; with none, the count check says it expects 0)."""
    if not _is_scalar(config):
        return tuple(config)
    if free <= 1:
        return (config,)
    kind = type(config).__name__
    raise ConfigError(
        f"config {index} ({config!r}) is {'an' if kind[0] in 'aeiou' else 'a'} {kind}, not a "
        "sequence of values; give one tuple per config, e.g. configs=[(1024, 'fp16'), "
        "(2048, 'fp16')]"
    )


def _check_keywords(fp: FunctionParams, kwargs: Mapping[str, Any]) -> None:
    """Call-time keywords fix a parameter for every config: they must be parameters that can
    be given by keyword (or go to ``**kwargs``)."""
    by_name = {p.name: p for p in fp.params}
    unknown = [k for k in kwargs if k not in by_name]
    if unknown and not fp.var_keyword:
        raise ConfigError(
            f"{fp.signature_text()} got keyword argument(s) {unknown} that it does not take; "
            f"its parameters are: {', '.join(fp.names) or '(none)'}"
        )
    positional_only = [k for k in kwargs if k in by_name and by_name[k].kind == _P.POSITIONAL_ONLY]
    if positional_only:
        raise ConfigError(
            f"{fp.signature_text()}: parameter(s) {positional_only} are positional-only and "
            "cannot be fixed by keyword; give them in the configs"
        )


def _configs_of(
    fp: FunctionParams,
    free: Sequence[inspect.Parameter],
    args: Sequence[Any],
    call_configs: Any,
    decorator_configs: list[Any] | None,
) -> list[Any]:
    """Where the configs come from: positional arguments (one config), the call, the
    decoration, or none at all when every free parameter has a default."""
    if args:
        if call_configs is not None or decorator_configs is not None:
            where = "the call" if call_configs is not None else "decoration"
            raise ConfigError(
                f"positional arguments form one config, but configs were also given at {where}; "
                "give either positional arguments or configs"
            )
        return [tuple(args)]
    if call_configs is not None:
        if decorator_configs is not None:
            raise ConfigError(
                "You have provided configs at decoration time and at runtime. Provide configs "
                "at decoration time or at runtime."
            )
        return materialize(call_configs, "the call")
    if decorator_configs is not None:
        return decorator_configs
    missing = [p.name for p in free if p.default is _P.empty]
    if missing:
        raise ConfigError(
            "You have provided no configs. Provide configs at decoration time or at runtime. "
            f"{fp.signature_text()} has parameters without defaults ({', '.join(missing)}); "
            "calling it with the values of one config works too."
        )
    return [()]


def _check_lengths(
    fp: FunctionParams,
    free: Sequence[inspect.Parameter],
    values: Sequence[tuple[Any, ...]],
    kwargs: Mapping[str, Any],
) -> int:
    """Every config gives the same number of values, between the free parameters without a
    default and all free parameters; returns that number."""
    lengths = [len(v) for v in values]
    if any(n != lengths[0] for n in lengths):
        raise ConfigError(
            f"All configs must have the same number of arguments. Found lengths: {lengths}"
        )
    n = lengths[0]
    required = sum(1 for p in free if p.default is _P.empty)
    if not required <= n <= len(free):
        expects = f"{len(free)}" if required == len(free) else f"between {required} and {len(free)}"
        fixed = f" (fixed by keyword: {', '.join(kwargs)})" if kwargs else ""
        free_names = ", ".join(p.name for p in free) or "no parameters"
        tuple_hint = (
            f"; a tuple-valued parameter is a one-value config, e.g. configs=[({values[0]!r},)]"
            if len(free) == 1 and n > 1
            else ""
        )
        raise ConfigError(
            f"Configs have {n} arguments, but function expects {expects}: "
            f"{fp.signature_text()} takes {free_names}{fixed}{tuple_hint}"
        )
    return n


def _call_of(
    fp: FunctionParams, full: Mapping[str, Any], kwargs: Mapping[str, Any], extra: Sequence[str]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments that call the function with one config's values (``full``, by name)."""
    call_args: list[Any] = []
    call_kwargs: dict[str, Any] = {}
    by_keyword = False  # once a parameter goes by keyword, the ones after it must too
    for p in fp.params:
        if p.kind == _P.KEYWORD_ONLY or (p.kind == _P.POSITIONAL_OR_KEYWORD and by_keyword):
            call_kwargs[p.name] = full[p.name]
        elif p.kind == _P.POSITIONAL_OR_KEYWORD and p.name in kwargs:
            by_keyword = True
            call_kwargs[p.name] = full[p.name]
        else:
            call_args.append(full[p.name])
    for k in extra:
        call_kwargs[k] = kwargs[k]
    return tuple(call_args), call_kwargs


def bind(
    fp: FunctionParams,
    *,
    args: Sequence[Any] = (),
    kwargs: Mapping[str, Any] | None = None,
    call_configs: Any = None,
    decorator_configs: list[Any] | None = None,
) -> BoundConfigs:
    """Binds the configs of one call of a decorated function. Raises ConfigError naming what
    is wrong and the function's parameters; never calls the function."""
    kwargs = dict(kwargs or {})
    _check_keywords(fp, kwargs)
    free = [p for p in fp.params if p.name not in kwargs]
    configs = _configs_of(fp, free, args, call_configs, decorator_configs)
    values = [_as_values(c, i, len(free)) for i, c in enumerate(configs)]
    n = _check_lengths(fp, free, values, kwargs)

    by_name = {p.name for p in fp.params}
    extra_columns = [k for k in kwargs if k not in by_name]
    columns = fp.names + extra_columns
    bound = BoundConfigs(columns=columns, values=[], calls=[], derive_args=[])
    for config in values:
        full: dict[str, Any] = {}
        for i, p in enumerate(free):
            full[p.name] = config[i] if i < n else p.default
        full.update(kwargs)
        bound.values.append(tuple(full[c] for c in columns))
        bound.calls.append(_call_of(fp, full, kwargs, extra_columns))
        bound.derive_args.append(tuple(full[p.name] for p in fp.params))
    return bound
