# SPDX-License-Identifier: Apache-2.0
"""nsight-python's ``nsight.info_collector`` module: ``from nsight.info_collector import
InfoCollector, CollectionScope`` keeps working with ``import kprof as nsight`` (as
``kprof.info_collector``), giving :class:`kprof.InfoCollector` and :class:`kprof.CollectionScope`
themselves (see :mod:`kprof.collectors`)."""

from __future__ import annotations

from kprof.collectors import CollectionScope, InfoCollector

__all__ = ["CollectionScope", "InfoCollector"]
