"""What kprof makes of each recording in tests/data: DataFrames, text, CSV, JSON, the CLI report
and the HTML report, as text. The contract test compares them with the copies kept under
tests/data/contract/, so that a change of the code that changes an output shows up as a diff.

Regenerate after a deliberate change of an output (and say why in the commit):

    python3 tests/python/contract_outputs.py --write
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data"
CONTRACT = DATA / "contract"


def recordings() -> list[Path]:
    return sorted(DATA.glob("h200-*.json"))


def _type(column) -> str:
    """A column's dtype by name; text is "str" in every pandas (pandas before 3, which Python
    3.10 gets, keeps text in object columns, a missing one as None)."""
    name = str(column.dtype)
    values = column.dropna()
    if name == "object" and len(values) and all(isinstance(v, str) for v in values):
        return "str"
    return name


def _frame(df) -> str:
    """A DataFrame as CSV, with its dtypes first: a column that changes type is a change."""
    buffer = io.StringIO()
    buffer.write(",".join(f"{c}:{_type(df[c])}" for c in df.columns) + "\n")
    df.to_csv(buffer, index=False)
    return buffer.getvalue()


def _cli_report(path: Path) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "kprof.cli", "report", path.name],
        cwd=path.parent,  # the report names the file as given: no path of this checkout
        capture_output=True,
        text=True,
        timeout=120,
    )
    return f"exit {result.returncode}\n{result.stdout}{result.stderr}"


def _html_page(results, name: str) -> str:
    from kprof.report import render_html

    page = render_html(results, plots=False, source=name)
    # The footer says when the page was written.
    return re.sub(r"<footer>.*</footer>", "<footer></footer>", page)


def _csv_files(results) -> dict[str, str]:
    with tempfile.TemporaryDirectory() as folder:
        paths = results.write_csv(folder + os.sep, "contract")
        return {
            "csv/" + os.path.basename(p): Path(p).read_text(encoding="utf-8") for p in sorted(paths)
        }


def outputs(path: Path) -> dict[str, str]:
    """Every output of one recording, by name."""
    import kprof
    from kprof.report import results_html

    results = kprof.load(path)
    out = {
        "to_dataframe": _frame(results.to_dataframe()),
        "raw_dataframe": _frame(results.raw_dataframe()),
        "records_dataframe": _frame(results.records_dataframe()),
        "runs_dataframe": _frame(results.runs_dataframe()),
        "table": results.table(),
        "to_json": results.to_json(),
        "session": json.dumps(results.session, sort_keys=True, default=str),
        "results_html": results_html(results),
        "report_html": _html_page(results, path.name),
        "cli_report": _cli_report(path),
    }
    out.update(_csv_files(results))
    return out


def contract_file(path: Path) -> Path:
    return CONTRACT / (path.stem + ".json")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite tests/data/contract/")
    args = parser.parse_args(argv)
    if not args.write:
        parser.print_help()
        return 2
    CONTRACT.mkdir(exist_ok=True)
    for path in recordings():
        text = json.dumps(outputs(path), indent=1, sort_keys=True) + "\n"
        contract_file(path).write_text(text, encoding="utf-8")
        print(f"wrote {contract_file(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
