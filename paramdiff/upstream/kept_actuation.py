"""A verified model's Thruster systems and command topics (parse.sdf_thruster.read_actuation),
kept beside its cached bytes as one line of JSON like its channels and geometry
(upstream.parsed): a warm `check` computes actuator fidelity without parsing XML. A kept entry
that is not exactly what read_actuation gives is a miss: read again."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .parsed import _int_lines, _kept, _no_constant, _typed

if TYPE_CHECKING:
    from ..parse.sdf_thruster import Actuation
    from .cache import Cache

ACTUATION_KIND = "sdf-actuation"
_THRUSTER_TYPES = (str, str, bool, float, float, (float, type(None)), float, float, float, str, int)


def kept_actuation(
    cache: Cache, source_sha256: str, file: str, read: Callable[[], Actuation]
) -> Actuation:
    def row(found: Actuation) -> list[Any]:
        topics = [[c, t] for c, t in sorted(found.topics.items())]
        return [file, [list(t) for t in found.thrusters], topics]

    return _kept(
        cache, ACTUATION_KIND, source_sha256, lambda line: _actuation_of(line, file), read, row
    )


def _thruster_ok(row: list[Any]) -> bool:
    if len(row) != 12 or not isinstance(row[11], dict) or not _int_lines(row[11]):
        return False
    head = row[:11]
    deadband_ok = row[5] is None or type(row[5]) is float
    fixed = tuple(t for i, t in enumerate(_THRUSTER_TYPES) if i != 5)
    rest = tuple(v for i, v in enumerate(head) if i != 5)
    numbers = [v for v in head if type(v) is float]
    return deadband_ok and _typed(rest, fixed) and all(math.isfinite(v) for v in numbers)  # type: ignore[arg-type]


def _actuation_of(line: bytes, file: str) -> Actuation | None:
    from ..parse.sdf_thruster import Actuation, Thruster

    try:
        kept_file, rows, topics = json.loads(line, parse_constant=_no_constant)
        if kept_file != file or not all(isinstance(r, list) and _thruster_ok(r) for r in rows):
            return None
        pairs = {c: t for c, t in topics if type(c) is int and type(t) is str}
        if len(pairs) != len(topics):
            return None
        return Actuation([Thruster(*r) for r in rows], pairs)
    except (ValueError, TypeError, RecursionError):
        return None
