"""YAML through libyaml reads what PyYAML's own parser reads, with the same bounds and the same
errors: the duplicate-key check, nesting and alias bounds, and PyYAML's wording of a syntax error."""

from __future__ import annotations

from pathlib import Path

import pytest
from _helpers import ndbsim

from ndbsim.errors import InputError
from ndbsim.input import safe_load

ROOT = Path(__file__).resolve().parents[2]
FAST = pytest.mark.skipif(safe_load._FastLoader is None, reason="PyYAML built without libyaml")


def _pure(text: str) -> object:
    """``load_yaml`` with only PyYAML's own parser."""
    fast, safe_load._FastLoader = safe_load._FastLoader, None
    try:
        return _outcome(text)
    finally:
        safe_load._FastLoader = fast


def _outcome(text: str) -> object:
    try:
        return ("value", safe_load.load_yaml(text))
    except InputError as e:
        return ("error", str(e))


@FAST
@pytest.mark.parametrize("path", sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob("scenarios/*.yaml")))
def test_libyaml_reads_the_shipped_scenarios_as_pyyaml_does(path: str):
    text = (ROOT / path).read_text(encoding="utf-8")
    assert _outcome(text) == _pure(text)
    assert _outcome(text)[0] == "value"


@FAST
@pytest.mark.parametrize(
    "text",
    [
        "a: 1\nb: {c: 2, c: 3}\n",  # a key given twice
        "a: " + "[" * 70 + "]" * 70,  # nested past MAX_DEPTH
        "a: &x [1]\nb: &y [*x, *x]\nc: [*y, *y, *y]\nd: &z {k: *z}\n",  # an alias inside itself
        "a: b: c\n",  # malformed: PyYAML's words
        "a:\tb\n",  # libyaml takes the tab, PyYAML does not
        "{host: 1, threads_per_?core: 2}\n",  # a ? in a flow mapping: likewise
        "x: " + "9" * 5000,  # an integer past Python's conversion limit
    ],
)
def test_errors_are_pyyamls_whichever_parser_reads_first(text: str):
    got = _outcome(text)
    assert got[0] == "error"
    assert got == _pure(text)


@FAST
def test_the_duplicate_key_check_runs_under_libyaml_too():
    loader = safe_load._FastLoader("a: 1\na: 2\n")
    with pytest.raises(InputError, match="line 2, column 1: key 'a' is given twice"):
        safe_load._load(loader)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: !!int\n", "line 1, column 4: '' is not a !!int value; write one, or drop the !!int tag"),
        ("a: !!int x\n", "line 1, column 4: 'x' is not a !!int value"),
        ("a: [!!float x]\n", "line 1, column 5: 'x' is not a !!float value"),
        ("a: !!bool maybe\n", "line 1, column 4: 'maybe' is not a !!bool value"),
        ("a: !!timestamp 2026\n", "line 1, column 4: '2026' is not a !!timestamp value"),
        ("a: !!int " + "9" * 5000 + "\n", "an integer of 5,000 digits is beyond any value ndbsim takes"),
    ],
)
def test_a_value_its_explicit_tag_cannot_take_is_one_line(text: str, message: str):
    with pytest.raises(InputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        safe_load.load_yaml(text)


def test_a_scenario_with_a_bad_tagged_value_exits_2_naming_the_file(tmp_path):
    (tmp_path / "s.yaml").write_text("data:\n  tables: !!int\n")
    p = ndbsim("validate", "s.yaml", cwd=tmp_path)
    assert p.returncode == 2
    assert p.stderr.strip() == (
        "ndbsim: error: s.yaml: line 2, column 11: '' is not a !!int value; write one, or drop the !!int tag"
    )
