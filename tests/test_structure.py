"""The package's shape: no import cycle anywhere in the package (inside the engine included),
no engine module importing the modules that use it, and functions of the engine, the studies and
the command line short enough to read at once. Read from the source with ``ast`` (the import
graph of ``test_import_layers``)."""

from __future__ import annotations

import ast

import pytest
from conftest import ROOT
from test_import_layers import cycles, import_graph

ENGINE = ROOT / "ndbsim" / "engine"
STUDIES = ROOT / "ndbsim" / "studies"
CLI = ROOT / "ndbsim" / "cli"

MAX_FUNCTION_LINES = 60
"""The longest a function (or method) in ``ndbsim/engine/``, ``ndbsim/studies/`` or ``ndbsim/cli/``
may be, from its ``def`` to its last line, docstring and comments included."""

ABOVE_THE_ENGINE = ("ndbsim.cli.app", "ndbsim.output.table", "ndbsim.studies.sweep", "ndbsim.models.simulate")
"""Modules that use the engine: the engine must not import them."""


def test_the_import_graph_sees_imports_at_every_level():
    graph = import_graph()
    assert "ndbsim.engine.lcp.master" in graph["ndbsim.engine.runtime"]  # module level
    assert "ndbsim.engine.run" in graph["ndbsim.models.ndb"]  # inside a function


def test_ndbsim_has_no_import_cycle_not_even_inside_the_engine():
    assert cycles(import_graph()) == []


@pytest.mark.parametrize("above", ABOVE_THE_ENGINE)
def test_the_engine_imports_nothing_above_it(above):
    graph = import_graph()
    users = sorted(m for m, deps in graph.items() if m.startswith("ndbsim.engine") and above in deps)
    assert users == []


def long_functions(package):
    """Every function (or method) of ``package`` over ``MAX_FUNCTION_LINES``, as file:line name (lines)."""
    long = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.name}:{node.lineno} {node.name} ({lines} lines)")
    return long


def test_the_length_check_sees_a_long_function(tmp_path):
    body = "".join(f"        x = {i}\n" for i in range(MAX_FUNCTION_LINES))
    (tmp_path / "m.py").write_text(f"def short():\n    pass\n\n\nclass C:\n    def long(self):\n{body}")
    assert long_functions(tmp_path) == [f"m.py:6 long ({MAX_FUNCTION_LINES + 1} lines)"]


def test_no_engine_function_over_60_lines():
    assert long_functions(ENGINE) == []


def test_no_cli_function_over_60_lines():
    assert long_functions(CLI) == []


def test_no_studies_function_over_60_lines():
    assert long_functions(STUDIES) == []


MAX_MODULES_SIDE_BY_SIDE = 16
"""The most Python modules one folder of the package may hold side by side (``__init__`` counted):
past about fifteen a reader can no longer tell the entry from the parts, and the folder wants rooms."""


def crowded_folders(root=ROOT / "ndbsim"):
    """Folders of the package holding more than ``MAX_MODULES_SIDE_BY_SIDE`` modules, with their count."""
    counts = {d: len(list(d.glob("*.py"))) for d in [root, *(p for p in root.rglob("*") if p.is_dir())]}
    return sorted(f"{d.relative_to(root)}: {n}" for d, n in counts.items() if n > MAX_MODULES_SIDE_BY_SIDE)


def test_the_crowding_check_sees_a_crowded_folder(tmp_path):
    for i in range(MAX_MODULES_SIDE_BY_SIDE + 1):
        (tmp_path / f"m{i}.py").write_text("")
    assert crowded_folders(tmp_path) == [f".: {MAX_MODULES_SIDE_BY_SIDE + 1}"]


def test_no_folder_holds_more_than_about_15_modules():
    assert crowded_folders() == []
