"""A verification record: what a running SITL was seen to hold, per parameter of the derived
file (`verify --record`, kept as ``verified/<profile>-<pin>.json`` beside the derived file).

Every claim paramdiff makes about a simulated vehicle is computed offline; a record is the
one made by reading the values back from a running SITL. It names the derived file's sha256
(a record of another file is stale), the lock, the launch, and the firmware as the vehicle
reports it: version and git hash from AUTOPILOT_VERSION (GCS_Common.cpp
send_autopilot_version packs ``flight_sw_version`` as major.minor.patch.type and copies the
8-character ``fw_hash_str`` into ``flight_custom_version``), its type from HEARTBEAT
(GCS_Rover::frame_type: MAV_TYPE_SURFACE_BOAT when FRAME_CLASS is 2, else GROUND_ROVER).

The file is JSON in a fixed layout (keys in a fixed order, one line per parameter) so a
record's diff in a pull request reads row by row; its reader gives every refusal the line
it is on. A record is untrusted input (a pull request can change it; its text came off a
socket): the reader refuses a key given twice (JSON keeps the last, a reviewer reads the
first), characters that are not printable in its text (the report and check print it: ESC
drives a terminal, a line feed there would start a line of its own, a markdown heading or a
GitHub workflow command), nesting deeper than its layout and numbers no float32 holds. What
the writer puts in a record its reader takes back: text is written with those characters
escaped (``shown``), the vehicle's bytes already are (vehicle/mavlink_pull.py).
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from paramdiff.errors import InputError, quote
from paramdiff.files import TEXT_LIMIT, describe_kind, project_path, read_regular, write_atomic
from paramdiff.model.values import check_name, float32, format_value, same_value

RECORD_FORMAT = "paramdiff-verified 1"
RECORD_DIR = "verified"

CONFIRMED, DIFFERS, NOT_SEEN = "confirmed", "differs", "not seen"

# HEARTBEAT's type -> the ArduPilot firmware that sends it (each vehicle's frame_type())
_FIRMWARE_BY_TYPE = {
    10: "ArduRover",  # MAV_TYPE_GROUND_ROVER
    11: "ArduRover",  # MAV_TYPE_SURFACE_BOAT
    12: "ArduSub",  # MAV_TYPE_SUBMARINE
    1: "ArduPlane",  # MAV_TYPE_FIXED_WING (a QuadPlane reports its VTOL type)
    **dict.fromkeys((2, 3, 4, 13, 14, 15, 29, 35), "ArduCopter"),  # quad..dodeca, coax, heli
    **dict.fromkeys((19, 20, 21, 22, 23, 24, 25), "ArduPlane"),  # MAV_TYPE_VTOL_*
    5: "AntennaTracker",
    7: "Blimp",  # MAV_TYPE_AIRSHIP
}
MAV_AUTOPILOT_ARDUPILOTMEGA = 3


def record_path(profile: str, pin: str) -> str:
    """Where a pin's record is kept, relative to the project root."""
    return f"{RECORD_DIR}/{profile}-{pin}.json"


def firmware_name(mav_type: int, autopilot: int) -> str | None:
    """The ArduPilot firmware ("ArduRover", "ArduSub", …) a HEARTBEAT comes from; None for
    another autopilot's."""
    if autopilot != MAV_AUTOPILOT_ARDUPILOTMEGA:
        return None
    return _FIRMWARE_BY_TYPE.get(mav_type)


@dataclass(frozen=True)
class Firmware:
    """What the vehicle said it runs."""

    name: str | None  # "ArduRover", from HEARTBEAT's type and autopilot
    frame: str  # HEARTBEAT's type by name: "MAV_TYPE_SURFACE_BOAT"
    version: str | None  # "4.7.0-beta", from AUTOPILOT_VERSION (None: not answered)
    git_hash: str | None  # its flight_custom_version: "1a2b3c4d"

    @property
    def label(self) -> str:
        """The firmware as ArduPilot's own banner spells it: ArduRover V4.7.0-beta (1a2b3c4d)."""
        name = self.name or self.frame
        if self.version is None:
            return f"{name} (firmware version not reported)"
        git = f" ({self.git_hash})" if self.git_hash else ""
        return f"{name} V{self.version}{git}"


@dataclass(frozen=True)
class ReadBack:
    """One parameter of the derived file and what the vehicle held."""

    name: str
    expected: float  # the derived file's value
    read: float | None  # as read back (float32); None: the vehicle has no such parameter

    @property
    def matched(self) -> bool:
        return self.read is not None and same_value(self.read, self.expected)


@dataclass(frozen=True)
class Record:
    """One live read-back of a pin's derived file."""

    profile: str
    pin: str
    derived_file: str
    derived_sha256: str  # of the derived file SITL loaded
    lock_sha256: str | None  # of sources.lock when it was verified (None: no lock)
    launch: str | None  # the launch command line (None: the profile's frame defaults)
    layers: tuple[str, ...]  # the files that launch loads, in order
    connection: str
    time: str  # UTC, ISO 8601
    firmware: Firmware
    params: dict[str, ReadBack] = field(default_factory=dict)
    file: str = ""  # where it was read from
    lines: dict[str, int] = field(default_factory=dict, compare=False)  # each key's line

    def line(self, key: str) -> int:
        """The line of a key (a parameter's row) in the record's file; 1 when not known."""
        return self.lines.get(key, 1)

    @property
    def date(self) -> str:
        return self.time[:10]

    def stale(self, derived_sha256: str | None) -> bool:
        """Whether the record is of an earlier derived file than the one of ``derived_sha256``
        (None or empty: not known, taken as current)."""
        return bool(derived_sha256) and derived_sha256 != self.derived_sha256

    def changed_since(self, name: str, value: float, derived_sha256: str | None) -> bool:
        """Whether the derived row ``name`` = ``value`` is not the value the record read back
        against: the record is stale and its ``expected`` is another value (or it has no row)."""
        if not self.stale(derived_sha256):
            return False
        seen = self.params.get(name)
        return seen is None or not same_value(seen.expected, value)

    def mark(
        self, name: str, value: float, derived_sha256: str | None = None
    ) -> tuple[str, float | None]:
        """(confirmed | differs | not seen, the live value) for a derived row ``name`` of
        ``value``: confirmed when the vehicle was seen holding that very value (float32).
        A row whose value changed since a stale record was made (``derived_sha256``: the
        current derived file's) is not seen: no run read the new value."""
        seen = self.params.get(name)
        if seen is None or seen.read is None or self.changed_since(name, value, derived_sha256):
            return NOT_SEEN, None
        return (CONFIRMED if same_value(seen.read, value) else DIFFERS), seen.read

    def counts(self) -> dict[str, int]:
        """The record's own rows by outcome, as its "summary" holds them."""
        counts = {"confirmed": 0, "differs": 0, "not_seen": 0}
        for p in self.params.values():
            counts[
                "confirmed" if p.matched else "differs" if p.read is not None else "not_seen"
            ] += 1
        return counts

    def marks(
        self, derived: Mapping[str, float], derived_sha256: str | None = None
    ) -> dict[str, tuple[str, float | None]]:
        return {name: self.mark(name, value, derived_sha256) for name, value in derived.items()}

    def summary(self, derived: Mapping[str, float], derived_sha256: str | None = None) -> str:
        """The report's line: N of M values confirmed in SITL on ArduRover V4.7.0 (1a2b3c4d),
        2026-12-02; for a stale record (``derived_sha256``: the current derived file's) it
        says so, and how many values changed since."""
        marks = self.marks(derived, derived_sha256)
        confirmed = sum(1 for s, _ in marks.values() if s == CONFIRMED)
        line = (
            f"{confirmed} of {len(derived)} values confirmed in SITL on {self.firmware.label}, "
            f"{self.date}"
        )
        if self.stale(derived_sha256):
            changed = sum(1 for n, v in derived.items() if self.changed_since(n, v, derived_sha256))
            line += (
                f" (a record of an earlier derived file: {changed} value"
                f"{'' if changed == 1 else 's'} changed since)"
            )
        return line


def make_record(
    *,
    profile: str,
    pin: str,
    derived_file: str,
    derived_sha256: str,
    derived: Mapping[str, float],
    lock_sha256: str | None,
    launch: str | None,
    layers: Iterable[str],
    connection: str,
    time: str,
    firmware: Firmware,
    running: Mapping[str, float],
) -> Record:
    """The record of ``running`` (name -> value as pulled) against every row of the derived
    file (``derived``: name -> value, in the file's order). Its text is kept as ``shown``
    spells it, so the record reads back (parse_record refuses control characters)."""
    params = {name: ReadBack(name, value, running.get(name)) for name, value in derived.items()}
    fw = Firmware(
        _shown_or_none(firmware.name),
        shown(firmware.frame),
        _shown_or_none(firmware.version),
        _shown_or_none(firmware.git_hash),
    )
    return Record(
        profile,
        pin,
        shown(derived_file),
        derived_sha256,
        lock_sha256,
        _shown_or_none(launch),
        tuple(shown(layer) for layer in layers),
        shown(connection),
        time,
        fw,
        params,
    )


def shown(text: str) -> str:
    """``text`` as a record keeps it: every character that is not printable (controls, line
    and tab included, invisible format characters, lone surrogates) written as its Python
    escape (``\\x1b``, ``\\n``, ``\\u202e``: errors.quote, as error lines show input), so it
    shows, does nothing and stays on its line in the record, the report and check's output."""
    return quote(text, len(text))


def _shown_or_none(text: str | None) -> str | None:
    return None if text is None else shown(text)


# --------------------------------------------------------------------------- the file


def _number(x: float) -> str:
    """The value as a JSON number: the shortest decimal that reads back as the same float32."""
    return format_value(x)


def record_text(record: Record) -> str:
    """The record as its file holds it: fixed key order, one parameter a line."""
    fw = record.firmware
    head = {
        "format": RECORD_FORMAT,
        "profile": record.profile,
        "pin": record.pin,
        "derived": {"file": record.derived_file, "sha256": record.derived_sha256},
        "lock_sha256": record.lock_sha256,
        "launch": record.launch,
        "layers": list(record.layers),
        "connection": record.connection,
        "time": record.time,
        "vehicle": {
            "firmware": fw.name,
            "frame": fw.frame,
            "version": fw.version,
            "git_hash": fw.git_hash,
        },
    }
    counts = record.counts()
    lines = ["{"]
    for key, value in head.items():
        lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=True)},")
    lines.append(
        f'  "summary": {{"confirmed": {counts["confirmed"]}, "differs": {counts["differs"]}, '
        f'"not_seen": {counts["not_seen"]}}},'
    )
    lines.append('  "params": {')
    rows = []
    for p in record.params.values():
        read = "null" if p.read is None else _number(p.read)
        rows.append(
            f'    "{p.name}": {{"expected": {_number(p.expected)}, "read": {read}, '
            f'"matched": {"true" if p.matched else "false"}}}'
        )
    lines.append(",\n".join(rows))
    lines.append("  }")
    lines.append("}")
    return "\n".join(ln for ln in lines if ln) + "\n"


_KEY_LINE = re.compile(r'\s*"([^"\\]*)"\s*:')


def _line_of(text: str) -> dict[str, int]:
    """Each key's first line (top-level fields and parameter names alike)."""
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        m = _KEY_LINE.match(line)
        if m:
            lines.setdefault(m.group(1), number)
    return lines


class _Duplicate(ValueError):
    """A key an object of the record gives twice."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """json's object_pairs_hook: an object, refused when it names a key twice."""
    doc: dict[str, object] = {}
    for key, value in pairs:
        if key in doc:
            raise _Duplicate(key)
        doc[key] = value
    return doc


class _Digits(float):
    """A JSON integer longer than any float32 (parse_int): infinite, so it is refused on its
    key's line, with its length for the error."""

    digits: int


def _integer(digits: str) -> int | float:
    """json's parse_int: an integer; past 64 digits (a float32 tops out at 39) a _Digits,
    never Python's own digit-limit error, nor thousands of digits converted."""
    if len(digits) <= 64:
        return int(digits)
    number = _Digits(math.inf)
    number.digits = len(digits.lstrip("-"))
    return number


def _second_line(text: str, key: str) -> int:
    """The line of ``key``'s second occurrence: the first line holding it twice, else the
    second line holding it (the record's layout puts each key on a line of its own)."""
    pattern = re.compile(rf'"{re.escape(key)}"\s*:')
    holding = []
    for number, line in enumerate(text.splitlines(), 1):
        found = len(pattern.findall(line))
        if found > 1:
            return number
        if found:
            holding.append(number)
    return holding[1] if len(holding) > 1 else 1


def _document(data: bytes, file: str, fix: str) -> tuple[str, object]:
    """The record's text and its JSON, or the InputError (on its line) of why not."""
    try:
        text = data.decode("utf-8")
        return text, json.loads(text, object_pairs_hook=_unique, parse_int=_integer)
    except UnicodeDecodeError as exc:
        raise InputError(f"is not UTF-8 ({exc.reason})", fix, file=file, line=1) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"is not JSON: {exc.msg}", fix, file=file, line=exc.lineno) from None
    except _Duplicate as exc:
        raise InputError(
            f"names {exc.key!r} twice (JSON would keep the last, a reader sees the first)",
            fix,
            file=file,
            line=_second_line(text, exc.key),
        ) from None
    except RecursionError:
        raise InputError(
            "is nested deeper than any verification record (objects in objects, thousands deep)",
            fix,
            file=file,
            line=1,
        ) from None


def parse_record(data: bytes, file: str, profile: str, pin: str) -> Record:
    """A record's bytes, checked: JSON of this format, naming ``profile`` and ``pin``, every
    parameter a name and numbers. InputError (with the line) for anything else."""
    fix = (
        f"record it again: paramdiff verify CONNECTION --profile {profile} --pin {pin} --record "
        f"(or delete {file})"
    )
    text, doc = _document(data, file, fix)
    lines = _line_of(text)

    def fail(what: str, key: str) -> InputError:
        return InputError(what, fix, file=file, line=lines.get(key, 1))

    if not isinstance(doc, dict) or doc.get("format") != RECORD_FORMAT:
        raise fail(f"is not a paramdiff verification record ({RECORD_FORMAT!r})", "format")
    if doc.get("profile") != profile:
        raise fail(
            f"is a record of profile {repr(doc.get('profile'))[:80]}, not {profile!r} (its file "
            "name)",
            "profile",
        )
    if doc.get("pin") != pin:
        raise fail(
            f"is a record of pin {repr(doc.get('pin'))[:80]}, not {pin!r} (its file name)", "pin"
        )
    derived = doc.get("derived")
    if not isinstance(derived, dict):
        raise fail("'derived' must be an object with file and sha256", "derived")
    time = _text(doc.get("time"), fail, "time")
    if not _TIME.match(time):
        raise fail(f"'time' is {time[:40]!r}, not UTC ISO 8601 (2026-12-02T07:25:36Z)", "time")
    lock = doc.get("lock_sha256")
    record = Record(
        profile,
        pin,
        _text(derived.get("file"), fail, "derived"),
        _hex(derived.get("sha256"), fail, "derived"),
        None if lock is None else _hex(lock, fail, "lock_sha256"),
        _optional(doc.get("launch"), fail, "launch"),
        tuple(_texts(doc.get("layers"), fail, "layers")),
        _text(doc.get("connection"), fail, "connection"),
        time,
        _firmware(doc.get("vehicle"), fail),
        dict(_params(doc.get("params"), fail)),
        file=file,
        lines=lines,
    )
    if doc.get("summary") != record.counts():
        raise fail(
            f"'summary' says {_quoted(doc.get('summary'))}, its rows {record.counts()}",
            "summary",
        )
    return record


def _quoted(value: object) -> str:
    """A value of the record, as JSON with its escapes, cut short, for an error line."""
    return json.dumps(value)[:80]


Fail = Callable[[str, str], InputError]  # (what, key): the refusal, on the key's line
_HEX64 = re.compile(r"[0-9a-f]{64}\Z")
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\Z", re.ASCII)


def _text(value: object, fail: Fail, key: str) -> str:
    if not isinstance(value, str) or len(value) > 4096:
        raise fail(f"{key!r} must be a string (at most 4096 characters)", key)
    if not value.isprintable():
        raise fail(
            f"{key!r} holds a character that is not printable ({quote(value, 60)}): paramdiff "
            "writes those as escapes (\\x1b, \\n), so a record holding one was edited to put "
            "it in the report or a terminal",
            key,
        )
    return value


def _optional(value: object, fail: Fail, key: str) -> str | None:
    return None if value is None else _text(value, fail, key)


def _texts(value: object, fail: Fail, key: str) -> list[str]:
    if not isinstance(value, list):
        raise fail(f"{key!r} must be a list of strings", key)
    return [_text(v, fail, key) for v in value]


def _hex(value: object, fail: Fail, key: str) -> str:
    if not isinstance(value, str) or not _HEX64.match(value):
        raise fail(f"{key!r} must hold a sha256 (64 lower-case hex digits)", key)
    return value


def _firmware(value: object, fail: Fail) -> Firmware:
    if not isinstance(value, dict):
        raise fail("'vehicle' must be an object", "vehicle")
    fields = {key: _optional(value.get(key), fail, "vehicle") for key in _VEHICLE}
    for key, (pattern, spelled) in _VEHICLE.items():
        text = fields[key]
        if (text is not None or key == "frame") and not pattern.match(text or ""):
            raise fail(
                f"'vehicle' {key!r} is {quote(repr(text), 60)}, not as the vehicle reports it "
                f"({spelled})",
                "vehicle",
            )
    return Firmware(
        fields["firmware"], fields["frame"] or "", fields["version"], fields["git_hash"]
    )


# What the vehicle's fields are as a pull makes them (vehicle/mavlink_pull.py: HEARTBEAT's type by
# its MAVLink name, AUTOPILOT_VERSION's version and 8 bytes, each byte but printable ASCII
# and backslash escaped): nothing else, so a record cannot put markup (``<img src=…>``) or a
# fake banner in the report's summary line.
_VEHICLE = {
    "firmware": (
        re.compile(f"({'|'.join(sorted(set(_FIRMWARE_BY_TYPE.values())))})\\Z"),
        "ArduRover, ArduSub, … from HEARTBEAT",
    ),
    "frame": (re.compile(r"(MAV_TYPE_[A-Z0-9_]{1,40}|MAV_TYPE \d{1,3})\Z"), "MAV_TYPE_…"),
    "version": (
        re.compile(r"\d{1,3}\.\d{1,3}\.\d{1,3}(-(dev|alpha|beta|rc))?\Z", re.ASCII),
        "4.7.0-beta",
    ),
    "git_hash": (re.compile(r"([ -\[\]-~]|\\x[0-9a-f]{2}){1,8}\Z"), "8 characters: 1a2b3c4d"),
}


def _params(value: object, fail: Fail) -> Iterator[tuple[str, ReadBack]]:
    if not isinstance(value, dict):
        raise fail("'params' must be an object of parameter names", "params")
    for name, entry in value.items():
        problem = check_name(name)
        if problem:
            raise fail(problem[0], name)
        if not isinstance(entry, dict):
            raise fail(f"{name} must be {{expected, read, matched}}", name)
        expected, read = entry.get("expected"), entry.get("read")
        if not isinstance(expected, int | float) or _held(expected) is None:
            raise fail(f"{name}: 'expected' {_not_held(expected)}", name)
        if read is not None and _held(read) is None:
            raise fail(f"{name}: 'read' {_not_held(read)}, or null (not on the vehicle)", name)
        back = ReadBack(name, float(expected), _held(read))
        if entry.get("matched") is not back.matched:
            raise fail(
                f"{name}: 'matched' is {json.dumps(entry.get('matched'))}, but read "
                f"{json.dumps(read)} against expected {json.dumps(expected)} is "
                f"{json.dumps(back.matched)} (float32)",
                name,
            )
        yield name, back


def _held(x: object) -> float | None:
    """``x`` as a vehicle holds it (float32), or None: not a number, or none a float32 holds
    (NaN, infinite, past 3.4e38, an integer of a thousand digits)."""
    if isinstance(x, bool) or not isinstance(x, int | float):
        return None
    try:
        value = float32(float(x))
    except OverflowError:  # an int past a double's range
        return None
    return value if math.isfinite(value) else None


def _not_held(x: object) -> str:
    if isinstance(x, _Digits):
        return f"is an integer of {x.digits} digits, past what a float32 parameter holds (3.4e38)"
    if isinstance(x, float) and not math.isfinite(x):  # NaN, Infinity (json reads them)
        return f"is {json.dumps(x)}, and {json.dumps(x)} is not a number a vehicle holds"
    if isinstance(x, int | float) and not isinstance(x, bool):
        return f"is {_quoted(x)[:24]}, past what a float32 parameter holds (3.4e38)"
    return f"must be a number (not {_quoted(x)[:24]})"


def check_expected(record: Record, derived: Mapping[str, float]) -> None:
    """InputError on the row's line when a record naming the current derived file (its
    sha256 matches) holds an ``expected`` that is not that file's value, or a row the file
    does not have, or lacks one it has: verify writes every row of the file it names, so
    such a record was edited by hand."""
    fix = (
        f"record it again: paramdiff verify CONNECTION --profile {record.profile} --pin "
        f"{record.pin} --record (or delete {record.file})"
    )
    for name, seen in record.params.items():
        if name not in derived:
            raise InputError(
                f"{name} is a row of the record, but {record.derived_file} (whose sha256 the "
                "record names) has no such parameter: the record is not what verify wrote",
                fix,
                file=record.file,
                line=record.line(name),
            )
        if not same_value(seen.expected, derived[name]):
            raise InputError(
                f"{name}: 'expected' is {format_value(seen.expected)}, but "
                f"{record.derived_file} (whose sha256 the record names) holds "
                f"{format_value(derived[name])}: the record is not what verify wrote",
                fix,
                file=record.file,
                line=record.line(name),
            )
    missing = [name for name in derived if name not in record.params]
    if missing:
        raise InputError(
            f"has no row for {', '.join(missing[:5])}{' …' if len(missing) > 5 else ''} of "
            f"{record.derived_file} (whose sha256 it names): the record is not what verify wrote",
            fix,
            file=record.file,
            line=record.line("params"),
        )


def orphan_records(root: Path, pins: Mapping[str, Iterable[str]]) -> list[str]:
    """The files of verified/ that are no pin's record (``pins``: profile -> its pins), e.g.
    verified/blueboat-9.9.json for a pin the profile no longer has: nothing reads them."""
    folder = root / RECORD_DIR
    if not folder.is_dir() or folder.is_symlink():
        return []
    known = {record_path(profile, pin) for profile, names in pins.items() for pin in names}
    return sorted(
        f"{RECORD_DIR}/{path.name}"
        for path in folder.iterdir()
        if path.name.endswith(".json") and f"{RECORD_DIR}/{path.name}" not in known
    )


def record_file(root: Path, profile: str, pin: str) -> Path:
    """Where ``verify --record`` writes the pin's record, checked before the vehicle is read:
    inside the project (project_path: no link out of it, nor as the record), ``verified`` a
    folder of its own (not a file, a pipe or a link) and the record, if one is there, a
    regular file (a FIFO would block the write, a folder refuse it, after the whole pull)."""
    rel = record_path(profile, pin)
    path = project_path(root, rel, generated=True)
    _refuse_kind(path.parent, RECORD_DIR, stat.S_ISDIR, "a folder")
    _refuse_kind(path, rel, stat.S_ISREG, "a regular file")
    path.parent.mkdir(exist_ok=True)
    return path


def _refuse_kind(path: Path, rel: str, right: Callable[[int], bool], kind: str) -> None:
    """InputError unless ``path`` is missing or (not through a link) ``kind``."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not right(mode):
        what = "a symlink" if stat.S_ISLNK(mode) else describe_kind(mode)
        what = "a regular file" if stat.S_ISREG(mode) else what
        raise InputError(
            f"is {what}, not {kind}: verify --record keeps records as files in the folder "
            f"{RECORD_DIR}/",
            "move it away (or delete it), then verify --record again",
            file=rel,
        )


def write_record(path: Path, record: Record) -> None:
    """The record written atomically at ``path`` (from record_file), its kind checked again:
    a pull takes seconds, and the record is written only after it."""
    rel = record_path(record.profile, record.pin)
    _refuse_kind(path.parent, RECORD_DIR, stat.S_ISDIR, "a folder")
    _refuse_kind(path, rel, stat.S_ISREG, "a regular file")
    write_atomic(path, record_text(record).encode())


def load_record(root: Path, profile: str, pin: str) -> Record | None:
    """The pin's record in the project (None: there is none), read as a project file (no
    symlink out of the project, bounded) and checked (parse_record)."""
    rel = record_path(profile, pin)
    path = project_path(root, rel)
    try:
        data = read_regular(path, limit=TEXT_LIMIT, label=rel)
    except FileNotFoundError:
        return None
    return parse_record(data, rel, profile, pin)
