"""Parsed forms of cached upstream files, kept beside them: ``<cache>/parsed/<kind>/<ab>/<sha256>``.

``apm.pdef.json`` is 2 MB of indented JSON; parsing it is the largest single cost of a compare
or a check. Its parameters are kept, per sha256 of the verified source bytes, in a compact form
that loads in a few milliseconds: a header line, the parameter names as one JSON array, the
names indexed by flag (``Calibration``, ``RebootRequired``, ...; classifying decodes nothing),
then each parameter's metadata as one line of compact JSON, decoded only when that parameter is
looked up. The cache directory is not trusted code, so the form is plain JSON text (never
pickle or marshal), and it is verified like every cache entry: the header names the format, the
kind, the source's sha256 and the sha256 of everything after it. An entry that fails any of
these (corrupt, truncated, edited, from another format version) is rebuilt from the source
bytes, never used.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..digests import sha256_of
from ..errors import InputError, ParamdiffError
from ..files import write_atomic
from ..model.metadata import Metadata, is_flag_set, parse_pdef
from .cache import Cache

FORMAT = "paramdiff-parsed 1"
METADATA_KIND = "pdef"


def parsed_path(cache: Cache, kind: str, source_sha256: str) -> Path:
    return cache.root / "parsed" / kind / source_sha256[:2] / source_sha256


def _header(kind: str, source_sha256: str, payload: bytes) -> bytes:
    return f"{FORMAT} {kind} {source_sha256} {sha256_of(payload)}\n".encode()


def read_entry(cache: Cache, kind: str, source_sha256: str) -> bytes | None:
    """The entry's payload when its header and digest check out, else None (a miss)."""
    try:
        data = parsed_path(cache, kind, source_sha256).read_bytes()
    except OSError:
        return None
    head, sep, payload = data.partition(b"\n")
    if not sep:
        return None
    return payload if head + sep == _header(kind, source_sha256, payload) else None


def write_entry(cache: Cache, kind: str, source_sha256: str, payload: bytes) -> None:
    """Best effort: a cache that cannot be written only costs the next run a parse."""
    entry = _header(kind, source_sha256, payload) + payload
    with contextlib.suppress(ParamdiffError):  # write_atomic's error for an unwritable dir
        write_atomic(parsed_path(cache, kind, source_sha256), entry)


class LazyParams(Mapping[str, dict[str, Any]]):
    """name -> metadata dict, each decoded from its compact JSON line on first lookup."""

    def __init__(
        self, names: list[str], lines: list[str], flags: dict[str, Any], where: Path
    ) -> None:
        self._names = names
        self._lines = dict(zip(names, lines, strict=True))
        self._flag_rows = flags  # flag -> row numbers, made into name sets when asked for
        self._flags: dict[str, frozenset[str]] = {}
        self._decoded: dict[str, dict[str, Any]] = {}
        self._where = where

    def __getitem__(self, name: str) -> dict[str, Any]:
        raw = self._decoded.get(name)
        if raw is None:
            raw = self._decode(self._lines[name])
            self._decoded[name] = raw
        return raw

    def flagged(self, flag: str) -> frozenset[str]:
        """Names whose ``flag`` is set, from the index written with the entry."""
        if flag not in self._flags:
            rows = self._flag_rows.get(flag, [])
            n = len(self._names)
            if not isinstance(rows, list) or not all(type(i) is int and 0 <= i < n for i in rows):
                raise self._malformed()
            self._flags[flag] = frozenset(self._names[i] for i in rows)
        return self._flags[flag]

    def _malformed(self) -> InputError:
        # Only an entry forged with a matching digest gets here.
        return InputError(
            "the parsed metadata in the cache is malformed",
            f"delete {self._where} (it is rebuilt from the verified source)",
            file=str(self._where),
        )

    def get(self, name: str, default: Any = None) -> Any:
        return self[name] if name in self._lines else default

    def _decode(self, line: str) -> dict[str, Any]:
        try:
            raw = json.loads(line)
        except ValueError:
            raw = None
        if not isinstance(raw, dict):
            raise self._malformed()
        return raw

    def __contains__(self, name: object) -> bool:
        return name in self._lines

    def __iter__(self) -> Iterator[str]:
        return iter(self._lines)

    def __len__(self) -> int:
        return len(self._lines)


def _encode_params(params: Mapping[str, dict[str, Any]]) -> bytes:
    names = list(params)
    flags: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        for key in params[name]:
            if is_flag_set(params[name], key):
                flags.setdefault(key, []).append(i)
    lines = [json.dumps(names, ensure_ascii=False), json.dumps(flags, ensure_ascii=False)]
    lines += [json.dumps(params[n], ensure_ascii=False, separators=(",", ":")) for n in names]
    return "\n".join(lines).encode()


def _decode_params(payload: bytes, where: Path) -> LazyParams | None:
    try:
        names_line, flags_line, rest = payload.decode().split("\n", 2)
        names, flags = json.loads(names_line), json.loads(flags_line)
    except (UnicodeDecodeError, ValueError):
        return None
    lines = rest.split("\n")
    if not isinstance(names, list) or len(names) != len(lines) or not names:
        return None
    if not all(isinstance(n, str) for n in names) or not isinstance(flags, dict):
        return None
    return LazyParams(names, lines, flags, where)


def load_metadata(
    cache: Cache, source_sha256: str, data: bytes, file: str, firmware: str
) -> Metadata:
    """``apm.pdef.json`` (``data``, already verified to hash to ``source_sha256``) as
    Metadata: from its parsed entry when that verifies, else parsed and the entry written."""
    where = parsed_path(cache, METADATA_KIND, source_sha256)
    payload = read_entry(cache, METADATA_KIND, source_sha256)
    params = _decode_params(payload, where) if payload is not None else None
    if params is not None:
        return Metadata(file=file, firmware=firmware, params=params)
    meta = parse_pdef(data, file, firmware)
    write_entry(cache, METADATA_KIND, source_sha256, _encode_params(meta.params))
    return meta
