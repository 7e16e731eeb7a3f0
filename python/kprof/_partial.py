# SPDX-License-Identifier: Apache-2.0
"""What a failed or interrupted call of a decorated function keeps: the error's
``partial_results`` with the call's own config objects, saved under ``output_prefix`` when the
user gave one or asked for ``output_csv``, and one line that says so (Ctrl-C always gets it).
The file names and the line are the core's (``_core.save_partial_results``)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from kprof._native import core as _core
from kprof._options import Settings
from kprof.collectors import CollectorCalls
from kprof.configs import BoundConfigs
from kprof.results import ProfileResults

__all__ = ["keep", "with_call_configs"]


def with_call_configs(
    err: BaseException, bound: BoundConfigs, collected: CollectorCalls | None = None
) -> None:
    """Gives the error's partial results the original config objects (and the objects the
    info collectors returned)."""
    partial = getattr(err, "partial_results", None)
    if isinstance(partial, ProfileResults) and partial.parameters == bound.columns:
        with contextlib.suppress(ValueError):
            err.partial_results = ProfileResults(  # type: ignore[attr-defined]
                partial.core,
                bound.columns,
                bound.values,
                info_objects=collected.objects if collected is not None else None,
            )


def keep(
    err: BaseException,
    bound: BoundConfigs,
    collected: CollectorCalls,
    settings: Settings,
    tag: str,
    say: Callable[[str], None],
) -> None:
    """Everything a failed call keeps of ``err``'s partial results (see the module)."""
    with_call_configs(err, bound, collected)
    partial = getattr(err, "partial_results", None)
    if not isinstance(partial, ProfileResults):
        return
    saved: list[str] = []
    given = settings.output_prefix if settings.prefix_given else ""
    if _core.saves_partial_results(settings.output_csv, given):
        try:
            saved = list(
                _core.save_partial_results(
                    partial.core, settings.output_prefix, tag, settings.output_csv
                )
            )
        except Exception as failed:  # the error that stopped the call is the one to report
            say(f"the partial results could not be saved: {failed}")
    if saved or isinstance(err, KeyboardInterrupt):
        what = "interrupted" if isinstance(err, KeyboardInterrupt) else type(err).__name__
        say(f"{tag}: {what}; {_core.partial_results_note(partial.core, saved)}")
