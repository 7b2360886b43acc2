"""Parsed forms of cached upstream files, kept beside them: ``<cache>/parsed/<kind>/<ab>/<sha256>``.

``apm.pdef.json`` is 2 MB of indented JSON; parsing it is the largest single cost of a compare
or a check. Its parameters are kept, per sha256 of the verified source bytes, in a compact form
that loads in a few milliseconds, as two entries. ``pdef``: a header line; the head (``_Head``:
the parameter names as one JSON array, the names indexed by flag so classifying decodes
nothing, what every table row reads — display names, and each label's units or the number of
its label tables — where each name's line starts in the other entry, and that entry's sha256;
each name's range, what validating reads with the label tables);
then each distinct enum/bitmask label table once, decoded when a label needs it.
``pdef-entries``: each parameter's metadata as one line of compact JSON, read (whole, and
checked against the head's digest) when a name's metadata is first looked up (a compare only
for a renamed parameter's conversion) and decoded a line at a time. The cache directory is not
trusted code, so the form is plain JSON text (never pickle or marshal), and each entry is
verified like every cache entry (fetch/cache.py's parsed entries). An entry that fails any
check (corrupt, truncated, edited, from another format version) is rebuilt from the source
bytes, never used.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from itertools import accumulate
from pathlib import Path
from typing import Any, NamedTuple

from paramdiff.digests import sha256_of
from paramdiff.errors import InputError
from paramdiff.fetch.cache import Cache
from paramdiff.model.metadata import (
    LabelTables,
    Limits,
    Metadata,
    ParamMeta,
    is_flag_set,
    label_tables_of,
    parse_pdef,
    summarize,
)

_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
METADATA_KIND = "pdef"
ENTRIES_KIND = "pdef-entries"
_UNITS = {str, int, type(None)}  # see _Head.units


class LazyParams(Mapping[str, dict[str, Any]]):
    """name -> metadata dict, each decoded from its compact JSON line on first lookup; a
    name's display name and plain units without decoding it (see ``summary``)."""

    def __init__(self, head: _Head, tables: list[bytes], entries: Entries, where: Path) -> None:
        self._names = head.names
        self._row = dict(zip(head.names, range(len(head.names)), strict=True))
        self._head = head
        self._table_lines = tables
        self._read_entries, self._remade = entries
        self._entries: tuple[bytes, int] | None = None  # bytes, where the lines start in them
        self._starts: list[int] = []  # decoded with the entries (a compare reads neither)
        self._flags: dict[str, frozenset[str]] = {}
        self._decoded: dict[str, dict[str, Any]] = {}
        self._tables: dict[int, LabelTables] = {}  # by number (_Head.units)
        self._ranges: list[Any] | None = None  # _Head.ranges, decoded (and checked) on first use
        self._where = where

    def __getitem__(self, name: str) -> dict[str, Any]:
        raw = self._decoded.get(name)
        if raw is None:
            raw = self._decode(self._row[name])
            self._decoded[name] = raw
        return raw

    def flagged(self, flag: str) -> frozenset[str]:
        """Names whose ``flag`` is set, from the index written with the entry."""
        if flag not in self._flags:
            rows = self._head.flags.get(flag, [])
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
        return self[name] if name in self._row else default

    def summary(self, name: str) -> tuple[str, str | None] | None:
        """(display name, units) of ``name`` as ``summarize`` gives them, or None when the
        metadata lacks the name; a compare reads these for every row, so none is decoded."""
        row = self._row.get(name)
        if row is None:
            return None
        units = self._head.units[row]
        return self._head.shown[row], units if type(units) is str else None

    def label_tables(self, name: str) -> LabelTables | None:
        """What ``label_of`` reads for ``name``, or None: read its entry. Parameters share
        tables (SERVO1..16_FUNCTION one enum), kept once after the entries: a three-way table
        decodes ~200 of them, 38 kB, where its entries' lines were ~440, 160 kB."""
        table = self._head.units[self._row[name]]
        if type(table) is not int:
            return None
        if table not in self._tables:
            if not 0 <= table < len(self._table_lines):
                raise self._malformed()
            try:
                values, bits, units = self._scan(self._table_lines[table])
                tables = LabelTables(dict(values), dict(bits), units)
                _check_tables(tables)
            except (TypeError, ValueError):  # not three items, pairs, or of the right types
                raise self._malformed() from None
            self._tables[table] = tables
        return self._tables[table]

    def limits(self, name: str) -> Limits | None:
        """What ``problems_of`` reads for ``name`` (ParamMeta's values, bitmask and range),
        from its summary or label tables and its range, or None: read its entry."""
        row = self._row.get(name)
        if row is None:
            return None
        units = self._head.units[row]
        values: dict[float, str] = {}
        bits: dict[int, str] = {}
        if type(units) is int:
            values, bits, _ = self.label_tables(name) or ({}, {}, "")
        elif type(units) is not str:  # str: no Values, no Bitmask
            return None
        return Limits(values, bits, self._range_of(row))

    def _range_of(self, row: int) -> tuple[float, float] | None:
        if self._ranges is None:
            rows = self._lazy(self._head.ranges)
            if type(rows) is not list or len(rows) != len(self._names):
                raise self._malformed()
            self._ranges = rows
        found = self._ranges[row]  # checked as used: a check validates a few hundred of ~1,000
        if found is not None and not _float_pair(found):
            raise self._malformed()
        return None if found is None else (found[0], found[1])

    def _lazy(self, line: Any) -> Any:
        """A head line kept as read (see _LAZY), decoded."""
        try:
            return json.loads(line) if isinstance(line, bytes) else line
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise self._malformed() from None

    def _decode(self, row: int) -> dict[str, Any]:
        if not self._starts:  # decoded on the first lookup
            self._starts = self._line_starts()
        data, base = self._entries or self._read_whole()
        starts = self._starts
        start = base + starts[row]
        end = len(data) if row + 1 == len(starts) else base + starts[row + 1] - 1
        if not base <= start <= end <= len(data):
            raise self._malformed()
        raw = self._scan(data[start:end])
        if not isinstance(raw, dict):
            raise self._malformed()
        return raw

    def _read_whole(self) -> tuple[bytes, int]:
        """The entries' entry (its bytes and where its lines start), checked against the
        digest in the head; made again from the source when missing or damaged."""
        found = self._read_entries()
        if found is None or found[2] != self._head.entries:
            data = self._remade()
            if sha256_of(data) != self._head.entries:  # even when made again: a forged head
                raise self._malformed()
            found = (data, 0, self._head.entries)
        self._entries = found[0], found[1]
        return self._entries

    def _line_starts(self) -> list[int]:
        starts = self._lazy(self._head.starts)
        if not isinstance(starts, list) or len(starts) != len(self._names):
            raise self._malformed()
        if not all(type(s) is int for s in starts):  # arithmetic on them follows
            raise self._malformed()
        return starts

    def _scan(self, line: bytes) -> Any:
        """The JSON value of one line (an entry or a label table)."""
        # The C scanner itself: json.loads's Python layers cost more than the parse of a line.
        try:
            text = line.decode()
            raw, stop = _SCAN(text, 0)
            if stop != len(text):
                raise ValueError
        except (ValueError, StopIteration, RecursionError):
            raise self._malformed() from None
        return raw

    def __contains__(self, name: object) -> bool:
        return name in self._row

    def __iter__(self) -> Iterator[str]:
        return iter(self._row)

    def __len__(self) -> int:
        return len(self._row)


class _Head(NamedTuple):
    """The lines of the metadata's entry before its label tables (one a line), in this order."""

    names: list[str]
    flags: dict[str, Any]  # flag -> row numbers, made into name sets when asked for
    shown: list[str]  # display names
    # text: summarize's units (the label is the number and these); a number: which label
    # tables; null: the label needs the whole entry
    units: list[str | int | None]
    # where each name's line starts in the entries' entry (read: its JSON line, decoded when
    # the entries are, 0.3 ms a load a compare does not need)
    starts: list[int] | bytes
    # the sha256 of the entries' entry (ENTRIES_KIND): the two entries go together
    entries: str
    # each name's range as ParamMeta.range gives it ([low, high] or null), for what
    # Metadata.problems reads (read: its JSON line, decoded when a range is first asked for)
    ranges: list[list[float] | None] | bytes


HEAD_LINES = len(_Head._fields)
_STARTS = _Head._fields.index("starts")
_LAZY = (_STARTS, _Head._fields.index("ranges"))  # kept as read, decoded on first use


def _encode_params(params: Mapping[str, dict[str, Any]]) -> tuple[bytes, bytes]:
    """The metadata's entry (the head, then its label tables) and its entries' entry (each
    name's metadata a line)."""
    names = list(params)
    flags: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        for key in params[name]:
            if is_flag_set(params[name], key):
                flags.setdefault(key, []).append(i)
    summaries = [summarize(params[n]) for n in names]
    tables: dict[str, int] = {}  # each distinct table's JSON -> its number
    units = [
        s[1] if s[1] is not None else _table(params[n], tables)
        for n, s in zip(names, summaries, strict=True)
    ]
    # ASCII (non-ASCII escaped): each line is decoded on its own when looked up, fast.
    lines = [json.dumps(params[n], separators=(",", ":")) for n in names]
    # Where each line starts: the entries are never split into lines (5,000 lines, ~1 ms).
    starts = list(accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
    entries = "\n".join(lines).encode()
    ranges = [_range_row(params[n]) for n in names]
    head = _Head(names, flags, [s[0] for s in summaries], units, starts, sha256_of(entries), ranges)
    return "\n".join([*map(json.dumps, head), *tables]).encode(), entries


def _table(raw: dict[str, Any], tables: dict[str, int]) -> int | None:
    """The number of ``raw``'s label tables in ``tables`` (added when new), or None when
    ParamMeta must read the entry itself."""
    found = label_tables_of(raw)
    if found is None:
        return None
    text = json.dumps([list(found.values.items()), list(found.bitmask.items()), found.units])
    return tables.setdefault(text, len(tables))


def _range_row(raw: dict[str, Any]) -> list[float] | None:
    found = ParamMeta("", raw).range
    return None if found is None else list(found)


def _float_pair(row: Any) -> bool:
    return type(row) is list and len(row) == 2 and all(type(v) is float for v in row)


def _check_tables(tables: LabelTables) -> None:
    values, bits, units = tables
    if not set(map(type, values)) <= {float} or not set(map(type, bits)) <= {int}:
        raise TypeError
    if not set(map(type, values.values())) | set(map(type, bits.values())) <= {str}:
        raise TypeError
    if type(units) is not str:
        raise TypeError


def _decode_params(
    lines: list[bytes], entry: bytes, base: int, entries: Entries, where: Path
) -> LazyParams | None:
    try:
        fields: list[Any] = [b if i in _LAZY else json.loads(b) for i, b in enumerate(lines)]
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    head = _Head(*fields)
    names, flags, shown, units, _, digest, _ = head
    if not all(isinstance(a, list) for a in (names, shown, units)):
        return None
    if not names or not len(names) == len(shown) == len(units):
        return None
    if not isinstance(digest, str):
        return None
    if not isinstance(flags, dict) or set(map(type, names)) != {str}:
        return None
    if set(map(type, shown)) != {str} or not set(map(type, units)) <= _UNITS:
        return None
    tables = entry[base:].split(b"\n") if base < len(entry) else []
    return LazyParams(head, tables, entries, where)


def load_metadata(
    cache: Cache,
    source_sha256: str,
    data: bytes | Callable[[], bytes],
    file: str,
    firmware: str,
) -> Metadata:
    """``apm.pdef.json`` (``data``, verified to hash to ``source_sha256``, or what reads it
    so: called only when a parsed entry is missing) as Metadata: from its parsed entry when
    that verifies, else parsed and the entries written. The names' own lines (1.5 MB of the
    1.8) are in a second entry, read when a name's metadata is first looked up: a compare's
    labels read the first only (~0.3 MB to hash)."""
    where = cache.parsed_path(METADATA_KIND, source_sha256)
    found = cache.read_parsed_head(METADATA_KIND, source_sha256, HEAD_LINES)
    source = data if callable(data) else lambda: data

    def read_entries() -> tuple[bytes, int, str] | None:
        return cache.read_parsed_payload(ENTRIES_KIND, source_sha256)

    def remade() -> bytes:  # the kept entries were missing, damaged or stale
        return _write(cache, source_sha256, parse_pdef(source(), file, firmware))

    entries = (read_entries, remade)
    params = _decode_params(*found, entries, where) if found is not None else None
    if params is not None:
        return Metadata(file=file, firmware=firmware, params=params)
    meta = parse_pdef(source(), file, firmware)
    _write(cache, source_sha256, meta)
    return meta


# How LazyParams reads its entries: the kept entry (its bytes, where the payload starts in them
# and the payload's sha256; None when it is missing or damaged), and the payload made again
# from the source.
Entries = tuple[Callable[[], tuple[bytes, int, str] | None], Callable[[], bytes]]


def _write(cache: Cache, source_sha256: str, meta: Metadata) -> bytes:
    head, entries = _encode_params(meta.params)
    cache.write_parsed(ENTRIES_KIND, source_sha256, entries)
    cache.write_parsed(METADATA_KIND, source_sha256, head)
    return entries
