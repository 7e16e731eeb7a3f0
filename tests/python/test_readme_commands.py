"""CI runs the README's own commands (.ci/readme_commands.py reads them from its "Two commands"
section): an edit of the README that leaves CI nothing to run fails here, not silently there."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / ".ci" / "readme_commands.py"


def _module():
    spec = importlib.util.spec_from_file_location("readme_commands", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False
    )


def test_the_readme_gives_ci_its_packages_venv_and_test_command():
    packages = _run("packages")
    assert packages.returncode == 0, packages.stderr
    assert "python3-venv" in packages.stdout.split()
    venv = _run("venv")
    assert venv.returncode == 0, venv.stderr
    assert "python3 -m venv" in venv.stdout and "activate" in venv.stdout
    test = _run("test")
    assert test.returncode == 0, test.stderr
    assert "pip install" in test.stdout and "cmake --workflow --preset test" in test.stdout


@pytest.mark.parametrize("kind", ["packages", "venv", "test"])
def test_a_readme_without_the_command_is_refused(tmp_path, kind):
    readme = tmp_path / "README.md"
    readme.write_text("# kprof\n\n## Two commands\n\nProse, no block.\n\n## Python\n")
    done = _run(kind, str(readme))
    assert done.returncode == 1
    assert f"0 {kind} commands" in done.stderr


def test_a_readme_without_the_section_is_refused(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# kprof\n\n```\npython3 -m venv .venv\n```\n")
    done = _run("venv", str(readme))
    assert done.returncode == 1
    assert 'no "## Two commands" section' in done.stderr


def test_only_the_sections_fenced_blocks_count():
    """A command in the section's prose, in another section or given twice is no command CI can
    run: only exactly one line of the section's fenced blocks is."""
    module = _module()
    text = (
        "## Two commands\n\nRun `python3 -m venv x` in prose.\n\n```\n"
        "python3 -m venv .venv && . .venv/bin/activate\n```\n\n"
        "## Other\n\n```\npython3 -m venv elsewhere\n```\n"
    )
    assert module.command(text, "venv") == "python3 -m venv .venv && . .venv/bin/activate"
    twice = text.replace("## Other", "```\npython3 -m venv again\n```\n\n## Other")
    with pytest.raises(module.ReadmeError, match="2 venv commands"):
        module.command(twice, "venv")


def test_the_packages_are_the_words_after_apt_get_install():
    module = _module()
    text = "## Two commands\n\n```\nsudo apt-get install -y python3 g++\n```\n"
    assert module.packages(text) == ["python3", "g++"]
