"""The model's error for a family with no published restart rests on measured held-out totals
(issue 49): ``input/data/held_out_errors.yaml`` holds each NDB fit case predicted without its
family, the same totals calibration/README quotes from ``check --cross`` (which
tests/test_readme_examples.py checks against the command), and ``model_sd`` is computed from them
and the validation cases, with no factor of its own."""

from __future__ import annotations

import importlib.util
import math
import re
import sys
from pathlib import Path

import pytest

from ndbsim.output.interval import sources
from ndbsim.studies.uncertainty.held_out_errors import HEADER

ROOT = Path(__file__).resolve().parents[2]


def _examples():
    spec = importlib.util.spec_from_file_location("readme_examples", ROOT / "docs" / "readme_examples.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_packaged_file_is_what_the_readme_quotes():
    ex = _examples()
    prose = next(p for p in ex._prose("calibration/README.md") if "initial" in p.figures)
    quoted = re.search(prose.sentence, ex.DOCS["calibration/README.md"].read_text())
    assert quoted
    held = {c["case"]: c["figures"][0]["predicted"] for cs in sources.held_out_errors().values() for c in cs}
    for case, group in (
        ("seed001-70-initial", "initial"),
        ("seed003-dbt2-7.5.10", "c75"),
        ("seed003-dbt2-7.6.6", "c76"),
    ):
        assert ex.same_within(quoted.group(group), f"{held[case]:.1f}", prose.tolerance), (case, held[case])
    assert Path(sources.HELD_OUT_ERRORS_FILE).read_text().startswith(HEADER)


def test_a_family_with_no_published_restart_takes_the_leave_one_family_out_error():
    errors = sources.measured_errors()
    every = [x for xs in errors.values() for x in xs]
    assert {"5.1", "7.0", "7.5", "7.6"} <= set(errors)
    sd, text = sources.model_sd("8.0.35")
    assert sd == pytest.approx(math.sqrt(sum(x * x for x in every) / len(every)))
    assert "leave-one-family-out" in text and "no published 8.0 restart" in text
    # a family's own restarts pull it toward their error, the leave-one-family-out figure counted once
    own = errors["7.6"]
    sd76, _ = sources.model_sd("7.6.6")
    assert sd76**2 == pytest.approx((sum(x * x for x in own) + sd**2) / (len(own) + 1))
    assert not hasattr(sources, "UNPUBLISHED_WIDENING")
