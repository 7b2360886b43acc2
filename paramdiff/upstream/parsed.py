"""Parsed forms of cached upstream files, kept beside them: ``<cache>/parsed/<kind>/<ab>/<sha256>``.

``apm.pdef.json`` is 2 MB of indented JSON; parsing it is the largest single cost of a compare
or a check. Its parameters are kept, per sha256 of the verified source bytes, in a compact form
that loads in a few milliseconds, as two entries. ``pdef``: a header line; the head (``_Head``:
the parameter names as one JSON array, the names indexed by flag so classifying decodes
nothing, what every table row reads — display names, and each label's units or the number of
its label tables — where each name's line starts in the other entry, and that entry's sha256;
each name's range, what validating reads with the label tables);
then each distinct enum/bitmask label table once, decoded when a label needs it.
``pdef-entries``: each parameter's metadata as one line of compact JSON, read when a name's
metadata is first looked up (a compare only for a renamed parameter's conversion) and decoded
a line at a time. The cache directory is not trusted code, so the form is plain JSON text (never
pickle or marshal), and
each entry is verified like every cache entry: the header names the format, the kind, the
source's sha256 and the sha256 of everything after it (and the head names the entries'). An
entry that fails any of these (corrupt, truncated, edited, from another format version) is
rebuilt from the source bytes, never used.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Mapping
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from ..digests import sha256_of
from ..errors import InputError
from ..files import (
    PARSED_FORMAT,
    parsed_entry_path,
    read_parsed,
    read_parsed_head,
    read_parsed_range,
    write_parsed,
)
from ..model.metadata import (
    LabelTables,
    Limits,
    Metadata,
    ParamMeta,
    is_flag_set,
    label_tables_of,
    parse_pdef,
    summarize,
)
from .cache import Cache

if TYPE_CHECKING:
    from ..model.params import Fact
    from ..parse.sdf import Channel
    from ..parse.sdf_include import ModelTree, Pose

Channels = tuple[list["Channel"], list["Fact"]]

FORMAT = PARSED_FORMAT
_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
METADATA_KIND = "pdef"
ENTRIES_KIND = "pdef-entries"
ENTRIES_BLOCK = 64  # entries' lines per checked block (~20 kB)
INCLUDES_KIND = "sdf-includes"
CHANNELS_KIND = "sdf-channels"
GEOMETRY_KIND = "sdf-geometry"
_UNITS = {str, int, type(None)}  # see _Head.units


def parsed_path(cache: Cache, kind: str, source_sha256: str) -> Path:
    return parsed_entry_path(cache.root, kind, source_sha256)


def write_entry(cache: Cache, kind: str, source_sha256: str, payload: bytes) -> None:
    write_parsed(cache.root, kind, source_sha256, payload)


class LazyParams(Mapping[str, dict[str, Any]]):
    """name -> metadata dict, each decoded from its compact JSON line on first lookup; a
    name's display name and plain units without decoding it (see ``summary``)."""

    def __init__(self, head: _Head, tables: list[bytes], entries: Entries, where: Path) -> None:
        self._names = head.names
        self._row = dict(zip(head.names, range(len(head.names)), strict=True))
        self._head = head
        self._table_lines = tables
        self._read_range, self._remade = entries
        self._blocks: dict[int, bytes] = {}  # the entries' blocks read (and checked) so far
        self._whole: bytes | None = None  # the entries made again from the source, if they were
        self._starts: list[int] = []  # decoded with the entries (a compare reads neither)
        self._flags: dict[str, frozenset[str]] = {}
        self._decoded: dict[str, dict[str, Any]] = {}
        self._tables: dict[int, LabelTables] = {}  # by number (_Head.units)
        self._range_blocks: list[str] = []  # _Head.ranges, decoded on first use
        self._ranges: dict[int, list[Any]] = {}  # by block, decoded (and checked) when used
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
        block, first = row // ENTRIES_BLOCK, row - row % ENTRIES_BLOCK
        rows = self._ranges.get(block)
        if rows is None:
            if not self._range_blocks:
                self._range_blocks = self._range_texts()
            if block >= len(self._range_blocks):
                raise self._malformed()
            rows = self._scan(self._range_blocks[block].encode())
            size = min(ENTRIES_BLOCK, len(self._names) - first)
            if type(rows) is not list or len(rows) != size:
                raise self._malformed()
            if not all(r is None or _float_pair(r) for r in rows):
                raise self._malformed()
            self._ranges[block] = rows
        found = rows[row - first]
        return None if found is None else (found[0], found[1])

    def _range_texts(self) -> list[str]:
        line = self._head.ranges  # its JSON line, as read (see _Head.ranges)
        try:
            texts = json.loads(line) if isinstance(line, bytes) else line
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise self._malformed() from None
        if type(texts) is not list or not all(type(t) is str for t in texts):
            raise self._malformed()
        return texts

    def _decode(self, row: int) -> dict[str, Any]:
        if not self._starts:  # decoded on the first lookup
            self._starts = self._line_starts()
        block = row // ENTRIES_BLOCK
        data = self._blocks.get(block)
        if data is None:
            data = self._blocks[block] = self._block(block)
        starts, first = self._starts, block * ENTRIES_BLOCK
        start = starts[row] - starts[first]
        last = row + 1 == len(starts) or row + 1 == first + ENTRIES_BLOCK
        end = len(data) if last else starts[row + 1] - 1 - starts[first]
        if type(start) is not int or type(end) is not int or not 0 <= start <= end:
            raise self._malformed()
        raw = self._scan(data[start:end])
        if not isinstance(raw, dict):
            raise self._malformed()
        return raw

    def _block(self, block: int) -> bytes:
        """The lines of block ``block`` of the entries (ENTRIES_BLOCK names), checked against
        its digest in the head: only the blocks looked up are read and hashed (derive looks up
        3 names, and read and hashed all 1.5 MB for them: ~1.7 ms)."""
        digests = self._head.entries.split(" ")
        starts, first = self._starts, block * ENTRIES_BLOCK
        if len(digests) != -(-len(starts) // ENTRIES_BLOCK):
            raise self._malformed()
        lo, after = starts[first], first + ENTRIES_BLOCK
        hi = starts[after] - 1 if after < len(starts) else None
        if type(lo) is not int or type(hi) not in (int, type(None)):
            raise self._malformed()
        data = self._read_range(lo, hi) if self._whole is None else None
        if data is None or sha256_of(data) != digests[block]:
            if self._whole is None:  # missing or damaged: made again from the source
                self._whole = self._remade()
            data = self._whole[lo:hi]
            if sha256_of(data) != digests[block]:  # even when made again: a forged head
                raise self._malformed()
        return data

    def _line_starts(self) -> list[int]:
        line = self._head.starts  # its JSON line, as read (see _Head.starts)
        try:
            starts = json.loads(line) if isinstance(line, bytes) else line
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise self._malformed() from None
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
    # the sha256 of each block of ENTRIES_BLOCK lines of the entries' entry (ENTRIES_KIND),
    # space-separated: the two go together, and a lookup reads and checks its block only
    entries: str
    # each name's range as ParamMeta.range gives it ([low, high] or null), for what
    # Metadata.problems reads: per ENTRIES_BLOCK names, their ranges' JSON as one string
    # (the line loads in ~0.02 ms, a block decodes in ~0.01 ms; the whole list of ranges
    # took ~0.5 ms, more than validating a small file decoding its entries). Read: its line.
    ranges: list[str] | bytes


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
    blocks = (lines[i : i + ENTRIES_BLOCK] for i in range(0, len(lines), ENTRIES_BLOCK))
    digests = " ".join(sha256_of("\n".join(block).encode()) for block in blocks)
    rows = [_range_row(params[n]) for n in names]
    ranges = [
        json.dumps(rows[i : i + ENTRIES_BLOCK], separators=(",", ":"))
        for i in range(0, len(rows), ENTRIES_BLOCK)
    ]
    head = _Head(names, flags, [s[0] for s in summaries], units, starts, digests, ranges)
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
    where = parsed_path(cache, METADATA_KIND, source_sha256)
    found = read_parsed_head(cache.root, METADATA_KIND, source_sha256, HEAD_LINES)
    source = data if callable(data) else lambda: data

    def read_range(lo: int, hi: int | None) -> bytes | None:
        return read_parsed_range(cache.root, ENTRIES_KIND, source_sha256, lo, hi)

    def remade() -> bytes:  # the kept entries were missing, damaged or stale
        return _write(cache, source_sha256, parse_pdef(source(), file, firmware))

    entries = (read_range, remade)
    params = _decode_params(*found, entries, where) if found is not None else None
    if params is not None:
        return Metadata(file=file, firmware=firmware, params=params)
    meta = parse_pdef(source(), file, firmware)
    _write(cache, source_sha256, meta)
    return meta


def kept_includes(
    cache: Cache, source_sha256: str, path: str, find: Callable[[], list[str]]
) -> list[str]:
    """The repository paths the verified file ``path`` (``source_sha256``) includes, as
    ``find`` lists them, kept beside it as ``[path, [paths...]]``: a model's list parses its
    XML (~3.5 ms with the XML imports), which `derive --check` did only to check the lock's
    includes. A kept list that fails any check is a miss: found again (an error is never
    kept, so a bad file fails as before)."""

    def decode(line: bytes) -> list[str] | None:
        try:
            kept = json.loads(line, parse_constant=_no_constant)
        except (ValueError, RecursionError):
            return None
        if isinstance(kept, list) and len(kept) == 2 and kept[0] == path:
            paths = kept[1]
            if isinstance(paths, list) and all(type(p) is str for p in paths):
                return paths
        return None

    return _kept(cache, INCLUDES_KIND, source_sha256, decode, find, lambda f: [path, f])


T = TypeVar("T")


def _kept(
    cache: Cache,
    kind: str,
    source_sha256: str,
    decode: Callable[[bytes], T | None],
    make: Callable[[], T],
    row: Callable[[T], Any],
) -> T:
    """A value kept beside verified bytes as one line of JSON: ``decode``'s reading of the
    entry when it gives exactly that value (None: a miss), else ``make``'s, kept as ``row``
    of it. ``make`` raising keeps nothing, so a bad file fails as before."""
    lines = read_parsed(cache.root, kind, source_sha256)
    if lines is not None and len(lines) == 1:
        found = decode(lines[0])
        if found is not None:
            return found
    value = make()
    write_entry(cache, kind, source_sha256, json.dumps(row(value)).encode())
    return value


def _no_constant(constant: str) -> Any:
    raise ValueError(constant)  # NaN / Infinity: never a kept number


def kept_channels(
    cache: Cache, source_sha256: str, file: str, read: Callable[[], Channels]
) -> Channels:
    """A verified model's ArduPilotPlugin channels and facts as ``read`` gives them
    (parse.sdf.read_channels), kept beside it as JSON: reading them parses the XML (~3.5 ms
    with the XML imports), which `compare three-way` did only for them. A kept entry that
    fails any check is a miss: read again (an error is never kept, so a bad model fails as
    before)."""

    def row(found: Channels) -> list[Any]:
        channels, facts = found
        return [file, [list(c) for c in channels], [list(f) for f in facts]]

    return _kept(
        cache, CHANNELS_KIND, source_sha256, lambda line: _channels_of(line, file), read, row
    )


_CHANNEL_TYPES = (int, str, float, float, float, float, str, str, int, dict)
_FACT_TYPES = (str, str, str, str, int, str)


def _channels_of(line: bytes, file: str) -> Channels | None:
    """The kept channels and facts of ``file``, or None when they are not exactly what
    read_channels gives (types, finite numbers, one control per channel, min below max)."""
    from ..model.params import Fact
    from ..model.values import float32
    from ..parse.sdf import MAX_SERVO_CHANNELS, Channel

    try:
        kept_file, rows, fact_rows = json.loads(line, parse_constant=_no_constant)
        channels = [Channel(*r) for r in rows]
        facts = [Fact(*r) for r in fact_rows]
    except (ValueError, TypeError, RecursionError):
        return None
    if kept_file != file or not all(_typed(c, _CHANNEL_TYPES) for c in channels):
        return None
    numbers = [c.channel for c in channels]
    if numbers != sorted(set(numbers)) or not all(0 <= n < MAX_SERVO_CHANNELS for n in numbers):
        return None
    if not all(c.servo_min < c.servo_max and _int_lines(c.lines) for c in channels):
        return None
    if not all(math.isfinite(float32(v)) for c in channels for v in c[2:6]):  # as parse_number
        return None
    return (channels, facts) if all(_typed(f, _FACT_TYPES) for f in facts) else None


def _typed(row: tuple[Any, ...], types: tuple[type, ...]) -> bool:
    return len(row) == len(types) and all(type(v) is t for v, t in zip(row, types, strict=True))


def _int_lines(lines: dict[str, Any]) -> bool:
    return all(type(k) is str and type(v) is int for k, v in lines.items())


Geometry = tuple["ModelTree", "Pose"]


def kept_geometry(
    cache: Cache, source_sha256: str, file: str, includes: list[str], read: Callable[[], Geometry]
) -> Geometry:
    """A verified model's merged links and joints and its model -> FRD pose, as ``read`` gives
    them (parse.sdf_include.load_model, stages.geometry.to_frd_pose), kept beside it as JSON
    for ``file`` and ``includes`` (the path and sha256 of each file its includes resolve to):
    the geometry parsed the model's XML on every `check` (~7 ms a model with the XML imports).
    A kept entry that fails any check is a miss: read again (an error is never kept)."""

    def row(found: Geometry) -> list[Any]:
        tree, to_frd = found
        links = [[k.name, _pose_row(k.pose), k.file, k.line] for k in tree.links.values()]
        joints = [list(j) for j in tree.joints.values()]
        return [
            file,
            includes,
            tree.name,
            tree.file,
            tree.includes,
            links,
            joints,
            _pose_row(to_frd),
        ]

    def decode(line: bytes) -> Geometry | None:
        return _geometry_of(line, file, includes)

    return _kept(cache, GEOMETRY_KIND, source_sha256, decode, read, row)


def _pose_row(pose: Pose) -> list[Any]:
    return [list(pose.p), [list(r) for r in pose.r]]


def _geometry_of(line: bytes, file: str, includes: list[str]) -> Geometry | None:
    """The kept tree and pose of ``file`` with ``includes``, or None when they are not exactly
    what load_model gives (types, finite numbers, each name once)."""
    from ..parse.sdf_include import Joint, Link, ModelTree

    try:
        kept = json.loads(line, parse_constant=_no_constant)
        kept_file, kept_includes, name, tree_file, merged, links, joints, frd = kept
        tree = ModelTree(name, tree_file)
        tree.includes = merged
        for link_name, pose, link_file, link_line in links:
            tree.links[link_name] = Link(link_name, _pose_of(pose), link_file, link_line)
        for joint_name, parent, child, axis, joint_file, joint_line in joints:
            joint = Joint(joint_name, parent, child, _vec_of(axis), joint_file, joint_line)
            tree.joints[joint_name] = joint
        to_frd = _pose_of(frd)
    except (ValueError, TypeError, RecursionError):
        return None
    if kept_file != file or kept_includes != includes or not _lists(links, joints, merged):
        return None
    if len(tree.links) != len(links) or len(tree.joints) != len(joints):
        return None  # a name twice: the merge keeps one
    if not _strings(name, tree_file, *merged):
        return None
    if not all(_strings(k.name, k.file) and type(k.line) is int for k in tree.links.values()):
        return None
    joint_rows = tree.joints.values()
    if not all(_strings(*j[:3], j.file) and type(j.line) is int for j in joint_rows):
        return None
    return tree, to_frd


def _lists(*values: Any) -> bool:
    return all(type(v) is list for v in values)


def _strings(*values: Any) -> bool:
    return all(type(v) is str for v in values)


def _vec_of(row: Any) -> tuple[float, float, float]:
    if type(row) is not list or len(row) != 3:
        raise TypeError
    if not all(type(v) is float and math.isfinite(v) for v in row):
        raise ValueError
    return (row[0], row[1], row[2])


def _pose_of(row: Any) -> Pose:
    from ..parse.sdf_include import Pose

    p, r = row
    if type(r) is not list or len(r) != 3:
        raise TypeError
    return Pose(_vec_of(p), (_vec_of(r[0]), _vec_of(r[1]), _vec_of(r[2])))


# How LazyParams reads its entries: bytes [lo, hi) of the kept payload (hi None: to its end;
# None when the entry is not there), and the whole payload made again from the source.
Entries = tuple[Callable[[int, int | None], bytes | None], Callable[[], bytes]]


def _write(cache: Cache, source_sha256: str, meta: Metadata) -> bytes:
    head, entries = _encode_params(meta.params)
    write_entry(cache, ENTRIES_KIND, source_sha256, entries)
    write_entry(cache, METADATA_KIND, source_sha256, head)
    return entries
