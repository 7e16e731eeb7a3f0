"""What the machine running the tests has, for tests that need it: an NVIDIA driver, a headless
browser."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import pytest


def has_driver() -> bool:
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    return True


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chromium-headless-shell"):
        path = shutil.which(name)
        if path:
            return path
    return None


def headless_chromium(page: Path, tmp_path: Path, width: int, height: int, *args: str) -> str:
    """Runs headless Chromium on `page` in a window of width x height with `args` (such as
    ``--screenshot=PATH`` or ``--dump-dom``); returns what it printed. Skips the test where
    there is no Chromium."""
    browser = _chromium()
    if browser is None:
        pytest.skip("no chromium binary (Debian: apt-get install chromium)")
    done = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--user-data-dir={tmp_path / 'profile'}",
            f"--window-size={width},{height}",
            *args,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout
