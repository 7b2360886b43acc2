"""YAML 1.2's core schema for PyYAML, which resolves plain scalars by YAML 1.1's rules.

PyYAML reads ``0100`` as 64 (octal), ``1:00`` as 60 (sexagesimal), ``1_000`` as 1000,
``0b101`` as 5 and ``yes``/``no``/``on``/``off`` as booleans: YAML 1.1 forms that YAML 1.2
dropped (yaml.org/spec/1.2.2, 10.3 "Core Schema"). A delta ``value: 0100`` would silently become
64 in a file an autopilot loads. Here plain scalars resolve by the core schema (null, bool,
int in decimal / ``0o`` octal / ``0x`` hex, float), and a plain scalar that the two schemas read
differently is refused, naming both readings: whoever wrote it meant one of them, and which
one cannot be told. Integers are bounded (``MAX_INT_DIGITS``) before ``int()`` sees them.

Imported only when a document is parsed (PyYAML stays out of warm commands).
"""

from __future__ import annotations

import datetime
import functools
import math
import re
from typing import Any

import yaml
from yaml.constructor import SafeConstructor

from paramdiff.errors import quote

STR_TAG = "tag:yaml.org,2002:str"
INT_TAG = "tag:yaml.org,2002:int"
FLOAT_TAG = "tag:yaml.org,2002:float"
BOOL_TAG = "tag:yaml.org,2002:bool"
NULL_TAG = "tag:yaml.org,2002:null"
# A plain scalar the two schemas read differently: refused before anything constructs it.
DISAGREES_TAG = "tag:paramdiff,2026:yaml-1.1-and-1.2-disagree"

# The core schema's regular expressions (YAML 1.2.2, 10.3.2 "Tag Resolution").
_CORE = (
    (NULL_TAG, re.compile(r"(?:~|null|Null|NULL|)\Z")),
    (BOOL_TAG, re.compile(r"(?:true|True|TRUE|false|False|FALSE)\Z")),
    (INT_TAG, re.compile(r"(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)\Z", re.ASCII)),
    (
        FLOAT_TAG,
        re.compile(
            r"(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
            r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z",
            re.ASCII,
        ),
    ),
)
# No number in paramdiff's files comes near this (a float32 parameter has at most 39 digits
# before its point; a size, a version, a channel function a few): a longer integer is a
# mistake, and Python's int() refuses past 4,300 digits anyway (ValueError, was exit 3).
MAX_INT_DIGITS = 100


class Refused(Exception):
    """A scalar the loader will not read: the line, what is wrong and how to fix it."""

    def __init__(self, line: int, what: str, fix: str) -> None:
        super().__init__(what)
        self.line = line
        self.what = what
        self.fix = fix


def core_tag(value: str) -> str:
    """The tag YAML 1.2's core schema gives a plain scalar."""
    for tag, pattern in _CORE:
        if pattern.match(value):
            return tag
    return STR_TAG


def core_int(text: str, line: int = 1) -> int:
    """A core-schema integer (decimal, ``0o`` octal or ``0x`` hex), at most MAX_INT_DIGITS."""
    digits = text.lstrip("+-")
    if len(digits) > MAX_INT_DIGITS:
        raise Refused(
            line,
            f"integer of {len(digits)} digits is longer than any number paramdiff reads "
            f"(at most {MAX_INT_DIGITS} digits)",
            "check the value; no number in these files needs that many digits",
        )
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)  # a leading zero is decimal in YAML 1.2: 0100 is 100


_YAML11 = SafeConstructor()


def _yaml11_value(tag: str, text: str) -> Any:
    """What PyYAML's own (YAML 1.1) safe loader makes of a plain scalar with ``tag``."""
    if tag == INT_TAG and len(text) > MAX_INT_DIGITS + 4:
        raise ValueError("too long")  # int() would refuse it past 4,300 digits, or be slow
    return _YAML11.construct_object(yaml.ScalarNode(tag, text), deep=True)


def _core_value(tag: str, text: str) -> Any:
    if tag == INT_TAG:
        return core_int(text)
    if tag == STR_TAG:
        return text
    return _YAML11.construct_object(yaml.ScalarNode(tag, text), deep=True)


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


class _Special:
    """A YAML 1.1 reading that is no plain value (the merge key ``<<``, the value key ``=``)."""

    def __init__(self, tag: str) -> None:
        self.words = {"merge": "a merge key", "value": "a value key"}.get(
            tag.rsplit(":", 1)[-1], f"a {tag.rsplit(':', 1)[-1]}"
        )

    def __str__(self) -> str:
        return self.words


def readings(value: str, tag11: str) -> tuple[Any, Any] | None:
    """(YAML 1.1 value, YAML 1.2 value) of a plain scalar that YAML 1.1 reads as something
    other than text, when YAML 1.2 reads it otherwise; else None. (A scalar 1.1 reads as
    text and 1.2 as a number — ``0o100``, ``1e3`` — is read as 1.2 says: nobody who wrote
    ``0o100`` meant the text, and 1.1 never gave these files a number there.)"""
    if tag11 == STR_TAG:
        return None
    tag12 = core_tag(value)
    try:
        old = _yaml11_value(tag11, value)
    except Exception:  # a tag PyYAML cannot build (merge "<<", value "=")
        old = _Special(tag11)
    try:
        new = _core_value(tag12, value)
    except Refused:
        return None  # the constructor refuses it, with its line
    return None if _same(old, new) else (old, new)


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return f"the text '{quote(value)}'"
    if isinstance(value, datetime.date):
        return f"the date {value.isoformat()}"
    if isinstance(value, int | float):
        return quote(repr(value))
    return str(value)


def _spelled(value: Any) -> str:
    """How to write ``value`` so that both schemas read it the same."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isfinite(value):
        return repr(value) if "e" not in repr(value) else f"{value:.1f}"
    return str(value)


def disagreement(text: str, old: Any, new: Any, line: int) -> Refused:
    what = f"value {quote(text)} reads as {_shown(old)} in YAML 1.1 and {_shown(new)} in YAML 1.2"
    if type(old) is int and type(new) is int:  # a leading zero: 1.1 octal, 1.2 decimal
        fix = f"write {new} (or 0o{old:o} for octal)"
    elif isinstance(new, str) and isinstance(old, bool | int | float):
        fix = f"write {_spelled(old)}, or quote it ('{quote(text)}') for text"
    else:
        fix = f"quote it ('{quote(text)}') if it is text"
    return Refused(line, what, fix)


def _construct_int(loader: SafeConstructor, node: yaml.ScalarNode) -> int:
    line = node.start_mark.line + 1 if node.start_mark is not None else 1
    text = str(node.value)
    if core_tag(text) != INT_TAG:  # an explicit !!int on something else
        raise Refused(line, f"'{quote(text)}' is not a YAML 1.2 integer", "write a plain integer")
    return core_int(text, line)


def _make_loader(base: type) -> type:
    class Loader(base):  # type: ignore[misc,valid-type]
        """``base`` (PyYAML's safe loader) resolving plain scalars by YAML 1.2's core
        schema; a scalar YAML 1.1 reads otherwise gets DISAGREES_TAG."""

        def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
            if kind is not yaml.ScalarNode or not implicit[0]:
                return super().resolve(kind, value, implicit)
            return plain_tag(value)

    Loader.add_constructor(INT_TAG, _construct_int)
    return Loader


_RESOLVER_11 = yaml.resolver.Resolver()  # PyYAML's own resolution of plain scalars


@functools.lru_cache(maxsize=4096)
def plain_tag(value: str) -> str:
    """The tag of a plain scalar: YAML 1.2's core schema's, or DISAGREES_TAG when YAML 1.1
    reads it otherwise. A function of the text alone, so worked out once per text: a lock
    repeats its keys and digests' field names ~400 times, and resolving each scalar through
    both schemas was a third of its parse (~2.5 of 7.7 ms)."""
    tag11 = _RESOLVER_11.resolve(yaml.ScalarNode, value, (True, False))
    if readings(value, tag11) is not None:
        return DISAGREES_TAG
    return core_tag(value)


def loader_class() -> type:
    """The YAML 1.2 safe loader (C-accelerated when libyaml is present); made once."""
    global _LOADER
    if _LOADER is None:
        _LOADER = _make_loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return _LOADER


_LOADER: type | None = None


def check_scalars(node: yaml.Node) -> None:
    """Raise Refused for the first plain scalar the two schemas read differently (the
    document's depth is bounded before this runs: see yamlfile.MAX_DEPTH)."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, yaml.ScalarNode):
            if item.tag == DISAGREES_TAG:
                line = item.start_mark.line + 1 if item.start_mark is not None else 1
                tag11 = yaml.resolver.Resolver().resolve(yaml.ScalarNode, item.value, (True, False))
                found = readings(item.value, tag11)
                assert found is not None
                raise disagreement(item.value, *found, line)
        elif isinstance(item, yaml.SequenceNode):
            stack.extend(reversed(item.value))
        elif isinstance(item, yaml.MappingNode):
            for key, value in reversed(item.value):
                stack.extend((value, key))


class Dumper(yaml.SafeDumper):
    """PyYAML's safe dumper, quoting every string that either schema would read as something
    else (``'0189'``, ``'1e5'``, ``'yes'``), so what it writes reads back the same here."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is yaml.ScalarNode and implicit[0]:
            tag12 = core_tag(value)
            if tag12 != STR_TAG:
                return tag12
        return super().resolve(kind, value, implicit)

    def ignore_aliases(self, data: Any) -> bool:
        return True
