#!/usr/bin/env python3
"""Every C++ file includes what it uses: each C++ translation unit of a build is compiled with
clang and libc++ (-fsyntax-only -Werror).

libstdc++ headers pull in more of each other than the standard asks, and differently from one
GCC to the next (GCC 12's <string> gave std::find, GCC 14's does not), so a missing include
builds with one GCC and fails with the next. libc++ with _LIBCPP_REMOVE_TRANSITIVE_INCLUDES
includes another set of headers than libstdc++ does, and far fewer: a file that builds with
both names most of its headers itself. Not all: libc++'s <string> and <vector> define std::find
and std::min({...}) in the internal headers they include, so these two pass here without
<algorithm>; CI's build with GCC 14 (Debian 13) catches them. Clang's warnings come along under
-Werror.

    check_includes.py BUILD_DIR [FILE ...] [--clang CLANG++] [-j N]

BUILD_DIR holds compile_commands.json (a configured build is enough: the project generates no
header). FILEs (paths from the source folder) limit the check to those units. CUDA sources
(.cu) and third_party/ are not checked. Exit status 1 names each file that failed, with clang's
messages.
"""

import argparse
import concurrent.futures
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

SOURCE_DIR = Path(__file__).resolve().parent.parent
CXX_SUFFIXES = (".cpp", ".cc", ".cxx")
# libc++ keeps, by default, the transitive includes of its older releases for compatibility.
CLANG_FLAGS = ["-stdlib=libc++", "-D_LIBCPP_REMOVE_TRANSITIVE_INCLUDES", "-fsyntax-only", "-Werror"]


def clang_command(entry, clang):
    """The build's command for one unit with clang in place of the compiler, no output file."""
    args = entry.get("arguments") or shlex.split(entry["command"])
    kept = [clang]
    skip_next = False
    for arg in args[1:]:
        if skip_next:
            skip_next = False
        elif arg in ("-o", "-MF", "-MT", "-MQ"):
            skip_next = True
        elif arg not in ("-c", "-MD", "-MMD"):
            kept.append(arg)
    return kept + CLANG_FLAGS


def units(build_dir, only):
    """The C++ units of the project's own sources in the build's compile_commands.json (those
    named in `only`, when given)."""
    database = Path(build_dir) / "compile_commands.json"
    if not database.is_file():
        sys.exit(f"check_includes: {database} does not exist; configure the build first")
    found = {}
    for entry in json.loads(database.read_text()):
        path = Path(entry["directory"], entry["file"]).resolve()
        if not path.is_relative_to(SOURCE_DIR) or path.suffix not in CXX_SUFFIXES:
            continue
        name = str(path.relative_to(SOURCE_DIR))
        if not name.startswith("third_party/") and (not only or name in only):
            found.setdefault(path, entry)  # a file built into two targets is checked once
    if not found:
        sys.exit(f"check_includes: no C++ unit of {SOURCE_DIR} in {database}")
    return found


def check(path, entry, clang):
    done = subprocess.run(
        clang_command(entry, clang),
        cwd=entry["directory"],
        capture_output=True,
        text=True,
    )
    return path, done.returncode, done.stdout + done.stderr


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build_dir")
    parser.add_argument("files", nargs="*")
    parser.add_argument("--clang", default=os.environ.get("KPROF_CLANG", "clang++-19"))
    parser.add_argument("-j", type=int, default=os.cpu_count() or 2)
    options = parser.parse_args()
    found = units(options.build_dir, set(options.files))
    started = time.monotonic()
    failed = []
    with concurrent.futures.ThreadPoolExecutor(options.j) as pool:
        jobs = [pool.submit(check, path, entry, options.clang) for path, entry in found.items()]
        for job in concurrent.futures.as_completed(jobs):
            path, status, output = job.result()
            if status != 0:
                failed.append(path.relative_to(SOURCE_DIR))
                print(f"FAILED {path.relative_to(SOURCE_DIR)}\n{output}", flush=True)
    seconds = time.monotonic() - started
    if failed:
        names = "\n  ".join(str(name) for name in sorted(failed))
        print(
            f"check_includes: {len(failed)} of {len(found)} C++ files fail with "
            f"{options.clang} and libc++ ({seconds:.0f} s):\n  {names}"
        )
        return 1
    print(
        f"check_includes: {len(found)} C++ files compile with {options.clang} and libc++ "
        f"({seconds:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
