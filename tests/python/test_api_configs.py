"""Binding configs to the parameters of the decorated function (nsight-python 1.x rules, plus
keyword arguments at call time). All errors come before any GPU work."""

from __future__ import annotations

import itertools

import kprof
import pytest
from kprof import errors
from kprof.configs import FunctionParams, bind, core_value


def bound(func, **kw):
    return bind(FunctionParams.of(func), **kw)


def calls_of(func, **kw):
    """What each config's call would receive: func(*args, **kwargs) results."""
    b = bound(func, **kw)
    return [func(*a, **k) for a, k in b.calls]


def test_positional_configs():
    def f(n, dtype):
        return (n, dtype)

    b = bound(f, decorator_configs=[(1, "a"), (2, "b")])
    assert b.columns == ["n", "dtype"]
    assert b.values == [(1, "a"), (2, "b")]
    assert calls_of(f, decorator_configs=[(1, "a"), (2, "b")]) == [(1, "a"), (2, "b")]


def test_scalar_configs_for_one_parameter():
    def f(n):
        return n

    assert bound(f, decorator_configs=[1, 2, 3]).values == [(1,), (2,), (3,)]
    # A sequence is the config's positional values, as in nsight-python; a str or any other
    # object that is not a sequence is one value.
    assert bound(f, decorator_configs=[(1,), [2]]).values == [(1,), (2,)]
    assert bound(f, decorator_configs=[((1, 2),), "ab", {"k": 1}]).values == [
        ((1, 2),),
        ("ab",),
        ({"k": 1},),
    ]


def test_a_tuple_config_of_a_one_parameter_function_is_several_values():
    def f(shape):
        return shape

    with pytest.raises(errors.ConfigError) as info:
        bound(f, decorator_configs=[(100, 200)])
    message = str(info.value)
    assert message.startswith("Configs have 2 arguments, but function expects 1")
    assert "configs=[((100, 200),)]" in message  # how to give a tuple-valued parameter
    assert calls_of(f, decorator_configs=[((100, 200),)]) == [(100, 200)]


def test_configs_of_different_lengths_raise_before_any_run():
    def f(n):
        return n

    with pytest.raises(errors.ConfigError) as info:
        bound(f, decorator_configs=[(1,), (1, 2), 3])
    assert str(info.value) == (
        "All configs must have the same number of arguments. Found lengths: [1, 2, 1]"
    )


def test_trailing_defaults_are_filled():
    def f(n, dtype="fp16", scale=2.0):
        return (n, dtype, scale)

    b = bound(f, decorator_configs=[(1,), (2,)])
    assert b.columns == ["n", "dtype", "scale"]
    assert b.values == [(1, "fp16", 2.0), (2, "fp16", 2.0)]
    assert calls_of(f, decorator_configs=[(1, "bf16")]) == [(1, "bf16", 2.0)]


def test_keyword_only_parameters_are_passed_by_keyword():
    def f(n, *, dtype, scale=1):
        return (n, dtype, scale)

    b = bound(f, decorator_configs=[(1, "a")])
    assert b.calls == [((1,), {"dtype": "a", "scale": 1})]
    assert calls_of(f, decorator_configs=[(2, "b", 3)]) == [(2, "b", 3)]


def test_varargs_and_kwargs_are_tolerated():
    def f(n, *args, **kwargs):
        return (n, args, kwargs)

    assert bound(f, decorator_configs=[5]).columns == ["n"]
    assert calls_of(f, decorator_configs=[5, 6]) == [(5, (), {}), (6, (), {})]


def test_generators_and_iterables_are_materialised():
    def f(n, m):
        return n * m

    gen = ((n, m) for n in (1, 2) for m in (3, 4))
    assert len(bound(f, call_configs=gen).values) == 4
    assert len(bound(f, call_configs=itertools.product([1, 2], [3])).values) == 2


def test_positional_arguments_form_one_config():
    def f(n, dtype="fp16"):
        return (n, dtype)

    assert calls_of(f, args=(7,)) == [(7, "fp16")]
    assert calls_of(f, args=(7, "bf16")) == [(7, "bf16")]

    # A tuple-valued argument stays a tuple.
    def g(shape):
        return shape

    assert calls_of(g, args=((3, 4),)) == [(3, 4)]


def test_no_configs_and_no_required_parameters_gives_one_empty_config():
    def f():
        return "ran"

    def g(n=3):
        return n

    assert bound(f).values == [()]
    assert calls_of(g) == [3]
    assert bound(g).columns == ["n"]


def test_keyword_arguments_at_call_time_are_fixed_columns():
    def f(n, dtype="fp16", *, scale=1.0):
        return (n, dtype, scale)

    b = bound(f, call_configs=[1, 2], kwargs={"dtype": "bf16", "scale": 0.5})
    assert b.columns == ["n", "dtype", "scale"]
    assert b.values == [(1, "bf16", 0.5), (2, "bf16", 0.5)]
    assert calls_of(f, call_configs=[1, 2], kwargs={"dtype": "bf16", "scale": 0.5}) == [
        (1, "bf16", 0.5),
        (2, "bf16", 0.5),
    ]


def test_keyword_argument_for_a_middle_parameter():
    def f(a, b, c):
        return (a, b, c)

    b = bound(f, call_configs=[(1, 3)], kwargs={"b": 2})
    assert b.values == [(1, 2, 3)]
    assert calls_of(f, call_configs=[(1, 3)], kwargs={"b": 2}) == [(1, 2, 3)]


def test_extra_keywords_go_to_var_keyword():
    def f(n, **opts):
        return (n, opts)

    b = bound(f, call_configs=[1], kwargs={"mode": "x"})
    assert b.columns == ["n", "mode"]
    assert calls_of(f, call_configs=[1], kwargs={"mode": "x"}) == [(1, {"mode": "x"})]


def test_unknown_keyword_names_the_valid_parameters():
    def f(n, dtype="fp16"):
        pass

    with pytest.raises(errors.ConfigError) as info:
        bound(f, call_configs=[1], kwargs={"dtyp": "x"})
    assert "dtyp" in str(info.value)
    assert "n, dtype" in str(info.value)


def test_positional_only_cannot_be_fixed_by_keyword():
    def f(n, /, m):
        pass

    with pytest.raises(errors.ConfigError, match="positional-only"):
        bound(f, call_configs=[1], kwargs={"n": 1})


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"decorator_configs": [(1,), (1, 2)]}, "Found lengths: [1, 2]"),
        (
            {"decorator_configs": [(1, 2, 3)]},
            "Configs have 3 arguments, but function expects between 1 and 2",
        ),
        ({"call_configs": []}, "cannot be empty"),
        ({"call_configs": 5}, "must be an iterable"),
        ({"call_configs": "ab"}, "must be an iterable"),
        ({"call_configs": [(1,)], "decorator_configs": [(1,)]}, "decoration time and at runtime"),
        ({"args": (1,), "call_configs": [(1,)]}, "positional arguments form one config"),
        ({"args": (1,), "decorator_configs": [(1,)]}, "positional arguments form one config"),
        ({}, "no configs"),
        ({"decorator_configs": [5]}, "not a sequence"),
    ],
)
def test_config_errors(kw, message):
    def f(n, dtype="fp16"):
        pass

    with pytest.raises(errors.ConfigError) as info:
        bound(f, **kw)
    assert message in str(info.value)


def test_arity_error_names_the_parameters():
    def f(n, m):
        pass

    with pytest.raises(errors.ConfigError) as info:
        bound(f, decorator_configs=[(1,)])
    assert "f(n, m)" in str(info.value)
    assert "expects 2" in str(info.value)


def test_core_values():
    import numpy as np

    assert core_value(True) == 1
    assert core_value(np.int32(4)) == 4 and type(core_value(np.int32(4))) is int
    assert core_value(np.float32(0.5)) == 0.5 and type(core_value(np.float32(0.5))) is float
    assert core_value("fp16") == "fp16"
    assert core_value((1, 2)) == "(1, 2)"
    assert core_value(None) == "None"


class Spy:
    def __init__(self):
        self.calls = 0


@pytest.mark.parametrize(
    "call",
    [
        lambda b: b(configs=[(1, 2, 3)]),
        lambda b: b(configs=[]),
        lambda b: b(configs=[(1,)], nope=1),
        lambda b: b(1, configs=[(1,)]),
        lambda b: b(),
    ],
)
def test_config_errors_come_before_gpu_work(call):
    spy = Spy()

    @kprof.analyze.kernel(verbosity=kprof.VerbosityLevel.SILENT)
    def bench(n, m=0):
        spy.calls += 1

    with pytest.raises(errors.ConfigError):
        call(bench)
    assert spy.calls == 0


def test_decoration_time_configs_are_checked_at_decoration():
    def bench(n):
        pass

    with pytest.raises(errors.ConfigError, match="cannot be empty"):
        kprof.analyze.kernel(configs=[])(bench)
    with pytest.raises(errors.ConfigError, match="iterable"):
        kprof.analyze.kernel(configs=3)(bench)


def test_decoration_time_generator_is_read_once():
    def bench(n):
        pass

    wrapped = kprof.analyze.kernel(configs=(n for n in (1, 2, 3)))(bench)
    assert wrapped._kprof_profiler.decorator_configs == [1, 2, 3]


def test_no_configs_says_what_nsight_python_says_first():
    def f(n):
        pass

    with pytest.raises(errors.ConfigError) as info:
        bound(f)
    message = str(info.value)
    assert message.startswith(
        "You have provided no configs. Provide configs at decoration time or at runtime."
    )
    assert "f(n)" in message and "(n)" in message
