"""``ndbsim calibrate``: fit the free constants on the ``fit`` cases, deterministically.

The fit starts from the documented defaults in ``Constants`` (never from the last fit), works
in log space with ``scipy.optimize.least_squares``, weighs each residual by its tolerance and
rounds the result to 4 significant figures, so a second run writes the same file.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from ndbsim.errors import InputError
from ndbsim.input.profiles import CALIBRATED_FILE, Constants, reload_calibration
from ndbsim.input.restart_info import COLUMNS, check_header, check_row, column_name, without_comments
from ndbsim.input.safe_load import MAX_TEXT_BYTES, read_limited
from ndbsim.models.registry import Model
from ndbsim.output.io import atomic_write_text, check_output_path
from ndbsim.studies.calibration import DEFAULT_DIR, MAX_SECS, Case, compare, load_cases, predict

FITTED = (
    "restore_row_secs",
    "change_row_secs",
    "redo_byte_secs",
    "index_entry_secs",
    "hyperthread_gain",
    "copy_row_secs",
    "suma_handover_gcps",
)
"""The seven free constants; what each means physically is in ``Constants``' docstrings."""

BOUNDS = {"hyperthread_gain": (0.01, 1.0)}
"""Physical bounds: a second hardware thread adds between nothing and a whole core. Every other
constant may move within ×100 of its documented default."""


IMPORTED_REPLICATIONS = 21
"""Replications of a case imported from restart_info, whose landing point in the LCP cycle is
unknown: the median of 21 (the most any published case uses) is steady to a few percent."""


def _round(x: float) -> float:
    return float(f"{x:.4g}")


def fit(cases: list[Case]) -> tuple[Constants, dict[str, Any]]:
    from ndbsim.extras import require

    require("scipy")
    from scipy.optimize import least_squares

    fit_cases = [c for c in cases if c.role == "fit" and c.model.constants_file is None]
    if not fit_cases:
        raise InputError("no NDB case has role: fit; mark at least one calibration case as fit")
    start = Constants()
    x0 = np.log([getattr(start, n) for n in FITTED])
    lo = np.array([math.log(BOUNDS.get(n, (getattr(start, n) / 100, 0))[0]) for n in FITTED])
    hi = np.array([math.log(BOUNDS[n][1]) if n in BOUNDS else math.log(getattr(start, n) * 100) for n in FITTED])

    def constants_at(x: np.ndarray) -> Constants:
        vals = {f.name: getattr(start, f.name) for f in fields(Constants)}
        vals.update({n: float(math.exp(v)) for n, v in zip(FITTED, x)})
        return Constants(**vals)

    def residuals(x: np.ndarray) -> np.ndarray:
        k = constants_at(x)
        out: list[float] = []
        for case in fit_cases:
            figures = predict(case, k)
            check_finishes(case, figures)
            out.extend(row.error / row.allowed for row in compare(case, figures) if not row.info)
        return np.array(out)

    sol = least_squares(
        residuals,
        np.clip(x0, lo + 1e-9, hi - 1e-9),
        bounds=(lo, hi),
        method="trf",
        diff_step=1e-3,
        x_scale="jac",
        max_nfev=200,
    )
    fitted = Constants(
        **{
            **{f.name: getattr(start, f.name) for f in fields(Constants)},
            **{n: _round(math.exp(v)) for n, v in zip(FITTED, sol.x)},
        }
    )
    report = {}
    for case in fit_cases:
        report[case.name] = {
            r.figure: round(r.rel_error, 4) if r.published else round(r.error, 2)
            for r in compare(case, predict(case, fitted))
        }
    return fitted, report


def check_finishes(case: Case, figures: dict[str, float]) -> None:
    """A fit case whose restart never finishes has no residual to fit (least_squares would stop
    on a non-finite one): that is the case's input error, named with its file."""
    total = figures.get("total_restart_secs")
    if total is not None and not math.isfinite(total):
        raise InputError(
            f"case {case.name!r}: its restart never finishes (total {total}), e.g. the copy phase cannot "
            "catch up with the workload during the restart; fix its scenario or remove the case",
            source=str(case.path),
        )


def write_calibration(
    constants: Constants, residuals: dict[str, Any], cases: list[Case], path: Path = CALIBRATED_FILE
) -> None:
    doc = {
        "# written by": "ndbsim calibrate; do not edit by hand",
        "shared": {
            "constants": {n: getattr(constants, n) for n in FITTED},
            "fitted_on": sorted(c.name for c in cases if c.role == "fit" and c.model.constants_file is None),
            "residuals": residuals,
        },
    }
    atomic_write_text(path, yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
    reload_calibration()


@dataclass
class Calibration:
    """A finished fit, not yet written: the NDB constants and residuals, the cases fitted and the
    fits of the models with constants of their own (InnoDB's, when the directory has its cases)."""

    constants: Constants
    ndb_residuals: dict[str, Any]
    cases: list[Case]
    own: list[tuple[Model, dict[str, Any]]] = field(default_factory=list)

    @property
    def residuals(self) -> dict[str, Any]:
        """Every fitted case's residuals, NDB then the models with their own constants (what
        ``ndbsim calibrate`` prints); those models fit the total only."""
        out = dict(self.ndb_residuals)
        for _, fitted in self.own:
            out.update({name: {"total_restart_secs": round(float(v), 4)} for name, v in fitted["residuals"].items()})
        return out


def run_calibration(directory: Path | str = DEFAULT_DIR, extra: Iterable[Case] = ()) -> Calibration:
    """Load and check every case of ``directory`` (with ``extra`` in-memory cases in place of
    files of the same name) and fit; writes nothing."""
    cases = load_cases(directory)
    extra = list(extra)
    if extra:
        names = {c.path.name for c in extra}
        cases = sorted([c for c in cases if c.path.name not in names] + extra, key=lambda c: c.path.name)
    constants, residuals = fit(cases)
    models = {id(c.model): c.model for c in cases if c.model.constants_file is not None}
    own = [(m, m.fit_constants(Path(directory))) for m in models.values()]
    return Calibration(constants, residuals, cases, own)


def save_calibration(result: Calibration, output: Path = CALIBRATED_FILE, innodb_output: Path | None = None) -> None:
    """Write a finished fit: the NDB constants to ``output``; the InnoDB ones to ``innodb_output``
    or, when ``output`` is the package's own file, to the package's InnoDB file."""
    write_calibration(result.constants, result.ndb_residuals, result.cases, output)
    if innodb_output is not None or Path(output) == CALIBRATED_FILE:
        for model, fitted in result.own:
            model.save_constants(fitted, innodb_output)


def calibrate(
    directory: Path | str = DEFAULT_DIR, output: Path = CALIBRATED_FILE, innodb_output: Path | None = None
) -> tuple[Constants, dict]:
    """Fit the NDB profiles' constants (and, when the directory has InnoDB cases, the InnoDB
    model's own two constants, seed 002) and write them, only once every fit has succeeded."""
    check_output_path(output, "output")
    if innodb_output is not None:
        check_output_path(innodb_output, "innodb_output")
    result = run_calibration(directory)
    save_calibration(result, output, innodb_output)
    return result.constants, result.residuals


# ---------------------------------------------------------------------------------------
# Import a user's own restart from ndbinfo.restart_info

NULLS = ("", "NULL", "null", "\\N")
"""How an export writes a missing value (empty, or mysql's NULL and \\N): such a phase is left out."""
DELIMITERS = (",", "\t", ";")
"""The separators ``--restart-info`` reads: CSV, ``mysql -B`` (tab) and spreadsheet (semicolon) exports."""


def _seconds(text: str, col: str, line: int, src: str) -> float:
    """A restart_info seconds value: a finite number, 0 ≤ x ≤ ``MAX_SECS``."""
    fix = "export SELECT * FROM ndbinfo.restart_info again and check this value"
    try:
        x = float(text)
    except ValueError:
        raise InputError(f"{text!r} on line {line} is not a number of seconds; {fix}", field=col, source=src) from None
    if not math.isfinite(x):
        raise InputError(f"{text!r} on line {line} is not a finite number of seconds; {fix}", field=col, source=src)
    if x < 0:
        raise InputError(f"{text!r} on line {line} is negative; a duration is 0 or more: {fix}", field=col, source=src)
    if x > MAX_SECS:
        raise InputError(
            f"{text!r} on line {line} is more than {MAX_SECS:.0f} s ({MAX_SECS / 86400:.1f} days), "
            f"not a restart time; {fix}",
            field=col,
            source=src,
        )
    return x


def _node_id(text: str, line: int, src: str) -> int:
    try:
        n = int(text)
    except ValueError:
        try:
            x = float(text)
        except ValueError:
            x = math.nan
        n = int(x) if math.isfinite(x) and x.is_integer() else -1
    if not 1 <= n <= 255:
        raise InputError(
            f"{text!r} on line {line} is not a node id; a data node id is a whole number 1-255",
            field="node_id",
            source=src,
        )
    return n


def _read_csv(csv_path: Path) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """The header and the (line number, row) pairs of a restart_info export, or an ``InputError``."""
    p = Path(csv_path)
    src = str(p)
    if not p.exists():
        raise InputError(f"file not found: {src!r}; check the path", field="--restart-info")
    if p.is_dir():
        raise InputError(
            f"{src!r} is a directory; give the CSV file of SELECT * FROM ndbinfo.restart_info", field="--restart-info"
        )
    if not p.is_file():
        raise InputError(
            f"{src!r} is not a regular file; give the CSV file of SELECT * FROM ndbinfo.restart_info",
            field="--restart-info",
        )
    try:
        data = read_limited(p, MAX_TEXT_BYTES, what="restart_info CSV export")
    except OSError as err:
        raise InputError(
            f"cannot read {src!r} ({err.strerror}); check its permissions", field="--restart-info"
        ) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = None
    if text is None or "\x00" in text:
        raise InputError("not a UTF-8 text file; export SELECT * FROM ndbinfo.restart_info as CSV text", source=src)
    text = without_comments(text)
    lines = text.splitlines()
    head = next((ln for ln in lines if ln.strip()), None)
    if head is None:
        raise InputError("no rows; export SELECT * FROM ndbinfo.restart_info with a header line", source=src)
    delimiter = next(
        (d for d in DELIMITERS if "node_id" in [column_name(c) for c in next(csv.reader([head], delimiter=d))]),
        None,
    )
    if delimiter is None:
        spaced = "node_id" in head.lower().split()
        raise InputError(
            "the header line has no node_id column"
            + (" (its columns are separated by spaces)" if spaced else "")
            + "; export SELECT * FROM ndbinfo.restart_info with its header line, "
            "separated by commas, tabs or semicolons",
            source=src,
        )
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    header: list[str] | None = None
    rows: list[tuple[int, dict[str, str]]] = []
    try:
        for fields_ in reader:
            if not any(f.strip() for f in fields_):
                continue
            if header is None:
                header = [column_name(f) for f in fields_]
                check_header(header, src)
                continue
            if len(fields_) > len(header) and any(f.strip() for f in fields_[len(header) :]):
                raise InputError(
                    f"line {reader.line_num} has {len(fields_)} values but the header has "
                    f"{len(header)} columns; export with one header line and quote values "
                    "that contain the separator",
                    source=src,
                )
            fields_ = fields_ + [""] * (len(header) - len(fields_))
            rows.append((reader.line_num, {h: f.strip() for h, f in zip(header, fields_)}))
    except csv.Error as err:
        raise InputError(
            f"malformed CSV at line {reader.line_num} ({err}); fix the quoting there", source=src
        ) from None
    assert header is not None
    if "total_restart_secs" not in header:
        raise InputError(
            "column 'total_restart_secs' is missing; export all restart_info columns with a header", source=src
        )
    if not rows:
        raise InputError("no rows; export SELECT * FROM ndbinfo.restart_info with a header line", source=src)
    return header, rows


def case_from_restart_info(csv_path: Path, scenario_path: Path, node_id: int | None = None) -> dict[str, Any]:
    """A ``fit`` case from a CSV export of ``SELECT * FROM ndbinfo.restart_info``: the row of
    ``node_id`` (default: the slowest node). The file and that row are checked: every value used
    is a finite number of seconds ≥ 0 and the total is more than 0."""
    src = str(csv_path)
    header, rows = _read_csv(Path(csv_path))
    parsed = []
    for line, row in rows:
        node = _node_id(row["node_id"], line, src)
        cell = row["total_restart_secs"]
        parsed.append((node, None if cell in NULLS else _seconds(cell, "total_restart_secs", line, src), line, row))
    if node_id is not None:
        nodes = ", ".join(str(n) for n in sorted({r[0] for r in parsed}))
        parsed = [r for r in parsed if r[0] == node_id]
        if not parsed:
            raise InputError(f"no row for node {node_id}; the file has node {nodes}", field="--node", source=src)
    node, total, line, row = max(parsed, key=lambda r: r[1] or 0.0)
    if not total:
        raise InputError(
            f"{row['total_restart_secs']!r} on line {line} (node {node}) is not a finished restart; "
            "export restart_info after the restart has completed, or choose another node with --node",
            field="total_restart_secs",
            source=src,
        )
    phases = {c: {"value": _seconds(row[c], c, line, src)} for c in COLUMNS if c in header and row[c] not in NULLS}
    lr = row.get("secs_for_local_recovery", "")
    lr_secs = None if lr in NULLS else _seconds(lr, "secs_for_local_recovery", line, src)
    try:
        check_row({c: v["value"] for c, v in phases.items()}, total, lr_secs, f"line {line} (node {node})")
    except InputError as e:
        raise e.located(src) from None
    source: dict[str, Any] = {"restart_info": src, "node_id": node}
    same = [r[2] for r in parsed if r[0] == node]
    if len(same) > 1:  # restart_info keeps one row per node: two exports joined, or an edited file
        source["note"] = (
            f"node {node} has {len(same)} rows (lines {', '.join(map(str, same))}); used line {line}, "
            "the slowest; give one export, or the row you mean alone"
        )
    return {
        "source": source,
        "role": "fit",
        "scenario": str(Path(scenario_path).resolve()),
        # restart_info does not say where in the LCP cycle the node stopped: compare the median
        # over landing points spread by the seed, as the published cases without a pinned phase do
        "replications": IMPORTED_REPLICATIONS,
        "stated": {"origin": "ndbinfo.restart_info export"},
        "assumed": {"lcp_phase": f"unknown: the median of {IMPORTED_REPLICATIONS} landing points in the LCP cycle"},
        "published": {"total_restart_secs": {"value": total}, "phases": phases},
    }
