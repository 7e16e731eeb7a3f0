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


def write_atomic(
    path: str | os.PathLike[str], write: Callable[[BinaryIO], None], *, overwrite: bool = True
) -> str:
    """Calls ``write(file)`` on a temporary file next to ``path``, then moves it into place, so
    a reader never sees half a file and a failure leaves any existing file as it was. Missing
    folders are created; the file gets the permissions the umask gives a new file.

    Without ``overwrite`` an existing file raises :class:`kprof.errors.OutputExistsError`,
    checked again at the moment the file appears (a hard link cannot replace a file), so a
    file another process wrote meanwhile is not replaced either.
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        raise _os_error(IsADirectoryError, f"{path} is a folder: give a file name in it")
    if not overwrite and os.path.exists(path):
        raise OutputExistsError(f"{path} exists; pass overwrite=True to replace it")
    folder = os.path.dirname(path) or "."
    base = os.path.basename(path)
    tmp = os.path.join(folder, f".{base}.{secrets.token_hex(4)}.tmp")
    try:
        os.makedirs(folder, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as e:  # said of the file asked for, not of the temporary one
        raise _os_error(type(e), f"cannot write {path}: {e.strerror or e}", e.errno) from None
    try:
        with os.fdopen(fd, "wb") as out:
            write(out)
        if overwrite:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise OutputExistsError(
                    f"{path} exists; pass overwrite=True to replace it"
                ) from None
            except OSError:  # no hard links on this file system: check, then rename
                if os.path.exists(path):
                    raise OutputExistsError(
                        f"{path} exists; pass overwrite=True to replace it"
                    ) from None
                os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path
