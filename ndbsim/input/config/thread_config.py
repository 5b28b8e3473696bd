"""ThreadConfig's syntax, as NDB parses it (thr_config.cpp, ``THRConfig::do_parse``; reference §8,
§11): entries such as ``ldm={count=8,cpubind=1-8},main,io``, each a thread type with its
properties; ``threads`` turns the entries into a layout.
"""

from __future__ import annotations

import re

THREAD_TYPES = ("main", "ldm", "recv", "rep", "io", "watchdog", "tc", "send", "idxbld", "query", "recover")
"""Thread types a ThreadConfig entry may name, in NDB's order (thr_config.cpp ``m_parse_entries``)."""

THREAD_KEYS = (
    "count",
    "cpubind",
    "cpubind_exclusive",
    "cpuset",
    "cpuset_exclusive",
    "realtime",
    "spintime",
    "thread_prio",
    "nosend",
)
"""Properties a ThreadConfig entry may set inside its braces (thr_config.cpp ``m_params``)."""

CPU_KEYS = ("cpubind", "cpubind_exclusive", "cpuset", "cpuset_exclusive")
"""The properties whose value is a cpu list (``S_BITMASK`` in thr_config.cpp)."""

_NAME = re.compile(r"\s*([A-Za-z_]+)\s*")
_BODY = re.compile(r"=\s*\{([^{}]*)\}\s*")
_CPU_PIECE = re.compile(r"\s*\d+(\s*-\s*\d+)?\s*")
_BLANK_END = re.compile(r"\s*\Z")


def parse_thread_config(text: str) -> list[tuple[str, dict[str, str]]]:
    """``ldm={count=8,cpubind=1-8},main,io`` -> [("ldm", {"count": "8", "cpubind": "1-8"}), …].

    One pass over the text (each character is read a bounded number of times), so a very long
    ThreadConfig costs time in proportion to its length. ``ValueError`` with what is wrong and how to
    write it unless the text follows ThreadConfig's syntax."""
    out: list[tuple[str, dict[str, str]]] = []
    pos, end = 0, len(text)
    if not text.strip():
        return out
    while True:
        m = _NAME.match(text, pos)
        if not m:
            raise ValueError(f"cannot read {text[pos : pos + 30]!r}; write entries like ldm={{count=8}},main,io")
        kind = m.group(1).lower()
        if kind not in THREAD_TYPES:
            raise ValueError(f"{m.group(1)!r} is not a thread type; use {', '.join(THREAD_TYPES)}")
        pos = m.end()
        props: dict[str, str] = {}
        b = _BODY.match(text, pos)
        if b:
            props = _props(kind, b.group(1))
            pos = b.end()
        out.append((kind, props))
        if pos >= end:
            return out
        if text[pos] != ",":
            raise ValueError(f"cannot read {text[pos : pos + 30]!r}; separate entries with commas")
        pos += 1
        if _BLANK_END.match(text, pos):
            raise ValueError("trailing comma; remove it")


def _props(kind: str, body: str) -> dict[str, str]:
    props: dict[str, str] = {}
    for prop in _split_props(body):
        if not prop.strip():
            continue
        key, eq, value = (x.strip() for x in prop.partition("="))
        if key.lower() not in THREAD_KEYS or not eq:
            raise ValueError(f"{prop!r} is not a {kind} property; use key=value with one of {', '.join(THREAD_KEYS)}")
        key = key.lower()
        if key == "count" and not value.isdigit():
            raise ValueError(f"count={value!r} is not a whole number")
        if key in CPU_KEYS:
            cpu_count(value)
        props[key] = value
    return props


def _split_props(body: str) -> list[str]:
    """``count=2,cpubind=1,2-4`` -> ["count=2", "cpubind=1,2-4"]: a comma followed by a number
    or range continues a cpu list."""
    out: list[str] = []
    for piece in body.split(","):
        if out and _CPU_PIECE.fullmatch(piece) and "=" in out[-1]:
            out[-1] += "," + piece
        else:
            out.append(piece)
    return out


def cpu_count(value: str) -> int:
    """CPUs in a list such as ``1,2-4``; ``ValueError`` for anything else (``1-2-3``, ``9-1``)."""
    n = 0
    for piece in value.split(","):
        m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+))?\s*", piece)
        if not m:
            raise ValueError(f"{value!r} is not a cpu list; write e.g. 1-8 or 0,2,4")
        lo, hi = int(m.group(1)), int(m.group(2)) if m.group(2) else int(m.group(1))
        if hi < lo:
            raise ValueError(f"{piece.strip()!r} runs backwards; write {hi}-{lo}")
        n += hi - lo + 1
    return n


def with_count(text: str, kind: str, count: int) -> str:
    """``text`` (a ThreadConfig) with ``count`` threads of ``kind``: its entries of that type become
    one ``kind={count=N}`` (their other properties dropped, a cpu list no longer fitting the count),
    the other entries written back as given."""
    entries = parse_thread_config(text)
    out: list[str] = []
    for k, props in entries:
        if k == kind:
            if f"{kind}=" not in ",".join(out):
                out.append(f"{kind}={{count={count}}}")
            continue
        body = ",".join(f"{key}={value}" for key, value in props.items())
        out.append(f"{k}={{{body}}}" if body else k)
    if not any(k == kind for k, _ in entries):
        out.append(f"{kind}={{count={count}}}")
    return ",".join(out)


def check_thread_config(text: str) -> None:
    """Raise ``ValueError`` unless ``text`` follows ThreadConfig's syntax (see ``parse_thread_config``)."""
    parse_thread_config(text)


def highest_cpu(text: str) -> int | None:
    """The highest CPU id a ThreadConfig's cpubind/cpuset lists name (``ldm={cpubind=0-31},tc={cpubind=63}``
    -> 63), None when it binds none: the host has at least one more hardware thread than that."""
    ids = [
        int(n)
        for _, props in parse_thread_config(text)
        for key in CPU_KEYS
        if key in props
        for n in re.findall(r"\d+", props[key])
    ]
    return max(ids) if ids else None
