"""docs/cli.md's examples are what the command prints: every fenced block that shows a ``$ kprof
...`` command is run here and its output compared with the block's text.

A marker on the line before a block's fence says how it is checked:

- ``<!-- checked -->``: run on any machine;
- ``<!-- checked without a GPU -->``: run where no NVIDIA driver loads (as CI), since the
  output says there is none;
- ``<!-- not checked: <why> -->``: an output that needs a GPU or files of a GPU run, recorded
  there and named as such in the text.

The facts of the machine that prints (its host name, kprof's version, the CUPTI it loads and
where from, its counter permission) are read from ``kprof devices`` and written as the
document's before the comparison. Commands run in a temporary folder that sees the
repository's ``tests`` folder, so that files they write stay there.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from machine import has_driver

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "cli.md"
MARKER = re.compile(r"^<!-- (checked|checked without a GPU|not checked: .+) -->$")
# The document's spelling of the facts that differ from machine to machine.
DOC_FACTS = {
    "host": "vm",
    "kprof": "0.1.0",
    "CUPTI": "13.0.1",
    "CUPTI path": "/opt/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcupti.so.13",
    "counters": "permission yes (root)",
}


@dataclass
class Example:
    line: int  # of the command, in the document
    how: str  # the marker's text
    command: str  # after "$ kprof "
    output: str


def examples() -> list[Example]:
    """Every command of every fenced block that shows one, with the output under it."""
    lines = DOC.read_text(encoding="utf-8").splitlines()
    found: list[Example] = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        body = lines[i + 1 : end]
        if any(b.startswith("$ kprof") for b in body):
            marker = MARKER.match(lines[i - 1]) if i > 0 else None
            assert marker, f"docs/cli.md:{i + 1}: a block of `$ kprof` without a marker above"
            starts = [k for k, b in enumerate(body) if b.startswith("$ ")]
            for n, k in enumerate(starts):
                stop = starts[n + 1] if n + 1 < len(starts) else len(body)
                found.append(
                    Example(
                        line=i + 2 + k,
                        how=marker.group(1),
                        command=body[k][len("$ kprof") :].strip(),
                        output="\n".join(body[k + 1 : stop]) + "\n",
                    )
                )
        i = end + 1
    return found


def run_kprof(args: list[str], cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "kprof.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )
    return done.stdout + done.stderr


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("cli-doc")
    (folder / "tests").symlink_to(ROOT / "tests")
    return folder


@pytest.fixture(scope="module")
def facts(workdir) -> dict[str, str]:
    """This machine's spelling of the facts of DOC_FACTS, from `kprof devices`."""
    out = run_kprof(["devices"], workdir)
    values = {}
    for line in out.splitlines():
        label, _, value = line.partition("  ")
        if label in DOC_FACTS:
            values[label] = value.strip()
    # "13.0.1 (/path/to/libcupti.so.13)": the version, and where it was loaded from.
    cupti = re.fullmatch(r"(\S+) \((.+)\)", values.get("CUPTI", ""))
    assert cupti, out
    values["CUPTI"], values["CUPTI path"] = cupti.groups()
    assert set(values) == set(DOC_FACTS), out
    return values


def as_documented(text: str, facts: dict[str, str]) -> str:
    """`text` with this machine's facts replaced by the document's."""
    # Longest first: a path may hold the version.
    for name, value in sorted(facts.items(), key=lambda fact: -len(fact[1])):
        if value and value != DOC_FACTS[name]:
            text = re.sub(rf"(?<![\w.]){re.escape(value)}(?![\w.])", DOC_FACTS[name], text)
    return text


def command_output(example: Example, cwd: Path) -> str:
    """What the command prints; `| head -N` keeps its first N lines, as the shell would."""
    command, _, pipe = example.command.partition(" | ")
    out = run_kprof(shlex.split(command), cwd)
    if pipe:
        head = re.fullmatch(r"head -(\d+)", pipe.strip())
        assert head, f"docs/cli.md:{example.line}: only `| head -N` is understood"
        out = "".join(out.splitlines(keepends=True)[: int(head.group(1))])
    return out


EXAMPLES = examples()


def test_the_document_has_examples_of_each_kind():
    kinds = {e.how.split(":")[0] for e in EXAMPLES}
    assert kinds == {"checked", "checked without a GPU", "not checked"}, kinds
    assert sum(e.how == "checked" for e in EXAMPLES) >= 8


@pytest.mark.parametrize(
    "example",
    [e for e in EXAMPLES if e.how.startswith("checked")],
    ids=lambda e: f"line{e.line}-{e.command.split(' ')[0] or 'kprof'}",
)
def test_an_example_prints_what_the_document_shows(example, workdir, facts):
    if example.how == "checked without a GPU" and has_driver():
        pytest.skip("this machine has an NVIDIA driver: the example shows a machine without one")
    assert as_documented(command_output(example, workdir), facts) == example.output, (
        f"docs/cli.md:{example.line}: `kprof {example.command}`"
    )


def test_help_forms_print_the_documented_usage(workdir):
    usage = next(e for e in EXAMPLES if e.command == "help").output
    for form in (["--help"], ["help", "--help"], ["help", "help"], []):
        assert run_kprof(form, workdir) == usage, form


def test_no_gpu_is_worded_one_way_in_the_document():
    text = DOC.read_text(encoding="utf-8")
    assert "no GPU available: " in text
    for other in ("No usable GPU", "no usable GPU", "no GPU found"):
        assert other not in text, other
