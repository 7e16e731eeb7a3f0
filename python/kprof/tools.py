# SPDX-License-Identifier: Apache-2.0
"""Tool management (nsight-python 1.1's ``nsight.Tool``, ``activate``, ``deactivate``,
``get_active_tool``), with kprof's meaning.

nsight-python 1.1 has two tools: ``Tool.NCU`` (Nsight Compute, its default) and
``Tool.CUPTI`` (an in-process CUPTI backend). kprof *is* an in-process CUPTI profiler:
``Tool.CUPTI`` is kprof's engine, always available and the default. ``Tool.NCU`` measures each
call with Nsight Compute instead (:mod:`kprof.ncu`: the script runs again in a child process
under ``ncu``, whose report kprof reads); activating it needs ``ncu`` (on PATH, or
``$KPROF_NCU``), else :class:`kprof.errors.ToolUnavailableError`.

The rules are nsight-python's: activating the active tool again does nothing; activating
another while one is active raises :class:`kprof.errors.ToolError`; ``deactivate`` with no
tool active does nothing. Neither tool stays loaded in the process (Nsight Compute runs in the
child), so ``deactivate`` always clears the active tool, where nsight-python's attached Nsight
Compute cannot be unloaded. ``Tool.CUPTI`` may be activated before or after CUDA is initialised
(kprof subscribes to CUPTI only while a profile runs, so activation itself touches nothing).
A profile run with no tool active activates ``Tool.CUPTI``, as nsight-python's first profile
loads its default tool.
"""

from __future__ import annotations

import enum

from kprof.errors import OptionError, ToolError

__all__ = ["Tool", "activate", "deactivate", "get_active_tool"]


class Tool(str, enum.Enum):
    """The profiling tools: ``CUPTI``, kprof's own in-process engine, and ``NCU``, Nsight
    Compute running the script in a child process."""

    NCU = "ncu"
    CUPTI = "cupti"


_active: Tool | None = None


def activate(tool: Tool) -> None:
    """Makes ``tool`` the active tool of this process.

    Raises:
        kprof.errors.OptionError: ``tool`` is not a :class:`kprof.Tool` (a ``ValueError``,
            as nsight-python's).
        kprof.errors.ToolError: Another tool is active (a ``RuntimeError``, as
            nsight-python's).
        kprof.errors.ToolUnavailableError: ``Tool.NCU`` without ``ncu`` (on PATH or
            ``$KPROF_NCU``).
    """
    global _active
    if not isinstance(tool, Tool):
        raise OptionError(
            "tool", repr(tool), f"a kprof.Tool member ({', '.join(t.name for t in Tool)})"
        )
    if _active is not None:
        if _active == tool:
            return
        raise ToolError(f"{_active!r} is already active; cannot switch to {tool!r}")
    if tool == Tool.NCU:
        from kprof.ncu import find_ncu

        find_ncu()
    _active = tool


def deactivate() -> None:
    """Clears the active tool; does nothing when none is active. (kprof's engine holds
    nothing between profiles, and Nsight Compute runs in a child process: there is nothing to
    unload.)"""
    global _active
    _active = None


def get_active_tool() -> Tool | None:
    """The active :class:`kprof.Tool`, or ``None`` when none was activated (and no profile
    ran since the last :func:`deactivate`)."""
    return _active


def _profile_starts() -> None:
    """A profile is about to run: with no tool active, kprof's engine becomes the active
    tool (nsight-python loads its default tool on the first profile)."""
    global _active
    if _active is None:
        _active = Tool.CUPTI
