"""Bounded reading of the files and texts ndbsim takes as input (YAML scenarios, sweep files,
calibration cases and constants files; config.ini; restart_info CSV).

Every input's cost is bounded before and while it is parsed: a file is read up to a byte limit,
and YAML is checked for nesting depth, alias expansion and self-reference before any value is
built, so a hostile file ("billion laughs", ``/dev/zero``, 5,000 nested lists) fails at once
with one line naming the file. YAML merge keys (``<<: *defaults``) are accepted; a key given
twice in one mapping is an error (YAML would keep the last silently).

Plain values are read as YAML 1.2's core schema reads them (``CORE_RESOLVERS``), not as PyYAML's
YAML 1.1: ``010`` is ten (1.1: eight, octal), ``1:30`` is the text "1:30" (1.1: ninety, base 60,
which a duration then refuses), ``1e3`` is a thousand (1.1: text), and ``yes``, ``no``, ``on``,
``off`` and dates are text (1.1: booleans and timestamps). Only ``true``/``false`` are booleans.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, ClassVar

import yaml

from ndbsim.errors import InputError

MAX_YAML_BYTES = 256 * 1024
"""Largest YAML file (scenario, sweep, calibration case, constants) read, in bytes: 256 KiB,
over 100× the largest shipped scenario (~2 KB). Pure-Python YAML parses about 100–500 KB/s,
so the limit keeps a parse within about two seconds. Not a model value."""
MAX_TEXT_BYTES = 1024 * 1024
"""Largest config.ini or restart_info CSV read, in bytes: 1 MiB (a real config.ini is a few KB,
a restart_info export one line per data node, at most 144). Both are parsed line by line in
linear time. Not a model value."""
MAX_DEPTH = 64
"""Deepest nesting of YAML mappings and lists accepted: a scenario nests four levels (e.g.
workload.before_restart.updates_per_s), so 64 is generous, and it keeps every later walk
(validation, copies) far from Python's recursion limit. Not a model value."""
MAX_NODES = 100_000
"""Most values a YAML document may hold once its aliases are expanded: a scenario has about a
hundred. Bounds "billion laughs" documents, whose aliases multiply a few lines into billions
of values. Not a model value."""

MAX_LINE_LENGTH = 1024
"""NDB's config.ini line buffer, in bytes with the terminator: ``const int MAX_LINE_LENGTH = 1024``
in storage/ndb/src/mgmsrv/InitConfigFileParser.cpp (``InitConfigFileParser::parseConfig`` reads
each line with ``fgets(line, MAX_LINE_LENGTH, file)``), so a line holds at most 1,023 characters."""

_MERGE_TAG = "tag:yaml.org,2002:merge"
"""The tag PyYAML gives a ``<<`` key: merge the aliased mapping(s) into this one."""


class MalformedYaml(InputError):
    """YAML that does not parse (as opposed to YAML that parses but breaks a bound)."""


def read_limited(path: Path, limit: int, field: str | None = None, what: str = "file") -> bytes:
    """A file's bytes, refusing more than ``limit`` before reading them all."""
    src = str(path)
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as err:
        raise InputError(
            f"cannot read the file ({err.strerror}); check the path and its permissions", source=src
        ) from None
    if len(data) > limit:
        raise InputError(
            f"larger than {limit // 1024:,} KiB, more than any {what} needs; give the right file or split it",
            source=src,
        )
    return data


def read_text(path: str | Path, limit: int, field: str | None = None, what: str = "file") -> str:
    """A file's text (UTF-8, a leading BOM dropped), refusing more than ``limit`` bytes before
    reading them all (``/dev/zero`` included). Missing paths and directories are errors too."""
    p = Path(path)
    src = str(p)
    if not p.exists():
        raise InputError(f"file not found: {src!r}; check the path", field=field)
    if p.is_dir():
        raise InputError(f"{src!r} is a directory; give a {what}", field=field)
    data = read_limited(p, limit, field, what)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = None
    if text is None or "\x00" in text:
        raise InputError(f"not a UTF-8 text file; give a {what}", source=src)
    return text


def read_yaml_file(path: str | Path, what: str = "YAML file") -> Any:
    """A YAML file's data, bounded (``MAX_YAML_BYTES``, ``MAX_DEPTH``, ``MAX_NODES``)."""
    text = read_text(path, MAX_YAML_BYTES, what=what)
    try:
        return load_yaml(text)
    except InputError as e:
        raise e.located(str(path)) from None


def load_yaml(text: str) -> Any:
    """Parse YAML text into plain data with every bound checked first; errors are ``InputError``
    (malformed YAML with its line and column).

    libyaml's parser (``_FastLoader``) reads the text when PyYAML has it, several times faster
    than PyYAML's own; on any error there, or without libyaml, the pure-Python
    ``_BoundedLoader`` reads it again, and it alone words errors and rejects documents."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_YAML_BYTES:
        raise InputError(f"YAML text larger than {MAX_YAML_BYTES // 1024} KiB; shorten it")
    if _FastLoader is not None and not _LIBYAML_DIFFERS.search(text):
        try:
            return _load(_FastLoader(text))
        except (yaml.YAMLError, InputError, ValueError):
            pass
    try:
        return _load(_BoundedLoader(text))
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(err, "problem", None) or "malformed YAML"
        raise MalformedYaml(f"malformed YAML{where}: {problem}; fix the syntax there") from None


def _load(loader: Any) -> Any:
    """The single document ``loader`` reads, its alias expansion checked before any value is built."""
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expansion(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


class _Bounds:
    """Refuses deep nesting while composing (before PyYAML's recursive composer can hit
    Python's recursion limit) and a key given twice in one mapping; mixed into a loader."""

    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                m = self.peek_event().start_mark  # type: ignore[attr-defined]
                raise InputError(
                    f"line {m.line + 1}, column {m.column + 1}: nested more than {MAX_DEPTH} levels deep; "
                    "a scenario needs a handful, flatten it"
                )
            return super().compose_node(parent, index)  # type: ignore[misc]
        finally:
            self._depth -= 1

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if key_node.tag == _MERGE_TAG:
                    continue  # merged keys may be overridden by the mapping's own
                key = self.construct_object(key_node, deep=deep)
                try:
                    dup = key in seen
                    seen.add(key)
                except TypeError:
                    continue
                if dup:
                    m = key_node.start_mark
                    raise InputError(
                        f"line {m.line + 1}, column {m.column + 1}: key {key!r} is given twice; keep only one of them"
                    )
        return super().construct_mapping(node, deep=deep)  # type: ignore[misc]

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)  # type: ignore[misc]
        except (AttributeError, IndexError, KeyError, TypeError, ValueError):
            if not isinstance(node, yaml.ScalarNode):
                raise
            # PyYAML's constructors fail this way on a value their explicit tag cannot take
            # (``!!int`` with no digits, ``!!bool maybe``, ``!!timestamp x``)
            m = node.start_mark
            tag = node.tag.replace("tag:yaml.org,2002:", "!!")
            value = node.value if len(node.value) <= 40 else node.value[:40] + "..."
            raise InputError(
                f"line {m.line + 1}, column {m.column + 1}: {value!r} is not a {tag} value; "
                f"write one, or drop the {tag} tag"
            ) from None


def _core_resolvers() -> dict[Any, Any]:
    """The implicit tags of YAML 1.2's core schema (YAML 1.2.2 §10.3.2), plus the merge key."""
    import yaml.resolver

    class Core(yaml.resolver.BaseResolver):
        yaml_implicit_resolvers: ClassVar[dict[Any, Any]] = {}

    core = {
        "bool": (r"true|True|TRUE|false|False|FALSE", "tTfF"),
        "int": (r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+", "-+0123456789"),
        "float": (
            r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)",
            "-+0123456789.",
        ),
        "null": (r"~|null|Null|NULL|", ["~", "n", "N", ""]),
        "merge": (r"<<", "<"),
    }
    for name, (pattern, first) in core.items():
        Core.add_implicit_resolver(f"tag:yaml.org,2002:{name}", re.compile(f"^(?:{pattern})$"), list(first))
    return Core.yaml_implicit_resolvers


CORE_RESOLVERS = _core_resolvers()
"""Which plain scalars are booleans, numbers and nulls: YAML 1.2's core schema, for every loader."""


class _BoundedLoader(_Bounds, yaml.SafeLoader):
    """PyYAML's pure-Python SafeLoader, bounded, with YAML 1.2's core schema."""

    yaml_implicit_resolvers = CORE_RESOLVERS


_LIBYAML_DIFFERS = re.compile("[\t?\ufeff\x85\u2028\u2029]")
"""Characters on which libyaml and PyYAML disagree: libyaml takes a tab as a separator (``a:<tab>b``),
a ``?`` inside a flow mapping and a byte-order mark inside the text, which PyYAML rejects or reads
otherwise, and they break lines at different characters. A text with any of them goes to PyYAML's
own parser, so each loader accepts the same documents and reads them alike."""

_FastLoader: Any = None
"""libyaml's parser under PyYAML's own composer and safe constructor, bounded; None when PyYAML
was built without libyaml."""
if getattr(yaml, "__with_libyaml__", False):
    from yaml._yaml import CParser
    from yaml.composer import Composer
    from yaml.constructor import SafeConstructor
    from yaml.resolver import Resolver

    class _CBoundedLoader(_Bounds, CParser, Composer, SafeConstructor, Resolver):
        """libyaml scans and parses the text into events; PyYAML's composer builds the nodes
        from them, so the bounds apply while composing, as in ``_BoundedLoader``."""

        check_node = Composer.check_node
        get_node = Composer.get_node
        get_single_node = Composer.get_single_node
        yaml_implicit_resolvers = CORE_RESOLVERS

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

    _FastLoader = _CBoundedLoader


def _check_expansion(root: Any) -> None:
    """Refuse a document whose aliases expand beyond ``MAX_NODES`` values or ``MAX_DEPTH``
    levels, or refer to a node that contains them (a cycle). Each node is sized once (an
    alias reuses the size of its anchor), so the check is linear in the document."""
    size: dict[int, tuple[int, int]] = {}
    open_nodes: set[int] = set()

    def visit(node: Any) -> tuple[int, int]:
        key = id(node)
        if key in size:
            return size[key]
        if key in open_nodes:
            m = node.start_mark
            raise InputError(
                f"line {m.line + 1}, column {m.column + 1}: an alias refers to the mapping or list that "
                "contains it (a cycle); refer only to complete values"
            )
        if isinstance(node, yaml.ScalarNode):
            size[key] = (1, 1)
            return size[key]
        open_nodes.add(key)
        children = [c for pair in node.value for c in pair] if isinstance(node, yaml.MappingNode) else node.value
        count, depth = 1, 0
        for child in children:
            c, d = visit(child)
            count += c
            depth = max(depth, d)
            if count > MAX_NODES:
                m = node.start_mark
                raise InputError(
                    f"line {m.line + 1}, column {m.column + 1}: its aliases expand to more than "
                    f"{MAX_NODES:,} values; write the values out, or use fewer aliases"
                )
        open_nodes.discard(key)
        if depth + 1 > MAX_DEPTH:
            m = node.start_mark
            raise InputError(
                f"line {m.line + 1}, column {m.column + 1}: its aliases nest more than {MAX_DEPTH} levels "
                "deep; flatten it"
            )
        size[key] = (count, depth + 1)
        return size[key]

    visit(root)


def _construct_int(loader: Any, node: Any) -> Any:
    """An integer as YAML 1.2 reads it (``0o`` octal, ``0x`` hexadecimal, anything else decimal,
    leading zeros included), or one line for one longer than Python converts (4,300 digits)."""
    text = str(loader.construct_scalar(node))
    body = text.lstrip("+-")
    sign = -1 if text.startswith("-") else 1
    try:
        if body[:2] in ("0o", "0x"):
            return sign * int(body[2:], 8 if body[1] == "o" else 16)
        if not body.isdigit():
            raise ValueError(text)  # ``!!int 1:30``, ``!!int 1_000``: not YAML 1.2 integers
        return sign * int(body, 10)
    except ValueError:
        if not body.isdigit():
            raise  # not a number at all: ``_Bounds.construct_object`` says so
        m = node.start_mark
        raise InputError(
            f"line {m.line + 1}, column {m.column + 1}: an integer of {len(node.value):,} digits is beyond "
            "any value ndbsim takes; write a realistic number"
        ) from None


def _construct_float(loader: Any, node: Any) -> float:
    """A float as YAML 1.2 reads it: no base-60 ``1:30.5`` and no ``_`` separators (YAML 1.1's)."""
    text = str(loader.construct_scalar(node))
    special = {".inf": math.inf, "+.inf": math.inf, "-.inf": -math.inf, ".nan": math.nan}
    if text.lower() in special:
        return special[text.lower()]
    if not re.fullmatch(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?", text):
        raise ValueError(text)
    x = float(text)
    if math.isinf(x):  # 1e400: say what was written, not the "inf" it rounds to
        m = node.start_mark
        raise InputError(
            f"line {m.line + 1}, column {m.column + 1}: {text[:40]!r} is beyond a float's range (about 1.8e308) "
            "and any value ndbsim takes; write a realistic number"
        )
    return x


for _loader in (_BoundedLoader, _FastLoader):
    if _loader is not None:
        _loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
        _loader.add_constructor("tag:yaml.org,2002:float", _construct_float)


def check_line_length(value: str, field: str) -> None:
    """A config.ini value must fit on one of NDB's config.ini lines (``MAX_LINE_LENGTH``): a longer
    ThreadConfig could not be written in a real config.ini, and parsing it would cost time for nothing."""
    if len(value) >= MAX_LINE_LENGTH:
        raise InputError(
            f"{value[:40]!r}... is {len(value):,} characters; NDB's config.ini takes at most "
            f"{MAX_LINE_LENGTH - 1:,} per line, so shorten it",
            field=field,
        )
