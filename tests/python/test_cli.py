"""The ``kprof`` console command, run as a separate process: exit codes and messages.

The first tests run the shim (python/kprof/cli.py) inside stand-in packages, so they need no
build. The others run the installed command; those that would touch a GPU run only on a machine
without a driver (as CI), or carry the ``gpu`` marker.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from machine import has_driver

ROOT = Path(__file__).resolve().parents[2]
CLI_SOURCE = ROOT / "python" / "kprof" / "cli.py"


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None, command=None):
    cmd = command or [sys.executable, "-m", "kprof.cli"]
    return subprocess.run(
        [*cmd, *args], capture_output=True, text=True, timeout=300, cwd=cwd, env=env
    )


def core_importable() -> bool:
    try:
        import kprof._core  # noqa: F401
    except ImportError:
        return False
    return True


# --- the shim, with stand-in packages -----------------------------------------------------------


@pytest.fixture
def stand_in(tmp_path):
    """A package `kprof` holding the real cli.py and _native.py (which loads the extension),
    and optionally a fake _core."""
    package = tmp_path / "kprof"
    package.mkdir()
    (package / "__init__.py").write_text("")
    shutil.copy(CLI_SOURCE, package / "cli.py")
    shutil.copy(CLI_SOURCE.with_name("_native.py"), package / "_native.py")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}

    def run(core_source: str | None, *args: str):
        if core_source is not None:
            (package / "_core.py").write_text(textwrap.dedent(core_source))
        return run_cli(*args, cwd=tmp_path, env=env)

    return run


def assert_one_clean_line(result, start: str):
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(start), lines[0]


def test_missing_extension_is_one_line_without_traceback(stand_in):
    result = stand_in(None, "devices")
    assert result.returncode == 1
    assert result.stdout == ""
    assert_one_clean_line(result, "kprof: cannot load kprof's compiled extension (kprof._core): ")


def test_extension_that_fails_to_load_names_the_reason(stand_in):
    core = """
        raise ImportError("libcupti.so.13: cannot open shared object file: No such file")
    """
    result = stand_in(core, "demo")
    assert result.returncode == 1
    assert_one_clean_line(result, "kprof: cannot load kprof's compiled extension")
    assert "libcupti.so.13: cannot open shared object file" in result.stderr


def test_extension_without_cli_main(stand_in):
    result = stand_in("version = lambda: '0.0.0'\n", "devices")
    assert result.returncode == 1
    assert_one_clean_line(result, "kprof: this build of kprof._core has no command line")


def test_argv_and_exit_code_pass_through(stand_in):
    core = """
        def cli_main(argv):
            print(repr(argv[1:]))
            return 3
    """
    result = stand_in(core, "demo", "--runs", "5")
    assert result.returncode == 3
    # As the operating system gave them (os.fsencode): a file name need not be UTF-8.
    assert result.stdout == "[b'demo', b'--runs', b'5']\n"
    assert result.stderr == ""


def test_failure_inside_the_binding_is_one_line(stand_in):
    core = """
        def cli_main(argv):
            raise RuntimeError("bad\\nthings")
    """
    result = stand_in(core, "devices")
    assert result.returncode == 1
    assert_one_clean_line(result, "kprof: internal error: bad things")


@pytest.mark.parametrize("entry", ["console-script", "-m"])
def test_real_package_without_extension_is_one_line(tmp_path, entry):
    shutil.copytree(
        ROOT / "python" / "kprof",
        tmp_path / "kprof",
        ignore=shutil.ignore_patterns("_core*", "*.so", "__pycache__"),
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    # What pip's `kprof` console script does, and `python -m kprof.cli`.
    command = (
        [sys.executable, "-c", "import sys; from kprof.cli import main; sys.exit(main())"]
        if entry == "console-script"
        else None
    )
    result = run_cli("devices", cwd=tmp_path, env=env, command=command)
    assert result.returncode == 1
    assert_one_clean_line(result, "kprof: cannot load kprof's compiled extension (kprof._core): ")


# --- the installed command ------------------------------------------------------------------

needs_core = pytest.mark.skipif(not core_importable(), reason="kprof._core is not built/installed")
no_gpu_here = pytest.mark.skipif(has_driver(), reason="this machine has an NVIDIA driver")


@needs_core
def test_version():
    import kprof._core

    result = run_cli("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"kprof {kprof._core.version()}\n"


@needs_core
def test_usage_lists_the_commands():
    result = run_cli()
    assert result.returncode == 0
    assert result.stdout.startswith("usage: kprof <command> [options]\n")
    for command in ("devices", "doctor", "demo", "help"):
        assert f"\n  {command} " in result.stdout
    assert run_cli("help").stdout == result.stdout


@needs_core
def test_unknown_command_is_a_usage_error():
    result = run_cli("frobnicate")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.splitlines()[0] == (
        "kprof: unknown command 'frobnicate'; valid commands: devices, doctor, demo, metrics, "
        "report, compare, export, merge, help"
    )


@needs_core
def test_unknown_option_is_a_usage_error():
    result = run_cli("demo", "--runz", "3")
    assert result.returncode == 2
    assert "unknown option '--runz' (did you mean '--runs'?)" in result.stderr
    assert "Traceback" not in result.stderr


@needs_core
def test_devices_works_on_any_machine():
    result = run_cli("devices")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "\nGPUs " in result.stdout
    if not has_driver():
        assert "\ndriver        none: " in result.stdout
        assert "\nGPUs          0\n" in result.stdout


@needs_core
@no_gpu_here
def test_demo_without_gpu_is_one_line_and_exit_2():
    result = run_cli("demo", "--runs", "2")
    assert result.returncode == 2
    assert result.stdout == ""
    assert_one_clean_line(result, "kprof demo: no GPU available: ")


@needs_core
@no_gpu_here
def test_doctor_without_gpu_fails_and_says_why():
    result = run_cli("doctor")
    assert result.returncode == 1
    assert result.stderr == ""
    driver = next(line for line in result.stdout.splitlines() if "NVIDIA driver" in line)
    assert driver.startswith("FAIL ")
    timing = next(line for line in result.stdout.splitlines() if line.split()[1:2] == ["timing"])
    assert timing.startswith("skip ")
    assert "kprof cannot time kernels on this machine: " in result.stdout


@needs_core
def test_a_file_name_that_is_not_utf8_is_read_or_refused_normally(tmp_path):
    """The name reaches C++ as its bytes: `report` reads the file, or says it cannot."""
    data = Path(__file__).resolve().parents[1] / "data" / "h200-python-demo-2026-11-30.json"
    name = os.fsencode(tmp_path) + b"/demo-\xff\xfe.json"
    shutil.copyfile(data, name)
    cmd = [os.fsencode(sys.executable), b"-m", b"kprof.cli", b"report"]
    done = subprocess.run([*cmd, name], capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert b"file           " + name + b"\n" in done.stdout
    missing = os.fsencode(tmp_path) + b"/missing-\xff.json"
    done = subprocess.run([*cmd, missing], capture_output=True, timeout=300)
    assert done.returncode == 2
    assert done.stderr.startswith(b"kprof report: cannot read FILE: " + missing), done.stderr
    assert b"internal error" not in done.stderr


@needs_core
def test_console_script_runs_the_same_command():
    script = Path(sys.executable).parent / "kprof"
    if not script.exists():
        pytest.skip("no kprof console script next to this Python")
    result = run_cli("--version", command=[str(script)])
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("kprof ")


# --- on a GPU -------------------------------------------------------------------------------


@pytest.mark.gpu
def test_demo_profiles_and_writes_results(tmp_path):
    result = run_cli(
        "demo", "--runs", "3", "--json", str(tmp_path / "demo.json"), "--csv", f"{tmp_path}/d-"
    )
    assert result.returncode == 0, result.stderr
    assert "bandwidth" in result.stdout
    assert "peak bandwidth: " in result.stdout
    document = json.loads((tmp_path / "demo.json").read_text())
    assert document
    written = sorted(p.name for p in tmp_path.glob("d-*.csv"))
    assert written == [
        "d-configs-demo.csv",
        "d-info-demo.csv",
        "d-processed_data-demo.csv",
        "d-profiled_data-demo.csv",
        "d-records-demo.csv",
        "d-runs-demo.csv",
        "d-session-demo.csv",
    ]


@pytest.mark.gpu
def test_doctor_says_timing_works():
    result = run_cli("doctor")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "kprof can time kernels on this machine." in result.stdout
