"""Wrong arguments of kprof's Python functions, on a machine without a GPU: a wrong type is a
TypeError naming the function, the argument and the type given (never a binding's signature
dump, nor an error from inside pandas, matplotlib or pathlib); a value that cannot be used is
an OptionError naming it and what is valid; a flag is a bool."""

from __future__ import annotations

import asyncio
import os
import resource
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import kprof
import pytest
from kprof import errors

DATA = Path(__file__).resolve().parent.parent / "data"
DEMO = DATA / "h200-python-demo-2026-11-30.json"


@pytest.fixture(scope="module")
def demo():
    return kprof.load(DEMO)


def no_signature_dump(info: pytest.ExceptionInfo) -> None:
    assert "incompatible function arguments" not in str(info.value)


# --- wrong types ---------------------------------------------------------------------------------

WRONG_TYPES = [
    ("kprof.load: path must be a str or os.PathLike, not int (42)", lambda r: kprof.load(42)),
    ("kprof.load: path must be a str or os.PathLike, not NoneType", lambda r: kprof.load(None)),
    ("kprof.load: path must be a str or os.PathLike, not bytes", lambda r: kprof.load(b"x.json")),
    ("ProfileResults.save: path must be a str or os.PathLike, not int", lambda r: r.save(42)),
    ("ProfileResults.from_json: text must be a str, not int", lambda r: r.from_json(42)),
    (
        "ProfileResults.to_google_benchmark_json: time_unit must be a str, not int",
        lambda r: r.to_google_benchmark_json(time_unit=1),
    ),
    ("ProfileResults.to_trace: path must be a str or os.PathLike", lambda r: r.to_trace(3.5)),
    (
        "ProfileResults.write_csv: prefix must be a str or os.PathLike",
        lambda r: r.write_csv(1, "t"),
    ),
    (
        "Catalog.describe: name must be a str, not int",
        lambda r: kprof.metrics.catalog("GH100").describe(42),
    ),
    (
        "Catalog.search: pattern must be a str, not int",
        lambda r: kprof.metrics.catalog("GH100").search(42),
    ),
    (
        "Catalog.closest: n must be an int, not str",
        lambda r: kprof.metrics.catalog("GH100").closest("dram", n="3"),
    ),
    ("kprof.merge: parts must be a list of ProfileResults", lambda r: kprof.merge(42)),
    ("kprof.merge: parts must be a list of ProfileResults", lambda r: kprof.merge(str(DEMO))),
    ("kprof.merge: each of parts must be ProfileResults", lambda r: kprof.merge([r, 42])),
    ("kprof.compare: metric must be None, a metric name", lambda r: kprof.compare(r, r, metric=42)),
    (
        "kprof.compare: threshold must be a number, not str",
        lambda r: kprof.compare(r, r, threshold="abc"),
    ),
    (
        "kprof.compare: alpha must be a number, not NoneType",
        lambda r: kprof.compare(r, r, alpha=None),
    ),
    ("kprof.compare: new must be a ProfileResults or the path", lambda r: kprof.compare(r, 7)),
    ("kprof.gather: results must be a ProfileResults, not int", lambda r: kprof.gather(42)),
    ("kprof.gather: timeout_s must be a number, not str", lambda r: kprof.gather(r, timeout_s="1")),
    ("kprof.annotate: name must be a str, not int", lambda r: kprof.annotate(3)),
    (
        "annotate('x', ignore_failures=False) decorates a function, not int",
        lambda r: kprof.annotate("x")(42),
    ),
]


@pytest.mark.parametrize(("message", "call"), WRONG_TYPES, ids=[m for m, _ in WRONG_TYPES])
def test_a_wrong_type_is_a_type_error_naming_the_argument(demo, message, call):
    with pytest.raises(TypeError) as info:
        call(demo)
    assert str(info.value).startswith(message), str(info.value)
    no_signature_dump(info)


# --- values that cannot be used -------------------------------------------------------------------


def test_a_flag_is_a_bool(demo, tmp_path):
    path = tmp_path / "r.json"
    demo.save(path)
    with pytest.raises(errors.OptionError) as info:
        demo.save(path, overwrite="no")  # "no" would otherwise read as True and overwrite
    assert str(info.value) == "overwrite='no' is not valid; valid: True or False"
    with pytest.raises(errors.OptionError, match="passes=1 is not valid; valid: True or False"):
        kprof.metrics.catalog("GH100").describe("dram__bytes_read.sum", passes=1)
    with pytest.raises(errors.OptionError, match="shares='yes' is not valid"):
        kprof.merge([demo], shares="yes")


def test_a_path_with_a_nul_is_refused_before_it_names_another_file(demo, tmp_path):
    """The system's file calls end a path at its first NUL: "a\\0b.json" would write "a"."""
    with pytest.raises(errors.OptionError) as info:
        demo.save(str(tmp_path / "a\0b.json"))
    assert info.value.option == "path" and info.value.valid == "a path without NUL characters"
    with pytest.raises(errors.OptionError, match="without NUL"):
        kprof.load(str(tmp_path / "a\0b.json"))
    assert list(tmp_path.iterdir()) == []


def test_a_path_that_is_not_utf8_text_is_refused(demo, tmp_path):
    with pytest.raises(errors.OptionError, match="a path that is valid UTF-8 text"):
        demo.save(os.fsdecode(bytes(tmp_path) + b"/r\xff.json"))


@pytest.mark.parametrize("name", ["x.txt", "results", "x.csv", "x.json.bak"])
def test_save_takes_the_endings_it_writes(demo, tmp_path, name):
    with pytest.raises(errors.OptionError) as info:
        demo.save(tmp_path / name)
    assert info.value.option == "path"
    assert info.value.valid == "a file name ending in .json, .parquet or .pq"
    assert list(tmp_path.iterdir()) == []


def test_save_says_which_file_it_cannot_write(demo, tmp_path):
    with pytest.raises(errors.KprofError, match=r"cannot write /proc/kprof-sub/x.json: "):
        demo.save("/proc/kprof-sub/x.json")  # a folder that cannot be made
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    with pytest.raises(errors.KprofError, match=rf"cannot write {a_file}/x.json: "):
        demo.save(a_file / "x.json")


def test_a_full_disk_names_the_file(tmp_path):
    """Files stop growing at 8 KiB in the child (EFBIG, as a full disk stops them with
    ENOSPC): the error names the file it was writing."""
    script = textwrap.dedent(
        f"""
        import kprof
        results = kprof.load({str(DEMO)!r})
        for name in ("r.json", "r.parquet"):
            try:
                results.save({str(tmp_path)!r} + "/" + name)
            except Exception as e:
                print(type(e).__name__, e)
        """
    )

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (8 * 1024, 8 * 1024))

    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, preexec_fn=limit
    )
    lines = done.stdout.splitlines()
    assert len(lines) == 2, done.stdout + done.stderr
    assert lines[0].startswith(f"KprofError cannot write {tmp_path}/r.json: "), lines
    assert f"cannot write {tmp_path}/r.parquet: " in lines[1], lines
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no half-written file stays


def test_to_trace_does_not_replace_a_file(demo, tmp_path):
    path = tmp_path / "trace.json"
    path.write_text("mine")
    with pytest.raises(errors.OutputExistsError, match="pass overwrite=True to replace it"):
        demo.to_trace(path)
    assert path.read_text() == "mine"


def test_closest_takes_a_count(demo):
    with pytest.raises(errors.OptionError, match=r"n=-1 is not valid; valid: a count >= 0"):
        kprof.metrics.catalog("GH100").closest("dram", n=-1)


def test_gather_takes_no_negative_timeout(demo):
    with pytest.raises(errors.OptionError, match="timeout_s=-1 is not valid"):
        kprof.gather(demo, timeout_s=-1)


# --- benchmark functions ------------------------------------------------------------------------


async def async_bench(n):
    pass


def generator_bench(n):
    yield n


@pytest.mark.parametrize(
    ("func", "why"),
    [
        (async_bench, "is an async function"),
        (generator_bench, "is a generator function"),
        (len, "is a built-in function"),
        (asyncio.sleep, "is an async function"),
    ],
)
def test_what_cannot_be_a_benchmark_is_refused_when_decorated(func, why):
    with pytest.raises(TypeError) as info:
        kprof.analyze.kernel(configs=[(1,)])(func)
    assert why in str(info.value)
    assert "Decorate a function that does the work inside kprof.annotate" in str(info.value)


def test_a_failed_call_without_output_prefix_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    bench = kprof.analyze.kernel(configs=[(1,)], runs=1)(lambda n: None)
    with pytest.raises(errors.KprofError):  # no GPU here; on one, no region measured a kernel
        bench()
    assert list(tmp_path.iterdir()) == []


# --- annotations, outside a profile as inside ---------------------------------------------------


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("x" * 100_000, "is 100000 bytes long"),
        ("a\0b", "'a\\x00b' contains a control character"),
        ("a\nb", "'a\\nb' contains a control character"),
        ("   ", "'   ' is only blanks"),
        ("a\udcffb", "is not valid UTF-8 text"),
    ],
    ids=["long", "nul", "newline", "blanks", "surrogate"],
)
def test_an_annotation_name_that_cannot_be_one_is_refused(name, why):
    with pytest.raises(errors.AnnotationError) as info:
        with kprof.annotate(name):
            pass
    assert why in str(info.value)
    no_signature_dump(info)
    with kprof.annotate("fine"):  # nothing was left open
        pass


def test_annotations_close_in_order_outside_a_profile_too():
    outer, inner = kprof.annotate("outer"), kprof.annotate("inner")
    outer.__enter__()
    inner.__enter__()
    with pytest.raises(errors.AnnotationError, match="must close in the reverse order"):
        outer.__exit__(None, None, None)
    # Refused, it stays open: closed in order, both close.
    inner.__exit__(None, None, None)
    outer.__exit__(None, None, None)
    with pytest.raises(errors.AnnotationError, match="closed without being opened"):
        outer.__exit__(None, None, None)


def test_one_annotation_entered_twice_nests_as_a_recursive_decorator_does():
    """Entering one object again is its nesting (``outer/outer`` in a profile), as a decorated
    recursive function does: allowed, and closed in order."""

    @kprof.annotate("fib")
    def fib(n):
        return n if n < 2 else fib(n - 1) + fib(n - 2)

    assert fib(6) == 8
    region = kprof.annotate("twice")
    with region, region:
        pass


# --- options given as the wrong kind of list -----------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"metrics": None}, "metrics=None is not valid; valid: a list of metric names (str)"),
        (
            {"metrics": b"gpu__time_duration.sum"},
            "metrics=b'gpu__time_duration.sum' is not valid; valid: a list of metric names",
        ),
        (
            {"metrics": "gpu__time_duration.sum"},
            "valid: a list of metric names (str), e.g. ['gpu__time_duration.sum']",
        ),
        (
            {"ignore_kernel_list": "k"},
            "ignore_kernel_list='k' is not valid; valid: a list of kernel names (str), e.g. ['k']",
        ),
        ({"ignore_kernel_list": {"k": 1}}, "ignore_kernel_list={'k': 1} is not valid"),
    ],
)
def test_a_list_option_takes_a_list_of_names(options, message):
    with pytest.raises(errors.OptionError) as info:
        kprof.analyze.kernel(**options)(lambda: None)
    assert message in str(info.value)
    assert info.value.option == next(iter(options))


def test_a_list_option_still_takes_lists_tuples_and_none_where_unset():
    kprof.analyze.kernel(metrics=("gpu__time_duration.sum",), ignore_kernel_list=None)(lambda: None)
    kprof.analyze.kernel(ignore_kernel_list=["a", "b"])(lambda: None)


def test_an_empty_output_prefix_is_the_current_folder_as_in_nsight_python(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bench = kprof.analyze.kernel(output_prefix="", output_csv=True)(lambda: None)
    assert bench._kprof_profiler.settings.output_prefix == "./"


def test_a_profile_begun_inside_an_open_annotation_is_refused_before_any_gpu_work():
    """The annotation would prefix every region inside it and is no region itself: said when
    the profile begins (an AnnotationError here, where there is no GPU, not a NoGpuError)."""
    bench = kprof.analyze.kernel(configs=[(1,)], runs=1)(lambda n: None)
    with kprof.annotate("experiment"):
        with pytest.raises(errors.AnnotationError, match="'experiment' is still open"):
            bench()
    with pytest.raises(errors.KprofError) as info:  # closed: refused for something else
        bench()
    assert not isinstance(info.value, errors.AnnotationError)
