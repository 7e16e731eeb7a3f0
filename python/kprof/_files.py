# SPDX-License-Identifier: Apache-2.0
"""Files written whole or not at all: plots, HTML reports, Parquet results."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from typing import BinaryIO

from kprof.errors import OutputExistsError

__all__ = ["write_atomic"]


def _os_error(kind: type[OSError], message: str, errno: int | None = None) -> OSError:
    """An OSError of ``kind`` whose text is ``message`` alone (no "[Errno N]" before it)."""
    error = kind(message)
    error.errno = errno
    return error


def _cannot_write(path: str, error: OSError) -> OSError:
    """``error`` said of the file asked for, not of the temporary file or a folder on the way
    (a full disk, a read-only or virtual file system, a file where a folder should be)."""
    reason = error.strerror or str(error)
    blocker = _file_on_the_way(path)
    if blocker:
        reason = f"{blocker} is a file, not a folder"
    return _os_error(type(error), f"cannot write {path}: {reason}", error.errno)


def _file_on_the_way(path: str) -> str:
    """The first folder of ``path`` that exists as something other than a folder, or ""."""
    folder = os.path.dirname(path)
    parts = []
    while folder and folder not in parts:
        parts.append(folder)
        folder = os.path.dirname(folder)
    for folder in reversed(parts):
        if os.path.exists(folder) and not os.path.isdir(folder):
            return folder
    return ""


def _exists_error(path: str) -> OutputExistsError:
    return OutputExistsError(f"{path} exists; pass overwrite=True to replace it")


def _move_into_place(tmp: str, path: str, overwrite: bool) -> None:
    """Renames ``tmp`` to ``path``; without ``overwrite``, only where no file is."""
    if overwrite:
        os.replace(tmp, path)
        return
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise _exists_error(path) from None
    except OSError:  # no hard links on this file system: check, then rename
        if os.path.exists(path):
            raise _exists_error(path) from None
        os.replace(tmp, path)


def write_atomic(
    path: str | os.PathLike[str],
    write: Callable[[BinaryIO], None],
    *,
    overwrite: bool = True,
    check: Callable[[str], None] | None = None,
) -> str:
    """Calls ``write(file)`` on a temporary file next to ``path``, then moves it into place, so
    a reader never sees half a file and a failure leaves any existing file as it was. Missing
    folders are created; the file gets the permissions the umask gives a new file.

    Without ``overwrite`` an existing file raises :class:`kprof.errors.OutputExistsError`,
    checked again at the moment the file appears (a hard link cannot replace a file), so a
    file another process wrote meanwhile is not replaced either. Any other ``OSError`` (no
    space left, a folder that is a file, a file system that takes no files) is raised again
    with a message that names ``path``: ``cannot write PATH: <reason>``.

    ``check(temporary_path)``, when given, is called on the whole written file before it moves
    into place; what it raises leaves no file behind (a file that could not be read back is
    an error when it is written, not a file).
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        raise _os_error(IsADirectoryError, f"{path} is a folder: give a file name in it")
    if not overwrite and os.path.exists(path):
        raise _exists_error(path)
    folder = os.path.dirname(path) or "."
    base = os.path.basename(path)
    tmp = os.path.join(folder, f".{base}.{secrets.token_hex(4)}.tmp")
    try:
        os.makedirs(folder, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as e:
        raise _cannot_write(path, e) from None
    try:
        with os.fdopen(fd, "wb") as out:
            write(out)
        if check is not None:
            check(tmp)
        _move_into_place(tmp, path, overwrite)
    except OutputExistsError:
        raise
    except OSError as e:
        raise _cannot_write(path, e) from e
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path
