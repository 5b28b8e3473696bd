"""A printed ``ndbsim`` command that does not fit the terminal breaks with the shell's line
continuation, so that it runs as printed when copied from ``ndbsim`` to its end (issue 47: every
printed command runs as printed, no line wider than the terminal)."""

from __future__ import annotations

import shlex

from ndbsim.output.stdout import fit

CHECK = (
    "  check: ndbsim run mine.yaml -n 3 --seed 1 --set data.size=70G --set data.disk_data_size=300G "
    "--set workload.updates_per_s=30000 --set restart.type=rolling --set cluster.config.RecoveryWork=40"
)


def test_a_command_wider_than_the_terminal_continues_with_a_backslash():
    lines = fit(CHECK, 60).splitlines()
    assert len(lines) > 1 and max(map(len, lines)) <= 60
    assert all(x.endswith(" \\") for x in lines[:-1]) and not lines[-1].endswith("\\")
    pasted = "\n".join(lines)
    pasted = pasted[pasted.index("ndbsim run") :].replace("\\\n", " ")
    assert shlex.split(pasted) == shlex.split(CHECK[CHECK.index("ndbsim run") :])


def test_prose_wraps_without_a_backslash():
    prose = "a long sentence of prose " * 8
    lines = fit(prose, 60).splitlines()
    assert len(lines) > 1 and not any(x.endswith("\\") for x in lines)


def test_prose_naming_a_command_wraps_without_a_backslash():
    prose = "margin: the default, 60%, is where ndbsim run warns error 410 is close " * 3
    assert not any(x.endswith("\\") for x in fit(prose, 60).splitlines())
