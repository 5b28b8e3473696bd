"""Units as NDB users write them.

Byte sizes are binary, as in NDB's config.ini: ``60G`` = ``60GB`` = ``60GiB`` = 60×2³⁰ bytes
(pydantic's ByteSize would read ``60G`` as 60×10⁹, a 7% error). Rates in bits are decimal,
as network gear is sold: ``1Gbit/s`` = 10⁹ bit/s. Counts take SI suffixes: ``300M`` rows =
3×10⁸, ``1.2G`` = ``1.2B`` (billion) = 1.2×10⁹, ``20000/s``. Durations: ``500ms``, ``90s``, ``2m4s``,
``1h``, ``1d12h``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from functools import lru_cache, wraps

from ndbsim.errors import InputError

_BINARY = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40, "P": 2**50}
"""Binary multipliers of the size suffixes K..P (K = 2**10 ... P = 2**50), as config.ini reads sizes."""
_DECIMAL = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
"""Decimal (SI) multipliers of K..P (1e3 ... 1e15), for counts and bit rates."""
_NUM = r"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"
"""Regex group for an unsigned decimal number with optional exponent (``60``, ``2.5``, ``1e9``)."""
_SIZE_RE = re.compile(_NUM + r"\s*([KMGTP]?)(?:I?B)?", re.IGNORECASE)
"""A byte size: number, optional K..P prefix, optional ``B``/``iB`` (``60G`` = ``60GB`` = ``60GiB``)."""
_BITS_RE = re.compile(_NUM + r"\s*([KMGTP]?)(?:BIT|BPS|B(?=/S))", re.IGNORECASE)
"""A bit rate's body: number, optional prefix, then ``bit``, ``bps`` or a ``b`` before ``/s``
(``_parse_byte_rate`` makes the final bits-or-bytes call)."""
_COUNT_RE = re.compile(_NUM + r"\s*([KMGTPB]?)", re.IGNORECASE)
"""A count: number with an optional SI prefix (``300M`` = 3×10⁸), or ``B`` for billion
(``1.2B`` = ``1.2G`` rows = 1.2×10⁹, as DBAs write row counts)."""
_COUNT_MULT = {**_DECIMAL, "B": 1e9}
"""Multipliers of a count's suffix: the SI prefixes, and ``B`` (billion) = 10⁹."""
_DURATION_PART = re.compile(r"([0-9]*\.?[0-9]+)\s*(ms|d|h|m|s)", re.IGNORECASE)
"""One number+unit piece of a duration (``ms``, ``d``, ``h``, ``m``, ``s``), as in ``2m4s`` or ``1d12h``."""
_DURATION_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
"""Seconds per duration unit (a day is 86,400 s)."""


MAX_MAGNITUDE = float(2**64)
"""Largest size, count or rate accepted: 2^64 (16E bytes), the range of NDB's 64-bit (Uint64)
sizes and counters; beyond it a value is a typo, and floats lose the unit's precision. A guard,
not a model value."""
MAX_DURATION = 365 * 24 * 3600.0
"""Longest duration accepted, in seconds: one year. Published restarts take minutes to hours;
at a year the simulated clock (a float) still resolves nanoseconds, while at 1e20 s a whole
restart is lost to rounding. A guard, not a model value."""


def shown(value: object) -> str:
    """A value as an error message shows it: its repr cut to 60 characters (a huge integer as
    its number of digits, whose repr Python may refuse to build)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"a {len(str(abs(value))) if value.bit_length() < 14000 else 'many'}-digit integer"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _real(value: int | float, kind: str, example: str) -> float:
    try:
        return float(value)
    except OverflowError:
        raise InputError(f"{shown(value)} is too large for a {kind}; write it like {example}") from None


MAX_TEXT = 100
"""Longest text read as a number with units, in characters: ``'2h30m15s'`` or ``'1.5e9/s'`` take
a dozen. The regular expressions backtrack quadratically on long runs of digits, so length is
checked first. A guard, not a model value."""


def _check_length(text: str) -> None:
    if len(text) > MAX_TEXT:
        raise InputError(f"{shown(text)} is {len(text):,} characters long; a value with units takes a few, like '60G'")


def _fail(kind: str, value: object, example: str) -> InputError:
    return InputError(f"{shown(value)} is not a valid {kind}; write it like {example}")


def _finite(x: float, kind: str, value: object, example: str, limit: float = MAX_MAGNITUDE) -> float:
    if x != x or x in (float("inf"), float("-inf")):
        raise InputError(f"{shown(value)} is not a finite {kind}; write it like {example}")
    if abs(x) > limit:
        most = "one year" if limit == MAX_DURATION else f"{limit:.4g}"
        raise InputError(f"{shown(value)} is too large for a {kind} (at most {most}); write it like {example}")
    return x


def _text_cached(parse: Callable[[object], float]) -> Callable[[object], float]:
    """Parse each distinct string once: scenarios and sweep points repeat the same few texts
    (a failing text raises every time; exceptions are not cached)."""
    cached = lru_cache(maxsize=4096)(parse)

    @wraps(parse)
    def run(value: object) -> float:
        if type(value) is str:
            _check_length(value)
            return cached(value)
        return parse(value)

    return run


@_text_cached
def parse_bytes(value: object) -> float:
    """``'60G'``, ``'60GB'``, ``'512MB'``, ``'200B'`` or a plain number of bytes."""
    return _finite(_parse_bytes(value), "size", value, "'60G' or '512MB'")


def _parse_bytes(value: object) -> float:
    if isinstance(value, bool):
        raise _fail("size", value, "'60G' or '512MB'")
    if isinstance(value, (int, float)):
        return _real(value, "size", "'60G'")
    text = str(value).strip()
    if text.startswith("-"):
        raise InputError(f"{shown(value)} is negative; give a size like '60G'")
    m = _SIZE_RE.fullmatch(text)
    if not m:
        raise _fail("size", value, "'60G' (binary: 60×2^30 bytes) or '512MB'")
    return float(m.group(1)) * _BINARY[m.group(2).upper()]


@_text_cached
def parse_byte_rate(value: object) -> float:
    """Bytes per second: ``'10MB/s'``, ``'100M'`` (config.ini style), or bits: ``'1Gbit/s'``."""
    return _finite(_parse_byte_rate(value), "rate", value, "'100MB/s' or '10Gbit/s'")


def _parse_byte_rate(value: object) -> float:
    if isinstance(value, bool):
        raise _fail("rate", value, "'100MB/s' or '10Gbit/s'")
    if isinstance(value, (int, float)):
        return _real(value, "rate", "'100MB/s'")
    text = str(value).strip()
    bits = _BITS_RE.fullmatch(text.removesuffix("/s").removesuffix("/S")) or _BITS_RE.fullmatch(text)
    if bits and re.search(r"bit|bps|b/s$", text, re.IGNORECASE) and not re.search(r"[KMGTP]?i?B/s$", text):
        return float(bits.group(1)) * _DECIMAL[bits.group(2).upper()] / 8.0
    body = re.sub(r"\s*/\s*s(ec)?$", "", text, flags=re.IGNORECASE)
    m = _SIZE_RE.fullmatch(body)
    if not m:
        raise _fail("rate", value, "'100MB/s' (binary) or '10Gbit/s' (decimal bits)")
    return float(m.group(1)) * _BINARY[m.group(2).upper()]


@_text_cached
def parse_count(value: object) -> float:
    """A count with SI suffix: ``'300M'`` rows = 3×10⁸, ``'1.2B'`` = ``'1.2G'`` = 1.2×10⁹."""
    return _finite(_parse_count(value), "number", value, "'300M', '1.2B' or 300000000")


def _parse_count(value: object) -> float:
    if isinstance(value, bool):
        raise _fail("count", value, "'300M' or 300000000")
    if isinstance(value, (int, float)):
        return _real(value, "count", "'300M'")
    m = _COUNT_RE.fullmatch(str(value).strip())
    if not m:
        raise _fail("count", value, "'300M' or 300000000")
    return float(m.group(1)) * _COUNT_MULT[m.group(2).upper()]


def parse_per_second(value: object) -> float:
    """An event rate: ``'20000/s'``, ``'20k/s'`` or a plain number per second."""
    if isinstance(value, str):
        _check_length(value)
        value = re.sub(r"\s*/\s*s(ec)?$", "", value.strip(), flags=re.IGNORECASE)
    try:
        return parse_count(value)
    except InputError:
        raise _fail("rate", value, "'20000/s' or '20k/s'") from None


@_text_cached
def parse_duration(value: object) -> float:
    """Seconds from ``'90s'``, ``'2m4s'``, ``'1h'``, ``'1d12h'``, ``'500ms'`` or a plain number."""
    return _finite(_parse_duration(value), "duration", value, "'90s', '2m4s', '1h' or '1d12h'", MAX_DURATION)


def _parse_duration(value: object) -> float:
    if isinstance(value, bool):
        raise _fail("duration", value, "'90s', '2m4s' or '1h'")
    if isinstance(value, (int, float)):
        return _real(value, "duration", "'90s'")
    text = str(value).strip().replace(" ", "")
    if re.fullmatch(r"[0-9]*\.?[0-9]+", text):
        return float(text)
    if ":" in text:  # YAML 1.1 read 1:30 as 90 (base 60); 1.2 and ndbsim leave it text
        raise InputError(
            f"{shown(value)} is not a duration: a clock time could be minutes:seconds or hours:minutes; "
            "write it with units, like '1m30s' or '1h30m'"
        )
    parts = _DURATION_PART.findall(text)
    if not parts or "".join(n + u for n, u in parts).lower() != text.lower():
        raise _fail("duration", value, "'90s', '2m4s', '1h' or '1d12h'")
    return sum(float(n) * _DURATION_UNITS[u.lower()] for n, u in parts)


def format_bytes(n: float) -> str:
    """Binary, NDB style: 64424509440 -> '60.0G'; an unbounded amount -> 'unbounded'. A size a hair
    under a unit, that the smaller unit would show as ``1024.0``, reads ``1.0`` of it (``1.0T``,
    never ``1024.0G``); 1000G stays ``1000.0G``."""
    if n != n or n in (float("inf"), float("-inf")):
        return "unbounded"
    for unit, smaller in (("P", "T"), ("T", "G"), ("G", "M"), ("M", "K"), ("K", "")):
        if abs(n) >= _BINARY[unit] - 0.05 * _BINARY[smaller]:
            return f"{n / _BINARY[unit]:.1f}{unit}"
    return f"{n:.0f}B"


_COUNT_UNITS = (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3))
"""The suffixes a DBA writes a count with (thousand, million, billion, trillion), largest first;
``parse_count`` reads each back (``B`` = billion, as for row counts)."""


def format_count(x: float | None) -> str:
    """A count or an event rate as a DBA writes it: ``1.0B`` rows, ``300M``, ``2.5M``, ``20K``, ``500``.
    Three significant figures, at least one decimal below 10 (``1.0B``); the suffix is chosen after
    rounding, so 999,999,999 reads ``1.0B``, never ``1e+03M``."""
    x = x or 0.0
    if x != x or x in (float("inf"), float("-inf")):
        return "unbounded"
    for unit, mult in _COUNT_UNITS:
        scaled = float(f"{abs(x) / mult:.3g}")
        if scaled >= 1:
            sign = "-" if x < 0 else ""
            return f"{sign}{scaled:.1f}{unit}" if scaled < 10 else f"{sign}{scaled:.3g}{unit}"
    return f"{x:.3g}"


def exact_size_text(n: float) -> str:
    """A byte count as config.ini writes it, exactly: ``2G``, ``512M``, ``1234M``, ``64K``, or bytes
    (``100``) when no suffix divides it; ``parse_bytes`` reads it back to the same count."""
    for unit in ("G", "M", "K"):
        if n >= _BINARY[unit] and n % _BINARY[unit] == 0:
            return f"{int(n // _BINARY[unit])}{unit}"
    return f"{round(n)}"


CLEAN_DIGITS = 100
"""``clean_size_text`` writes a size as a whole number of at least this many of its unit, so the
rounding up adds at most 1% (``118G`` for 117.3G, ``2560M`` for 2.5G)."""


def clean_size_text(n: float) -> str:
    """A byte count as a DBA writes it in config.ini or ``--set``: exactly when a unit divides it
    (``117G``, ``512M``), else rounded up to a whole number of the largest unit it holds at least
    ``CLEAN_DIGITS`` of (120150M -> ``118G``): never less than ``n``, so a size that must hold
    something still does."""
    for unit in ("G", "M", "K"):  # NDB's config.ini suffixes (no T), largest first
        if n >= _BINARY[unit] and n % _BINARY[unit] == 0:
            return f"{int(n // _BINARY[unit])}{unit}"
        if n >= CLEAN_DIGITS * _BINARY[unit]:
            return f"{math.ceil(n / _BINARY[unit])}{unit}"
    return f"{math.ceil(n)}"


def format_secs(s: float) -> str:
    """1151 -> '19m11s'; a restart that never finishes -> 'never'."""
    if s != s or s in (float("inf"), float("-inf")):
        return "never"
    s = round(s)
    if s < 0:  # a saving that is a loss: the sign, then the amount (divmod would wrap round)
        return "-" + format_secs(-s)
    h, rem = divmod(int(s), 3600)
    m, sec = divmod(rem, 60)
    if h:
        return f"{h}h{m:02d}m{sec:02d}s"
    if m:
        return f"{m}m{sec:02d}s"
    return f"{sec}s"
