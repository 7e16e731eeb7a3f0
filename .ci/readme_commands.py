#!/usr/bin/env python3
"""The commands of the README's "Two commands" section, for CI to run as a user would.

    readme_commands.py packages|venv|test [README]

packages: the Debian packages the section's `apt-get install` line names, one per line;
venv: the command that makes and activates the virtual environment; test: the command that
installs the test extras and runs the tests. Each is read from the section's fenced blocks, so
that CI runs what the README says. Exit status 1, with a message, when the section or the
command is missing or appears twice.
"""

import re
import sys
from pathlib import Path

SECTION = "## Two commands"
README = Path(__file__).resolve().parent.parent / "README.md"

# What marks each command's line in the section's fenced blocks.
MARKERS = {
    "packages": re.compile(r"\bapt-get install\b"),
    "venv": re.compile(r"-m venv\b"),
    "test": re.compile(r"--preset test\b"),
}


class ReadmeError(Exception):
    pass


def section_blocks(text):
    """The lines inside fenced blocks of the section, in order."""
    lines = text.splitlines()
    if SECTION not in lines:
        raise ReadmeError(f'the README has no "{SECTION}" section')
    start = lines.index(SECTION) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    inside, found = False, []
    for line in lines[start:end]:
        if line.startswith("```"):
            inside = not inside
        elif inside and line.strip():
            found.append(line.strip())
    return found


def command(text, kind):
    """The one line of the section's blocks that `kind`'s marker matches."""
    matches = [line for line in section_blocks(text) if MARKERS[kind].search(line)]
    if len(matches) != 1:
        raise ReadmeError(
            f'the README\'s "{SECTION}" section has {len(matches)} {kind} commands in its '
            f"fenced blocks (a line matching {MARKERS[kind].pattern!r}); CI runs exactly one"
        )
    return matches[0]


def packages(text):
    """The packages that the section's `apt-get install` line names."""
    line = command(text, "packages")
    words = line.split("apt-get install", 1)[1].split()
    names = [word for word in words if not word.startswith("-")]
    if not names:
        raise ReadmeError(f"the README's apt-get line names no package: {line}")
    return names


def main(argv):
    if len(argv) not in (2, 3) or argv[1] not in MARKERS:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    path = Path(argv[2]) if len(argv) == 3 else README
    try:
        text = path.read_text(encoding="utf-8")
        print("\n".join(packages(text)) if argv[1] == "packages" else command(text, argv[1]))
    except (OSError, ReadmeError) as error:
        print(f"readme_commands: {path}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
