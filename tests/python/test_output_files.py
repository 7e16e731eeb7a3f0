"""Files kprof writes (plots, HTML pages, Parquet): whole or not at all, never in place of an
existing file unless asked, and every failure to write names the file asked for, not the
temporary file beside it or the folder on the way."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap

import pytest
from conftest import DATA
from kprof._files import write_atomic
from kprof.errors import OutputExistsError

DEMO = DATA / "h200-python-demo-2026-11-30.json"


def test_a_file_where_a_folder_should_be_is_named(tmp_path):
    blocker = tmp_path / "notes.txt"
    blocker.write_text("a file")
    for path in (blocker / "x.png", blocker / "deeper" / "x.png"):
        with pytest.raises(OSError) as info:
            write_atomic(path, lambda out: out.write(b"x"))
        assert str(info.value) == f"cannot write {path}: {blocker} is a file, not a folder"
    assert blocker.read_text() == "a file"


def test_a_file_system_that_takes_no_files_is_said_of_the_path():
    with pytest.raises(OSError) as info:
        write_atomic("/proc/x.png", lambda out: out.write(b"x"))
    assert str(info.value).startswith("cannot write /proc/x.png: ")
    assert ".tmp" not in str(info.value)


def test_a_failed_write_names_the_path_and_keeps_the_old_file(tmp_path):
    path = tmp_path / "plot.png"
    path.write_bytes(b"old")

    def full_disk(out):
        out.write(b"half")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.raises(OSError) as info:
        write_atomic(path, full_disk)
    assert str(info.value) == f"cannot write {path}: No space left on device"
    assert info.value.errno == errno.ENOSPC
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["plot.png"], "no temporary file left behind"


def test_an_existing_file_is_kept_without_overwrite(tmp_path):
    path = tmp_path / "page.html"
    path.write_bytes(b"old")
    with pytest.raises(OutputExistsError, match="exists; pass overwrite=True to replace it"):
        write_atomic(path, lambda out: out.write(b"new"), overwrite=False)
    assert path.read_bytes() == b"old"
    write_atomic(path, lambda out: out.write(b"new"))
    assert path.read_bytes() == b"new"


def test_a_plot_larger_than_the_file_size_limit_is_one_line_naming_it(tmp_path):
    """A real write that fails half-way (the process may write no more than 2 KiB per file,
    as on a disk that fills up): ``kprof report --plot`` says which file, exit code 1."""
    pytest.importorskip("matplotlib")
    path = tmp_path / "plot.png"
    script = textwrap.dedent(
        f"""
        import resource, signal, sys
        from kprof.report import main
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, resource.RLIM_INFINITY))
        sys.exit(main(["report", {str(DEMO)!r}, "--plot", {str(path)!r}]))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert done.stderr == f"kprof report: cannot write {path}: File too large\n"
    assert os.listdir(tmp_path) == []
