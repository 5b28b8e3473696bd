"""The package imports lightly: ``ndbsim --help`` loads none of the simulation's libraries, and
the API's names stay the functions however the modules behind them were imported."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("numpy", "pydantic", "simpy", "pandas", "yaml")


def test_help_imports_no_numpy_pydantic_or_simpy():
    code = (
        "import sys\n"
        "from ndbsim.cli.app import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "Usage" in p.stdout
    assert p.stdout.strip().splitlines()[-1] == "[]"


def test_api_names_are_the_functions_whatever_was_imported_first():
    code = (
        "import ndbsim.models.simulate, ndbsim.studies.sweep\n"
        "from ndbsim.studies.sweep import load_sweep\n"
        "import ndbsim\n"
        "print(callable(ndbsim.simulate), ndbsim.simulate.__name__, ndbsim.sweep.__name__, callable(ndbsim.sweep))\n"
        "print(ndbsim.simulate(replications=1).status)\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert p.stdout.split() == ["True", "simulate", "sweep", "True", "ok"]


def test_the_lazy_names_are_listed_and_an_unknown_one_is_an_attribute_error():
    import ndbsim

    assert {"simulate", "sweep", "Result", "use_constants", "InputError"} <= set(dir(ndbsim))
    try:
        ndbsim.no_such_name  # noqa: B018
    except AttributeError as e:
        assert "no_such_name" in str(e)
    else:
        raise AssertionError("ndbsim.no_such_name did not raise")
