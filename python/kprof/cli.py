"""The ``kprof`` console command: hands ``sys.argv`` to the C++ command line.

The commands live in C++ (``cli/``) and are reached through ``kprof._core.cli_main``; this
module only loads the extension and passes the exit code on. When the extension cannot be loaded
it says so on one line, without a traceback. One exception: ``report`` with ``--plot``,
``--html`` or ``--roofline`` draws with Python libraries, so it goes to ``kprof.report.main``
instead.

Run as ``kprof <command>`` (the console script) or ``python -m kprof.cli <command>``.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from kprof import _native

# Exit code when the compiled part of kprof cannot be loaded or fails unexpectedly.
EXIT_BROKEN_INSTALL = 1
# Exit code after Ctrl-C, as a shell reports a process ended by SIGINT.
EXIT_INTERRUPTED = 130
# Exit code of a command line this installation cannot run (the C++ command's usage code).
EXIT_USAGE = 2


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text or type(error).__name__


def _is_python_report(argv: list[str], core: Any) -> bool:
    """``kprof report`` with an option the command line's table marks as Python's
    (``--plot PATH``, ``--html PATH``, ``--roofline PATH``, ``--metric NAMES``; also
    ``--plot=PATH``)."""
    if len(argv) < 2 or argv[1] != "report":
        return False
    listed = getattr(core, "command_options", None)  # an older extension: C++ answers
    options = listed("report") if listed is not None else []
    python = {name for name, _value, _help, python in options if python}
    return any(arg.split("=", 1)[0] in python for arg in argv[2:])


def _python_report(args: list[str]) -> int:
    """Runs ``kprof.report.main(args)`` with the arguments after ``report``."""
    try:
        report = importlib.import_module("kprof.report")
    except ModuleNotFoundError as error:
        if error.name != "kprof.report":
            raise
        print(
            "kprof report: --plot/--html are not available in this installation of kprof "
            "(no kprof.report module)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    code = report.main(args)
    return 0 if code is None else int(code)


def main() -> int:
    """Runs ``kprof`` with the arguments in ``sys.argv``; returns the exit code."""
    try:
        _core = _native._import_extension()  # CUPTI's wheel found on sys.path too
    except ImportError as error:  # also a missing libkprof or libcupti the extension needs
        print(
            f"kprof: cannot load kprof's compiled extension (kprof._core): {_one_line(error)}",
            file=sys.stderr,
        )
        return EXIT_BROKEN_INSTALL
    if _is_python_report(sys.argv, _core):
        try:
            return _python_report(sys.argv[2:])
        except KeyboardInterrupt:
            print("kprof: interrupted", file=sys.stderr)
            return EXIT_INTERRUPTED
        except Exception as error:  # an unreadable file, a missing plotting library...
            print(f"kprof report: {_one_line(error)}", file=sys.stderr)
            return EXIT_BROKEN_INSTALL
    cli_main = getattr(_core, "cli_main", None)
    if cli_main is None:
        print(
            "kprof: this build of kprof._core has no command line (cli_main); reinstall kprof",
            file=sys.stderr,
        )
        return EXIT_BROKEN_INSTALL
    # The C++ side writes to the process's stdout and stderr directly: let Python's buffers go
    # first so that the output keeps its order.
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        # The arguments as the operating system gave them: a file name that is not UTF-8 is in
        # sys.argv with surrogate escapes, which os.fsencode turns back into its bytes.
        return int(cli_main([os.fsencode(arg) for arg in sys.argv]))
    except KeyboardInterrupt:
        print("kprof: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as error:  # cli_main catches everything in C++; this is a binding failure
        print(f"kprof: internal error: {_one_line(error)}", file=sys.stderr)
        return EXIT_BROKEN_INSTALL


if __name__ == "__main__":
    sys.exit(main())
