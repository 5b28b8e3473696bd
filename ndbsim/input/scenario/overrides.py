"""Editing a raw scenario mapping: ``--set`` overrides, dotted paths, and a fast copy."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from typing import Any

from ndbsim.errors import InputError
from ndbsim.input.safe_load import MalformedYaml, load_yaml
from ndbsim.input.scenario.validation import shown_value


def override_key(assignment: str) -> str:
    """The dotted key a ``dotted.path=value`` assignment sets."""
    return assignment.split("=", 1)[0].strip()


def repeated_notes(
    overrides: Sequence[str], ini_keys: Iterable[str] = (), varied: Iterable[str] = (), where: str = "--set"
) -> list[str]:
    """What the user is told when two inputs give one key a value: an override given twice (the
    last is used, as for any repeated option), an override of a value the config.ini set (the
    override is used) and an override of a swept factor (each point's factor value is used)."""
    from ndbsim.input.config import params as config_params

    def canonical(key: str) -> str:
        head, _, name = key.rpartition(".")
        if head == "cluster.config":
            return f"{head}.{config_params.canonical_name(name) or name}"
        return key

    given: dict[str, list[str]] = {}
    for assignment in overrides:
        given.setdefault(canonical(override_key(assignment)), []).append(assignment.partition("=")[2].strip())
    notes = [
        f"{key} is set {len(values)} times by {where} ({', '.join(values)}); the last, {values[-1]}, is used"
        for key, values in given.items()
        if len(values) > 1
    ]
    notes += [
        f"{key} is in the config.ini and set by {where}; {where}'s {given[key][-1]} is used"
        for key in sorted({canonical(k) for k in ini_keys} & set(given))
    ]
    notes += [
        f"{key} is a factor and also set by {where} ({given[key][-1]}); each point's factor value is used"
        for key in sorted({canonical(k) for k in varied} & set(given))
    ]
    return notes


def fixed_rows_note(raw: dict[str, Any], changed: set[str] | dict[str, Any], fix: str) -> str | None:
    """A warning when ``changed`` keys move data.size but not data.rows while ``raw`` fixes
    data.rows: the row size then changes with the size, which is rarely what was meant."""
    data = raw.get("data")
    if not (isinstance(data, dict) and data.get("rows") is not None):
        return None
    if "data.size" not in changed or "data.rows" in changed:
        return None
    return (
        f"data.rows stays {data['rows']} while data.size changes, so the row size changes with it; "
        f"{fix} to derive the rows from data.row_size"
    )


def set_override(raw: dict[str, Any], assignment: str) -> None:
    """Apply one ``dotted.path=value`` to a raw scenario dict (value read as a YAML scalar)."""
    if "=" not in assignment:
        raise InputError(f"{assignment!r} has no '='; write it like data.size=1TB", field="--set")
    path, _, text = assignment.partition("=")
    path = path.strip()
    if not path or any(not p for p in path.split(".")):
        raise InputError(f"{assignment!r} has an empty key; write it like data.size=1TB", field="--set")
    try:
        value = load_yaml(text) if text.strip() else ""
    except MalformedYaml:
        value = text
    except InputError as e:
        why = e.message.removeprefix("line 1, column 1: ") if "\n" not in text else e.message
        raise InputError(f"{shown_value(text)}: {why}", field=f"--set {path}") from None
    if value is None and text.strip() not in ("null", "Null", "NULL", "~"):
        value = text  # e.g. '#x' is a YAML comment, not null: keep what the user typed
    set_path(raw, path, value)


def set_path(raw: dict[str, Any], path: str, value: Any) -> None:
    parts = path.split(".")
    cur: Any = raw
    for i, part in enumerate(parts[:-1]):
        nxt = cur.get(part)
        if nxt is None:
            nxt = cur[part] = {}
        if not isinstance(nxt, dict):
            raise InputError(
                f"{'.'.join(parts[: i + 1])} is the value {nxt!r}, not a section; "
                f"set {'.'.join(parts[: i + 1])} itself or fix the key",
                field=path,
            )
        cur = nxt
    cur[parts[-1]] = value


_ATOMS = frozenset((str, int, float, bool, type(None)))
"""The types of the immutable scalars of parsed YAML and JSON, which a copy shares."""


def copy_raw(value: Any, memo: dict[int, Any] | None = None) -> Any:
    """``copy.deepcopy`` of a raw scenario, a few times faster on its plain dicts, lists and
    scalars; like deepcopy it keeps shared parts (YAML aliases) shared and copies any other
    value with deepcopy."""
    if type(value) in _ATOMS:
        return value
    if memo is None:
        memo = {}
    done = memo.get(id(value))
    if done is not None:
        return done
    if type(value) is dict:
        mapping: dict[Any, Any] = {}
        memo[id(value)] = mapping
        for k, v in value.items():
            mapping[k] = v if type(v) in _ATOMS else copy_raw(v, memo)
        return mapping
    if type(value) is list:
        items: list[Any] = []
        memo[id(value)] = items
        items.extend(v if type(v) in _ATOMS else copy_raw(v, memo) for v in value)
        return items
    return copy.deepcopy(value, memo)
