"""kprof.annotate outside a profile: harmless, nestable, checks names; ignore_failures."""

from __future__ import annotations

import sys
import threading
import warnings

import kprof
import pytest
from kprof import errors


def test_nesting_outside_a_profile_is_harmless():
    with kprof.annotate("outer"):
        with kprof.annotate("inner"):
            with kprof.annotate("innermost"):
                pass
        with kprof.annotate("inner"):  # outside a profile, names may repeat
            pass
    # The stack is empty again: a new top-level annotation works.
    with kprof.annotate("outer"):
        pass


def test_returns_itself_and_reraises():
    a = kprof.annotate("region")
    with pytest.raises(KeyError):
        with a as entered:
            assert entered is a
            raise KeyError("x")
    with a:  # the same object can be used again
        pass


def test_same_object_nested_and_reentrant():
    a = kprof.annotate("rec")

    @a
    def recurse(n):
        return 0 if n == 0 else 1 + recurse(n - 1)

    assert recurse(3) == 3


def test_decorator_keeps_name_and_return_value():
    @kprof.annotate("mul")
    def mul(a, b):
        """Multiplies."""
        return a * b

    assert mul(3, 4) == 12
    assert mul.__name__ == "mul"
    assert mul.__doc__ == "Multiplies."


@pytest.mark.parametrize("name", ["", "a/b"])
def test_invalid_names(name):
    with pytest.raises(errors.AnnotationError):
        with kprof.annotate(name):
            pass


def test_name_must_be_a_string():
    with pytest.raises(TypeError, match="kprof.annotate: name must be a str, not"):
        kprof.annotate(3)


def test_ignore_failures_swallows_with_a_warning():
    with pytest.warns(RuntimeWarning) as record:
        with kprof.annotate("flaky", ignore_failures=True):
            raise MemoryError("out of memory")
    message = str(record[0].message)
    assert "flaky" in message
    assert "MemoryError" in message
    assert "out of memory" in message


def test_ignore_failures_as_decorator():
    @kprof.annotate("flaky", ignore_failures=True)
    def fail():
        raise ValueError("bad")

    with pytest.warns(RuntimeWarning, match="flaky"):
        assert fail() is None


def test_ignore_failures_does_not_swallow_keyboard_interrupt():
    with pytest.raises(KeyboardInterrupt):
        with kprof.annotate("x", ignore_failures=True):
            raise KeyboardInterrupt


def test_without_ignore_failures_nothing_is_swallowed():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ZeroDivisionError):
            with kprof.annotate("x"):
                1 / 0  # noqa: B018


def test_annotations_from_threads():
    errors_seen = []

    def work(i):
        try:
            for _ in range(50):
                with kprof.annotate(f"t{i}"):
                    with kprof.annotate("inner"):
                        pass
        except Exception as e:  # pragma: no cover - reported below
            errors_seen.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors_seen == []


def test_ignore_failures_context_manager():
    with kprof.analyze.ignore_failures():
        raise RuntimeError("warm-up failed")
    with pytest.raises(KeyboardInterrupt):
        with kprof.analyze.ignore_failures():
            raise KeyboardInterrupt

    @kprof.analyze.ignore_failures()
    def warm_up():
        raise ValueError("x")

    warm_up()


def test_closed_without_being_opened():
    a = kprof.annotate("never")
    for exc in (None, ValueError("x")):
        with pytest.raises(errors.AnnotationError, match="'never' was closed without being opened"):
            a.__exit__(type(exc) if exc else None, exc, None)


def test_an_object_open_on_one_thread_is_not_open_on_another():
    a = kprof.annotate("shared")
    opened, release = threading.Event(), threading.Event()

    def hold():
        with a:
            opened.set()
            release.wait()

    t = threading.Thread(target=hold)
    t.start()
    opened.wait()
    try:
        with pytest.raises(errors.AnnotationError, match="closed without being opened"):
            a.__exit__(None, None, None)
        with a:  # this thread's own opening of the same object, while the other's is open
            pass
    finally:
        release.set()
        t.join()


def test_a_closed_annotation_is_not_kept_alive():
    a = kprof.annotate("region")
    before = sys.getrefcount(a)
    with a:
        with a:
            pass
    with pytest.raises(ZeroDivisionError):
        with a:
            1 / 0  # noqa: B018
    assert sys.getrefcount(a) == before


def test_an_annotation_can_be_weakly_referenced():
    import weakref

    region = kprof.annotate("x")
    assert weakref.ref(region)() is region
