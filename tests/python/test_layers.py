"""The Python package's modules form layers without a cycle: no module imports, even lazily
inside a function or only for type checking, a module that imports it, directly or through
others. Read from the source (every ``import`` and ``from`` anywhere in a module, and
``importlib.import_module`` of a literal name), so it needs no built extension."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent.parent / "python" / "kprof"


def module_names(folder: Path, package: str = "kprof") -> dict[str, Path]:
    """Every module of the package by its dotted name; the package itself is ``package``."""
    names = {}
    for path in sorted(folder.glob("*.py")):
        names[package if path.stem == "__init__" else f"{package}.{path.stem}"] = path
    return names


def _imported(node: ast.AST, module: str, is_package: bool) -> Iterator[tuple[str, list[str]]]:
    """(module, names) for each import statement or import_module call in ``node``."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name, []
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            parts = module.split(".")
            parent = parts if is_package else parts[:-1]
            parent = parent[: len(parent) - (node.level - 1)]
            base = ".".join(parent + ([base] if base else []))
        yield base, [alias.name for alias in node.names]
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "import_module"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        yield node.args[0].value, []


def imports(modules: Mapping[str, Path], package: str = "kprof") -> dict[str, set[str]]:
    """For each module, the package's modules it imports. ``from kprof import x`` imports the
    module ``kprof.x`` when there is one, else the package (``kprof/__init__.py``); importing
    ``kprof.x`` also runs the package's ``__init__``, which the rule leaves aside, as Python
    imports it before any of its modules."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            for base, names in _imported(node, name, path.stem == "__init__"):
                if base != package and not base.startswith(package + "."):
                    continue
                submodules = [f"{base}.{n}" for n in names if f"{base}.{n}" in modules]
                edges.update(submodules)
                if len(submodules) < len(names) or not names:
                    edges.add(base)
        edges.discard(name)
        graph[name] = {m for m in edges if m in modules}
    return graph


def find_cycle(graph: Mapping[str, set[str]]) -> list[str]:
    """A cycle of imports (its modules, the first repeated at the end), or [] when none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return []


def test_the_package_has_no_import_cycle():
    graph = imports(module_names(PACKAGE))
    assert "kprof.results" in graph and "kprof.report" in graph
    cycle = find_cycle(graph)
    assert not cycle, "import cycle: " + " -> ".join(cycle)


def test_errors_and_the_results_data_sit_below_plots_reports_and_files():
    graph = imports(module_names(PACKAGE))
    assert graph["kprof.errors"] == set()  # the bottom layer: errors import no kprof module
    below_data = {
        "kprof._native",
        "kprof.errors",
        "kprof._files",
        "kprof._arguments",
        "kprof._layout_cells",
    }
    assert graph["kprof._layout_cells"] <= {"kprof._native"}  # the layout's columns alone
    assert graph["kprof._arguments"] <= {"kprof.errors"}  # argument checks: errors alone
    assert graph["kprof._results_data"] <= below_data
    for above in ("kprof.visualization", "kprof.report", "kprof._saving", "kprof._parquet"):
        assert "kprof.results" not in graph[above], above
    assert {"kprof.visualization", "kprof.report", "kprof._saving"} <= graph["kprof.results"]


def test_a_cycle_is_found_through_lazy_relative_and_dynamic_imports(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from pkg import a\n")
    (pkg / "a.py").write_text("def f():\n    from . import b\n")
    (pkg / "b.py").write_text("import importlib\nimportlib.import_module('pkg.c')\n")
    (pkg / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.a\n"
    )
    graph = imports(module_names(pkg, "pkg"), "pkg")
    assert graph == {"pkg": {"pkg.a"}, "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.c"}, "pkg.c": {"pkg.a"}}
    assert find_cycle(graph) == ["pkg.a", "pkg.b", "pkg.c", "pkg.a"]
    (pkg / "c.py").write_text("from pkg import __version__\n")  # a name of the package
    graph = imports(module_names(pkg, "pkg"), "pkg")
    assert graph["pkg.c"] == {"pkg"}
    assert find_cycle(graph) == ["pkg", "pkg.a", "pkg.b", "pkg.c", "pkg"]
