# SPDX-License-Identifier: Apache-2.0
"""The arguments of kprof's Python functions, checked before any work: one wording for a wrong
type, a path, a flag and a number, so that every function answers the same way
(docs/errors.md).

A wrong type is a ``TypeError`` naming the function, the argument and the type given; a value
of the right type that cannot be used is an :class:`kprof.errors.OptionError` naming the
argument, the value and what is valid. The options of ``analyze.kernel`` are the core's option
table's (:mod:`kprof._options`); these are the arguments of everything else.
"""

from __future__ import annotations

import math
import numbers
import os
from typing import Any

from kprof.errors import OptionError

__all__ = ["type_error", "path", "flag", "number", "integer", "text"]

# How much of a wrong value a message quotes.
_QUOTED = 60


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _QUOTED else text[: _QUOTED - 3] + "..."


def type_error(function: str, argument: str, expected: str, value: Any) -> TypeError:
    """``"kprof.load: path must be a str or os.PathLike, not int (42)"``."""
    return TypeError(
        f"{function}: {argument} must be {expected}, not {type(value).__name__} ({_shown(value)})"
    )


def path(function: str, argument: str, value: Any) -> str:
    """``value`` as a str path: a str or an ``os.PathLike`` of one. Bytes are refused (kprof
    names files in text), and so is a path the file system cannot take (a NUL) or that is not
    valid Unicode text (kprof's files are named in UTF-8)."""
    if isinstance(value, (str, os.PathLike)):
        fspath = os.fspath(value)
        if isinstance(fspath, str):
            if "\0" in fspath:
                raise OptionError(argument, _shown(fspath), "a path without NUL characters")
            try:
                fspath.encode("utf-8")
            except UnicodeEncodeError:
                raise OptionError(
                    argument, _shown(fspath), "a path that is valid UTF-8 text"
                ) from None
            return fspath
    raise type_error(function, argument, "a str or os.PathLike", value)


def flag(argument: str, value: Any) -> bool:
    """``value`` when it is a bool (numpy's too); anything else, "no" or 1 among them, is an
    OptionError: a text that reads as false would otherwise count as true."""
    if type(value).__name__ in ("bool", "bool_"):
        return bool(value)
    raise OptionError(argument, _shown(value), "True or False")


def number(
    function: str,
    argument: str,
    value: Any,
    *,
    minimum: float | None = None,
    valid: str = "a number",
) -> float:
    """``value`` as a float: a real number (not a bool, not NaN), at least ``minimum`` when
    given; ``valid`` says what is valid."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise type_error(function, argument, "a number", value)
    result = float(value)
    if math.isnan(result) or (minimum is not None and result < minimum):
        raise OptionError(argument, _shown(value), valid)
    return result


def integer(function: str, argument: str, value: Any, *, minimum: int, valid: str) -> int:
    """``value`` as an int (numpy's too, not a bool) of at least ``minimum``; ``valid`` says
    what is valid."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise type_error(function, argument, "an int", value)
    if value < minimum:
        raise OptionError(argument, _shown(value), valid)
    return int(value)


def text(function: str, argument: str, value: Any) -> str:
    """``value`` when it is a str the core can take (valid UTF-8 text)."""
    if not isinstance(value, str):
        raise type_error(function, argument, "a str", value)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise OptionError(argument, _shown(value), "valid UTF-8 text") from None
    return value
