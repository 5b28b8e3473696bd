"""``ndbsim calibrate``'s two fits, from options to files and the text it prints.

- host (the default with ``--restart-info``): the user's rows fit that cluster's host figures,
  written into the user's scenario; the packaged constants, and so every published case, stay
  as they are.
- constants (``--fit constants``, or no ``--restart-info``): the shared model constants refit on
  the published fit cases and the user's, refused when a published figure leaves its tolerance
  unless ``accept_worse``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ndbsim.input import scenario as sc
from ndbsim.output.io import atomic_write_text
from ndbsim.studies.calibration import calibrate as shared
from ndbsim.studies.calibration.calibrate import Calibration
from ndbsim.studies.calibration.cases import Case, case_from_data, load_cases, predict
from ndbsim.studies.calibration.fit_progress import Steps
from ndbsim.studies.calibration.fit_record import fit_record
from ndbsim.studies.calibration.fit_review import Change, format_cases, format_figures, refused, review, with_constants
from ndbsim.studies.calibration.host_fit import fit_host, format_host, host_text, write_host
from ndbsim.studies.calibration.restart_rows import case_from_restart_info

USER_CASES = Path("ndbsim-cases")
"""Where an import writes its case unless ``--cases`` says: a folder of the user's, in the
current directory, never the repository's ``calibration/``."""


@dataclass
class Report:
    """What a calibrate run prints and how it ends: exit 0, or 1 when the fit was refused."""

    lines: list[str] = field(default_factory=list)
    refused: bool = False
    files: list[str] = field(default_factory=list)
    """The files written, each as ``wrote PATH ...`` (announced on stderr, as every command does)."""

    def add(self, text: str) -> None:
        self.lines.append(text.rstrip("\n"))

    def wrote(self, text: str) -> None:
        self.files.append(text)

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


@dataclass
class Imported:
    """A restart_info export made a case: its data, where it goes and which case it replaces."""

    data: dict[str, Any]
    case: Case
    path: Path
    replaces: Path | None
    why: str = ""


def _same_rows(a: Any, b: Any) -> bool:
    def rows(d: Any) -> Any:
        pub = d.get("published") if isinstance(d, dict) else None
        nodes = pub.get("nodes") if isinstance(pub, dict) else None
        return [(n.get("node_id"), n.get("total_restart_secs"), n.get("phases")) for n in nodes or []]

    return bool(rows(a)) and rows(a) == rows(b)


def import_rows(csv: Path, scenario: Path, node: int | None, directory: Path, sets: Sequence[str] = ()) -> Imported:
    """The case of ``csv``'s rows (its scenario with ``sets`` laid over it), to be written as
    ``directory/user-<csv name>.yaml``; an existing case of the same rows (or the same file name) is
    the one it replaces."""
    data = case_from_restart_info(csv, scenario, node, sets)
    path = directory / f"user-{csv.stem}.yaml"
    replaces, why = None, ""
    for other in sorted(directory.glob("*.yaml")) if directory.is_dir() else []:
        try:
            same = _same_rows(sc.read_yaml(other), data)
        except Exception:  # an unreadable file is not this import's to judge; load_cases reports it
            same = False
        if same:
            replaces, why, path = other, "the same restart_info rows", other
            break
    if replaces is None and path.exists():
        replaces, why = path, "the same file name"
    return Imported(data, case_from_data(data, path), path, replaces, why)


def write_case(imported: Imported, report: Report) -> None:
    note = imported.data["source"].get("note")
    if note:
        report.wrote(f"ndbsim: note: {imported.data['source']['restart_info']}: {note}")
    imported.path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(imported.path, yaml.safe_dump(imported.data, sort_keys=False, allow_unicode=True), "--cases")
    if imported.replaces is not None:
        report.wrote(f"wrote {imported.path}, replacing the calibration case of {imported.why}: one case per restart")
    else:
        report.wrote(f"wrote {imported.path} (a calibration case: ndbsim check --cases {imported.path.parent})")


def _idle(c: Change) -> bool:
    return c.before.published == 0 and abs(c.before.predicted) < 0.05 and abs(c.after.predicted) < 0.05


def host_fit(imported: Imported, scenario: Path, output: Path, progress: bool) -> Report:
    """Fit the imported cluster's host figures; write them into ``output`` (the user's scenario)
    and the case, with the fitted scenario inside, into the user's cases folder."""
    report = Report()
    case = imported.case
    with Steps(progress, "fitting host figures") as steps:
        result = fit_host(case, steps)
    changes = review([case], with_constants(None), lambda c: predict(c, raw=result.raw))
    report.add(f"host fit of {scenario} on {len(case.nodes)} node(s), {result.steps} simulations of the case")
    report.add(format_host(result))
    report.add("the case, before → after (figures within tolerance; worst error in tolerances):")
    report.add(format_cases(changes))
    report.add("each node's own restart, restart_info's columns, before → after:")
    report.add(format_figures(changes, lambda c: not c.before.info and not _idle(c)))
    report.add("(columns that are 0 s in the rows and in both simulations are left out)")
    imported.data["scenario"] = result.raw
    write_case(imported, report)
    record = fit_record(case, [c.after for c in changes], result.fitted)
    write_host(scenario, {n: result.after[n] for n in result.fitted}, output, record)
    fitted = ", ".join(f"{n}={host_text(n, result.after[n])}" for n in result.fitted) or "nothing to change"
    report.wrote(f"wrote {output} (its fitted host figures: {fitted})")
    sets = imported.data["source"].get("set")
    if sets:
        report.wrote(
            f"ndbsim: note: the fit ran {scenario} with --set {' --set '.join(sets)}; {output} keeps the scenario's "
            "own values of those keys (the case holds the scenario as fitted)"
        )
    report.add("the packaged model constants are untouched, so every published case is as it was")
    return report


def cases_for_constants(directory: Path, user: Path | None, extra: list[Case]) -> list[Case]:
    """The cases a constants fit judges: ``directory``'s, the user's folder's and ``extra``, a
    later one replacing an earlier one of the same file name."""
    by_name = {c.path.name: c for c in load_cases(directory)}
    if user is not None and user.is_dir() and user.resolve() != Path(directory).resolve():
        by_name.update({c.path.name: c for c in load_cases(user)} if any(user.glob("*.yaml")) else {})
    by_name.update({c.path.name: c for c in extra})
    return [by_name[k] for k in sorted(by_name)]


def constants_fit(cases: list[Case], progress: bool, innodb_dir: Path) -> tuple[Calibration, list[Change]]:
    """Refit the shared constants on ``cases``; every figure before (the constants in use) and after."""
    with Steps(progress, "fitting model constants") as steps:
        constants, residuals = shared.fit(cases, steps)  # looked up at call time: tests replace it
    models = {id(c.model): c.model for c in cases if c.model.constants_file is not None}
    own = [(m, m.fit_constants(innodb_dir)) for m in models.values()]
    ndb = [c for c in cases if c.model.constants_file is None]
    return Calibration(constants, residuals, cases, own), review(ndb, with_constants(None), with_constants(constants))


def judge(changes: list[Change], accept_worse: bool) -> Report:
    """The before → after tables, and the refusal when a published figure leaves its tolerance."""
    report = Report()
    report.add("every case, before → after (figures within tolerance; worst error in tolerances):")
    report.add(format_cases(changes))
    worse = refused(changes)
    if worse:
        report.add(f"{len(worse)} published figure(s) fall outside their tolerance with this fit:")
        report.add(format_figures(worse))
        if not accept_worse:
            report.add("fit refused: nothing written; add --accept-worse to write it anyway")
            report.refused = True
    return report
