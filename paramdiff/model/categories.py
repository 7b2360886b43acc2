"""Category rules as plain data: how sources.yaml sorts parameter names (no YAML needed to use
them, so `diff` never imports the YAML stack)."""

from __future__ import annotations

import fnmatch
import re
from typing import NamedTuple


class Category(NamedTuple):
    """One category rule of sources.yaml: name, reason and what selects its parameters."""

    name: str
    rule: str
    params: tuple[str, ...] = ()
    calibration_list: bool = False
    metadata_flags: tuple[str, ...] = ()
    script_defined: bool = False


class ScriptParams(NamedTuple):
    """Parameter globs a profile's scripts create, with the reason."""

    params: str
    reason: str


def compile_globs(globs: tuple[str, ...]) -> re.Pattern[str]:
    """One compiled pattern for a list of name globs (fnmatch syntax, case-sensitive)."""

    return re.compile("|".join(fnmatch.translate(g) for g in globs) or r"(?!)")


_GLOB_SPECIALS = frozenset("*?[")


def _plain(text: str) -> bool:
    return _GLOB_SPECIALS.isdisjoint(text)


class GlobSet:
    """Whether a name matches any of ``globs`` (fnmatch syntax, case-sensitive), as
    ``compile_globs(globs).match`` says. Whole names and ``PREFIX*`` globs (most of
    sources.yaml's) are a set and one ``startswith``; only the rest are compiled: compiling
    every category's globs cost ~0.9 ms a run, and a name is matched in half the time."""

    def __init__(self, globs: tuple[str, ...]) -> None:
        prefixes = [g for g in globs if g.endswith("*") and _plain(g[:-1])]
        self.names = frozenset(g for g in globs if _plain(g))
        self.prefixes = tuple(g[:-1] for g in prefixes)
        rest = tuple(g for g in globs if not _plain(g) and g not in prefixes)
        self.rest = compile_globs(rest) if rest else None

    def match(self, name: str) -> bool:
        return (
            name in self.names
            or name.startswith(self.prefixes)
            or (self.rest is not None and self.rest.match(name) is not None)
        )
