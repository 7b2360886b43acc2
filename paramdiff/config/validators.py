"""The type of every value read from the project's YAML files, checked before it is used.

YAML gives any key any type (``categories: true``, ``deltas: 5``, ``params: null``); each
reader asks for the type it needs through one of these, so a wrong type is an ``Error:`` naming
the key path and line, never a TypeError deep inside (exit 3).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from paramdiff.config.yamlfile import KeyPath, YamlDoc, key_name
from paramdiff.errors import quote

NAME_GLOB_RE = re.compile(r"^[A-Z0-9_*?\[\]!]+$")
REPO_RE = re.compile(r"^[A-Za-z0-9_.][A-Za-z0-9_.-]*/[A-Za-z0-9_.][A-Za-z0-9_.-]*$")
# git check-ref-format, plus our own refusals: no option-looking refs, no whitespace.
REF_BAD_RE = re.compile(r"(^-)|(\.\.)|([\x00-\x20\x7f~^:?*\[\\])|(@\{)|(^/)|(/$)|(\.lock$)")
CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")


def _shown(value: Any) -> str:
    return quote(repr(value))


def mapping(doc: YamlDoc, path: KeyPath, value: Any, optional: bool = True) -> dict[str, Any]:
    """A mapping with string keys (absent or null: empty, when ``optional``)."""
    if value is None and optional:
        return {}
    if not isinstance(value, dict):
        raise doc.error(
            path,
            f"'{key_name(path)}' must be a mapping, not {_shown(value)}",
            "indent its keys under it",
        )
    for key in value:
        if not isinstance(key, str):
            raise doc.error(
                (*path, key),
                f"key {_shown(key)} under '{key_name(path)}' is not a string",
                f"quote it: '{key}'",
            )
    return value


def sequence(doc: YamlDoc, path: KeyPath, value: Any) -> list[Any]:
    """A list (absent or null: empty)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise doc.error(
            path,
            f"'{key_name(path)}' must be a list, not {_shown(value)}",
            f"write each item of '{key_name(path)}' on its own '- ' line",
        )
    return value


def text(doc: YamlDoc, path: KeyPath, value: Any) -> str:
    """A single scalar written as text (a string or a number, never a list, mapping, bool or
    null)."""
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise doc.error(
            path, f"'{key_name(path)}' must be text, not {_shown(value)}", "write a single value"
        )
    return str(value)


def flag(doc: YamlDoc, path: KeyPath, value: Any) -> bool:
    if not isinstance(value, bool):
        raise doc.error(
            path,
            f"'{key_name(path)}' must be true or false, not {_shown(value)}",
            "write true or false",
        )
    return value


def globs(doc: YamlDoc, path: KeyPath, value: Any) -> tuple[str, ...]:
    """Parameter names or globs: one string or a list of strings."""
    items = value if isinstance(value, list) else [value]
    for i, item in enumerate(items):
        where = (*path, i) if isinstance(value, list) else path
        if not isinstance(item, str) or not NAME_GLOB_RE.match(item):
            raise doc.error(
                where,
                f"'{key_name(path)}' entry {_shown(item)} is not a parameter name or glob",
                "use upper-case names with * ? [..] wildcards, e.g. SERVO*_TRIM",
            )
    return tuple(items)


def version(doc: YamlDoc, value: Any, expected: int, fix: str, what: str = "version") -> None:
    """``version:`` is exactly the integer ``expected`` (not ``true``, not ``1.0``)."""
    if type(value) is not int or value != expected:
        raise doc.error(("version",), f"unsupported {what} {_shown(value)}", fix)


# ------------------------------------------------------------ keys, paths, repositories, refs


def check_relpath(value: Any, doc: YamlDoc, path: KeyPath) -> str:
    """A repository-relative POSIX path: no absolute paths, no '..', no control characters."""
    if not isinstance(value, str) or not value.strip():
        raise doc.error(
            path, f"'{key_name(path)}' must be a non-empty path", "write a relative path"
        )
    if CONTROL_RE.search(value) or "\\" in value:
        raise doc.error(
            path,
            f"'{key_name(path)}' contains a control character or backslash",
            "use a plain POSIX path",
        )
    pure = PurePosixPath(value)
    if pure.is_absolute() or re.match(r"^[A-Za-z]:", value):
        raise doc.error(
            path, f"'{key_name(path)}' is an absolute path: {value}", "make it relative"
        )
    if ".." in pure.parts:
        raise doc.error(
            path,
            f"'{key_name(path)}' contains '..': {value}",
            "name the file by its path inside the repository, without '..'",
        )
    return value


def check_repo(value: Any, doc: YamlDoc, path: KeyPath) -> str:
    if not isinstance(value, str) or not REPO_RE.match(value) or ".." in value:
        raise doc.error(
            path,
            f"'{key_name(path)}' is not an owner/name repository: {quote(repr(value))}",
            "write it as owner/name, e.g. ArduPilot/SITL_Models (no spaces, not starting with '-')",
        )
    return value


def check_ref(value: Any, doc: YamlDoc, path: KeyPath) -> str:
    if not isinstance(value, str) or not value or REF_BAD_RE.search(value):
        raise doc.error(
            path,
            f"'{key_name(path)}' is not a safe git ref: {quote(repr(value))}",
            "use a branch, tag or 40-hex commit that does not start with '-' "
            "and has no whitespace or control characters",
        )
    return value


def check_keys(
    doc: YamlDoc, path: KeyPath, value: Any, required: set[str], optional: set[str]
) -> dict[str, Any]:
    """A mapping with exactly these keys: the required ones, and any of the optional ones."""
    value = mapping(doc, path, value, optional=False)
    for key in value:
        if key not in required | optional:
            raise doc.error(
                (*path, key),
                f"unknown key '{key_name((*path, key))}'",
                f"remove it or use one of: {', '.join(sorted(required | optional))}",
            )
    for key in sorted(required):
        if key not in value:
            raise doc.error(
                path,
                f"'{key_name(path)}' is missing '{key}'",
                f"add '{key}:' under '{key_name(path)}'",
            )
    return value
