"""A recording made slower on purpose: what a comparison of two runs must catch."""

from __future__ import annotations

import json
from pathlib import Path


def slower_copy(recording: Path, folder: Path, factor: float) -> Path:
    """`recording` with every value `factor` times larger, statistics included, written to
    `folder`/slower.json."""
    doc = json.loads(recording.read_text())
    for table, columns in (
        ("samples", ["value"]),
        ("records", ["value"]),
        ("rows", ["mean", "stddev", "min", "max", "median", "ci95_lower", "ci95_upper"]),
    ):
        for c in columns:
            doc[table][c] = [
                v * factor if isinstance(v, (int, float)) else v for v in doc[table][c]
            ]
    path = folder / "slower.json"
    path.write_text(json.dumps(doc))
    return path
