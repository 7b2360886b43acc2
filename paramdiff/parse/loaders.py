"""What the real programs load from a ``NAME VALUE`` parameter file, re-implemented from
their source, so ``check`` can prove every committed file means the same to all of them.

One function per loader; each takes the file's bytes and returns a :class:`Loaded`: the
name → value map the program ends up with (in order of first appearance; where a name
is set twice, the value that wins in that program), the line every value came from, the
lines it skipped and, when the program gives up on the whole file, where and why.

Each rule below names the file and function it comes from. Where a program's behaviour
depends on the vehicle (unknown names, integer rounding of AP_Int* values), the loader
keeps every value and leaves that to the caller; values are compared as float32, the
way ArduPilot stores them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from paramdiff.model.values import NAME_MAX, NAME_RE, float32


class LoadedValue(NamedTuple):
    """One value a program loaded (a tuple: made once per line per loader, a frozen
    dataclass cost 3x as much; ``check`` makes ~3,400 of them)."""

    name: str
    value: float
    line: int  # 1-based physical line of the file
    byte: int = 1  # 1-based byte in that line where the program's "line" began
    comment: str = ""  # ArduPilot Methodic Configurator keeps a trailing # comment
    read_only: bool = False  # ArduPilot: a third token that is exactly @READONLY


@dataclass(slots=True)
class Loaded:
    """What one loader made of a file."""

    loader: str
    values: dict[str, LoadedValue] = field(default_factory=dict)
    skipped: list[tuple[int, str]] = field(default_factory=list)
    refused: tuple[int, str] | None = None  # the program rejects the whole file
    conflicts: list[tuple[int, str]] = field(default_factory=list)  # value depends on timing

    def set(self, value: LoadedValue) -> None:
        self.values[value.name] = value  # a later line wins; first position is kept


class _Refused(Exception):
    def __init__(self, line: int, why: str) -> None:
        super().__init__(why)
        self.line = line
        self.why = why


# --------------------------------------------------------------------------- number parsers

# C strtof(): the longest prefix that is a number (after leading white space), 0 when none.
# The three number grammars below are compiled on first use, by re's own cache: a derived
# file's values are all plain numbers (_PLAIN), so they are never needed (~0.3 ms an import).
_STRTOF = (
    rb"[ \t\n\v\f\r]*([+-]?)(?:"
    rb"0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?)"
    rb"|((?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
    rb"|([iI][nN][fF](?:[iI][nN][iI][tT][yY])?)"
    rb"|([nN][aA][nN](?:\([0-9A-Za-z_]*\))?))"
)


_PLAIN = re.compile(rb"[+-]?[0-9]+(?:\.[0-9]*)?")
_PLAIN_TEXT = re.compile(r"[+-]?[0-9]+(?:\.[0-9]*)?")


def strtof(token: bytes) -> float:
    """C ``strtof(token, NULL)`` rounded to float32 (what ArduPilot's defaults reader gets)."""
    if _PLAIN.fullmatch(token):  # the common case, e.g. 1500 or -0.25
        return float32(float(token))
    m = re.match(_STRTOF, token)
    if m is None:
        return 0.0
    sign, hexa, dec, inf, _nan = m.groups()
    if hexa is not None:
        body = hexa.decode()
        value = float.fromhex("0x" + body + ("" if "p" in body.lower() else "p0"))
    elif dec is not None:
        value = float(dec)
    elif inf is not None:
        value = math.inf
    else:
        value = math.nan
    return float32(-value if sign == b"-" else value)


# .NET double.Parse(s, CultureInfo.InvariantCulture): NumberStyles.Float | AllowThousands
# (white space around, sign, digits with "," groups, point, exponent) or the invariant
# culture's symbols, matched without regard to case since .NET Core 3.0.
_DOTNET_DOUBLE = (
    r"(?i)[\t\n\v\f\r ]*(?:[+-]?(?:[0-9][0-9,]*\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
    r"|[+-]?infinity|nan)[\t\n\v\f\r ]*"
)
# QString::toDouble(): C locale, white space around, an optional exponent; inf/nan.
_QT_DOUBLE = r"(?i)\s*[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|nan)\s*"


def _regex_double(pattern: str, text: str) -> float | None:
    if _PLAIN_TEXT.fullmatch(text):  # e.g. 1500 or -0.25: both patterns accept it as is
        return float(text)
    if not re.fullmatch(pattern, text):
        return None
    word = text.strip().replace(",", "").lower().lstrip("+")
    if word.lstrip("-") in ("infinity", "inf"):
        return -math.inf if word.startswith("-") else math.inf
    return float(word)


# --------------------------------------------------------------------------- line readers


_UNIVERSAL = re.compile(r"\r\n|\r|\n")  # Python's universal newlines, .NET ReadLine
_QT_BREAKS = re.compile(r"\r?\n")  # QTextStream::readLine


def _text_lines(data: bytes, breaks: re.Pattern[str], *, strict: bool) -> Iterator[tuple[int, str]]:
    """(line number, text) the way a text-mode reader splits the file.

    ``breaks``: a regex of the line terminators the program's reader honours.
    ``strict``: undecodable UTF-8 raises (Python) instead of becoming U+FFFD (.NET, Qt).
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # .NET StreamReader and Qt detect the BOM; Python keeps it as U+FEFF
    text = data.decode("utf-8", "strict" if strict else "replace")
    # Both readers' terminators are \n alone in a file with no \r (every derived file):
    # str.split there is the same list, at a third of the regex's cost.
    parts = breaks.split(text) if "\r" in text else text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()  # a final terminator does not start another line
    yield from enumerate(parts, 1)


def _python_lines(data: bytes) -> Iterator[tuple[int, str]]:
    """``for line in open(path)`` (universal newlines: \\n, \\r\\n, \\r), UTF-8."""
    try:
        yield from _text_lines(data, _UNIVERSAL, strict=True)
    except UnicodeDecodeError as exc:
        raise _Refused(data[: exc.start].count(b"\n") + 1, f"not UTF-8: {exc.reason}") from None


_EOL = re.compile(rb"[\r\n]")


def ap_fgets(data: bytes, size: int = 98, drop: int = 0) -> Iterator[tuple[int, int, bytes]]:
    """(line, byte, chunk): what ArduPilot's ``AP_Filesystem::fgets`` hands back, call by call.

    ardupilot libraries/AP_Filesystem/AP_Filesystem.cpp, ``AP_Filesystem::fgets(buf, buflen,
    fd)``, called by ``AP_Param::read_param_defaults_file`` with ``char line[100]`` and
    ``buflen = sizeof(line)-1``: it reads ``buflen-1`` = 98 bytes, cuts at the first \\r or
    \\n and seeks back to just after it; with no terminator in those 98 bytes it returns all
    98 and the next call starts at byte 99 of the same line. ``drop=1, size=99`` is the older
    body (read ``buflen`` bytes, always seek one past): byte 100 of a long line is lost.
    """
    if b"\r" not in data:
        lines = data.split(b"\n")
        if lines[-1] == b"":
            lines.pop()  # a final newline does not start another line
        if max(map(len, lines), default=0) < size:
            # Every line fits one call: each call returns exactly one line (3x faster).
            for n, text in enumerate(lines, 1):
                yield n, 1, text
            return
    pos, line, line_start = 0, 1, 0
    while pos < len(data):
        end = min(pos + size, len(data))
        eol = _EOL.search(data, pos, end)
        if eol is not None:
            cut = eol.start()
            yield line, pos - line_start + 1, data[pos:cut]
            pos = cut + 1
            if data[cut : cut + 1] == b"\n" or data[pos : pos + 1] != b"\n":
                line, line_start = line + 1, pos
            continue
        yield line, pos - line_start + 1, data[pos:end]
        dropped = data[end : end + drop]
        pos = end + len(dropped)
        if b"\n" in dropped or b"\r" in dropped:
            line, line_start = line + 1, pos


# --------------------------------------------------------------------------- the loaders

AP_DELIMITER_BYTES = b", =\t\r\n"
AP_DELIMITERS = re.compile(rb"[, =\t\r\n]+")


def ardupilot_defaults(data: bytes, *, size: int = 98, drop: int = 0) -> Loaded:
    """ArduPilot's defaults reader: ``sim_vehicle.py --add-param-file=F`` → ``--defaults``.

    ardupilot Tools/autotest/sim_vehicle.py ``start_vehicle`` appends each
    ``--add-param-file`` to the comma-joined ``--defaults`` list; libraries/AP_Param/
    AP_Param.cpp ``AP_Param::load_defaults_file`` → ``read_param_defaults_file`` reads each
    file with ``AP::FS().fgets`` (see :func:`ap_fgets`: at most 98 bytes per "line") and
    ``AP_Param::parse_param_line``: a "line" whose first byte is ``#`` is skipped; tokens are
    split on ``", =\t\r\n"`` (strtok_r); a name over AP_MAX_NAME_SIZE (16) is skipped,
    so is FORMAT_VERSION under SITL; the value is ``strtof`` of the second token (0 when it
    is not a number); a third token only matters when it is exactly ``@READONLY`` (strcmp:
    the value is then loaded read-only; any other third token, and a fourth, are ignored).
    ``AP_Param::find`` compares a group's prefix (``SERVO`` of SERVO1_FUNCTION) with
    ``strncmp`` and a Vector3f's ``_X``/``_Y``/``_Z`` exactly, so a name that is not
    upper-case is skipped here (only a top-level scalar, compared with ``strcasecmp``, would
    match; paramdiff refuses every such name, so none reaches a file it writes); unknown
    names are skipped silently;
    ``set_float`` ignores NaN and infinity. Every line calls ``set_float``: the last wins —
    but each line also becomes a ``param_overrides`` entry and ``get_default_value`` returns
    the *first* one, which is what ``AP_Param::load`` and ``setup_object_defaults`` use for
    objects set up later; so a name set twice with different values is a conflict.
    """
    out = Loaded("ArduPilot defaults reader (sim_vehicle.py --add-param-file)")
    numbers: dict[bytes, float] = {}  # strtof of each distinct value token, once
    for line, byte, chunk in ap_fgets(data, size, drop):
        if chunk.startswith(b"#"):  # (so does the part before a NUL)
            continue
        if b"\0" in chunk:
            chunk = chunk.split(b"\0", 1)[0]  # a C string ends at the first NUL
        chunk = chunk.strip(AP_DELIMITER_BYTES)  # strtok_r skips delimiters at either end
        tokens = AP_DELIMITERS.split(chunk) if chunk else []
        if len(tokens) < 2:
            if tokens:
                out.skipped.append((line, f"no value after {tokens[0]!r}"))
            continue
        name = tokens[0].decode("latin-1")
        if len(tokens[0]) > NAME_MAX or not NAME_RE.match(name) or name == "FORMAT_VERSION":
            out.skipped.append((line, f"no parameter is called {tokens[0]!r}"))
            continue
        value = numbers.get(tokens[1])
        if value is None:
            value = numbers[tokens[1]] = strtof(tokens[1])
        if not math.isfinite(value):
            out.skipped.append((line, f"{name}: set_float ignores {tokens[1]!r}"))
            continue
        earlier = out.values.get(name)
        if earlier is not None and float32(earlier.value) != value:
            out.conflicts.append(
                (
                    line,
                    f"{name} is set again ({earlier.value:g} at line {earlier.line}, "
                    f"{value:g} here); ArduPilot uses the last or the first depending on when "
                    "the parameter's object is set up",
                )
            )
        read_only = len(tokens) > 2 and tokens[2] == b"@READONLY"
        out.set(LoadedValue(name, value, line, byte, read_only=read_only))
    return out


MAVPARM_EXCLUDE = frozenset(
    {"ARSPD_OFFSET", "CMD_INDEX", "CMD_TOTAL", "FENCE_TOTAL", "FORMAT_VERSION", "GND_ABS_PRESS"}
    | {"GND_TEMP", "LOG_LASTFILE", "MIS_TOTAL", "SYSID_SW_MREV", "SYS_NUM_RESETS"}
)


def mavproxy_param_load(data: bytes) -> Loaded:
    """MAVProxy ``param load`` = pymavlink mavparm.py ``MAVParmDict.load`` (pymavlink 2.4.50).

    Per line: everything from the first ``#`` is dropped, the rest stripped; blank lines are
    skipped; commas become spaces; a line that does not split into exactly 2 words is
    printed as "Invalid line" and skipped; names in ``exclude_load`` are skipped; the value
    is ``int(v[2:], 16)`` after ``0x``, else ``float(v)`` — either raising ends the load.
    Names keep their case (a dict). Older pymavlink skipped only lines *starting* with #,
    so ``NAME VALUE # comment`` was an invalid line there.
    """
    out = Loaded("MAVProxy/pymavlink param load")
    try:
        for n, raw in _python_lines(data):
            text = raw.split("#")[0].strip()
            if not text:
                continue
            words = text.replace(",", " ").split()
            if len(words) != 2:
                out.skipped.append((n, f"Invalid line: {text}"))
                continue
            if words[0] in MAVPARM_EXCLUDE:
                out.skipped.append((n, f"{words[0]} is never loaded from files"))
                continue
            value = words[1].strip()
            try:
                number = float(int(value[2:], 16) if value.lower().startswith("0x") else value)
            except ValueError as exc:
                raise _Refused(n, f"ValueError: {exc}") from None
            out.set(LoadedValue(words[0], number, n))
    except _Refused as exc:
        out.refused = (exc.line, exc.why)
    return out


def methodic_configurator(data: bytes) -> Loaded:
    """ArduPilot Methodic Configurator: ardupilot_methodic_configurator/data_model_par_dict.py
    ``ParDict.load_param_file_into_dict`` and ``_validate_parameter``.

    UTF-8 (else SystemExit); each line stripped; blank lines and lines starting with ``#``
    skipped; a trailing ``# comment`` is split off (it becomes the change reason); then the
    name/value separator is the first ``,`` if any, else the first space, else the first tab
    (none: SystemExit); a name over 16 characters, not ``^[A-Z][A-Z_0-9]*$``, or seen
    before, or a value ``float()`` rejects, ends the load with SystemExit.
    """
    out = Loaded("ArduPilot Methodic Configurator")
    try:
        for n, raw in _python_lines(data):
            _amc_line(out, n, raw.strip())
    except _Refused as exc:
        out.refused = (exc.line, exc.why)
    return out


_AMC_NAME = re.compile(r"^[A-Z][A-Z_0-9]*$")


def _amc_line(out: Loaded, n: int, line: str) -> None:
    if not line or line[0] == "#":
        return
    comment = ""
    if "#" in line:
        line, comment = line.split("#", 1)
        comment = comment.strip()
    for sep in (",", " ", "\t"):
        if sep in line:
            name, value = (part.strip() for part in line.split(sep, 1))
            break
    else:
        raise _Refused(n, f"Missing parameter-value separator: {line}")
    if len(name) > NAME_MAX or not _AMC_NAME.match(name):
        raise _Refused(n, f"invalid parameter name {name}")
    if name in out.values:
        raise _Refused(n, f"Duplicated parameter {name}")
    try:
        number = float(value)
    except ValueError:
        raise _Refused(n, f"Invalid parameter value {value}") from None
    out.set(LoadedValue(name, number, n, comment=comment))


MP_EXCLUDE_OLD = frozenset(
    {"SYSID_SW_MREV", "WP_TOTAL", "CMD_TOTAL", "FENCE_TOTAL", "SYS_NUM_RESETS", "ARSPD_OFFSET"}
    | {"GND_ABS_PRESS", "GND_TEMP", "CMD_INDEX", "LOG_LASTFILE", "FORMAT_VERSION"}
)
MP_EXCLUDE = MP_EXCLUDE_OLD | {
    "BARO1_GND_PRESS",
    "BARO2_GND_PRESS",
    "BARO3_GND_PRESS",
    "BARO_GND_TEMP",
}


_MP_SEPARATORS = re.compile(r"[ ,\t]")


def _mission_planner(data: bytes, label: str, exact_two: bool, exclude: frozenset[str]) -> Loaded:
    """Mission Planner ExtLibs/Utilities/ParamFile.cs ``ParamFile.loadParamFile``.

    ``StreamReader.ReadLine`` (UTF-8, \r, \n or \r\n); a line starting with ``#`` is
    skipped; the line is split on ' ', ',' and '\t' dropping empty items; too few items
    (old: not exactly 2) skips the line; items[1] goes through ``double.Parse(s,
    InvariantCulture)``, whose FormatException aborts the whole load; excluded names are
    skipped; ``param[name] = value``, so the last line wins.
    """
    out = Loaded(label)
    values = out.values  # (Loaded.set inline: a later line wins, first position kept)
    plain = _PLAIN_TEXT.fullmatch
    for n, line in _text_lines(data, _UNIVERSAL, strict=False):
        if line.startswith("#"):
            continue
        # (str.split is exact, and faster, when the line has no comma or tab)
        parts = _MP_SEPARATORS.split(line) if "," in line or "\t" in line else line.split(" ")
        items = [t for t in parts if t] if "" in parts else parts
        if len(items) != 2 if exact_two else len(items) < 2:
            if items:
                out.skipped.append((n, f"{len(items)} item(s)"))
            continue
        name, text = items[0], items[1]
        value = float(text) if plain(text) else _regex_double(_DOTNET_DOUBLE, text)
        if value is None:
            out.refused = (n, f"Invalid number on param {name} : {text}")
            return out
        if name in exclude:
            out.skipped.append((n, f"{name} is never loaded from files"))
            continue
        values[name] = LoadedValue(name, value, n)
    return out


def mission_planner_old(data: bytes) -> Loaded:
    """Mission Planner before 1.3.75: ParamFile.cs ``loadParamFile`` with ``items.Length != 2``
    (ArduPilot/MissionPlanner@2f6c1d74): any line with a third item — e.g. a trailing
    comment — is dropped without a word."""
    return _mission_planner(data, "Mission Planner (before 1.3.75)", True, MP_EXCLUDE_OLD)


def mission_planner(data: bytes) -> Loaded:
    """Current Mission Planner: ParamFile.cs ``loadParamFile`` with ``items.Length < 2``; the
    first two items are name and value, anything after them is ignored."""
    return _mission_planner(data, "Mission Planner", False, MP_EXCLUDE)


_QGC_SEPARATORS = re.compile(r"[\t ,]+")


def qgroundcontrol(data: bytes) -> Loaded:
    """QGroundControl src/QmlControls/ParameterEditorController.cc ``buildDiffFromFile``.

    ``QTextStream::readLine`` (UTF-8; \n or \r\n); lines starting with ``#`` or blank after
    ``trimmed()`` are skipped; the trimmed line is split on ``[\t ,]+``: 5 fields are
    ``VehicleId ComponentId Name Value Type`` (QGC's own format), 2 are ``Name Value``
    (Mission Planner's); any other count is skipped as unparseable. A value the parameter's
    type cannot convert is skipped (here: one ``QString::toDouble`` rejects). If no line
    parses, QGC shows "No valid parameters found in file".
    """
    out = Loaded("QGroundControl")
    for n, line in _text_lines(data, _QT_BREAKS, strict=False):
        if line.startswith("#") or not line.strip():
            continue
        fields = _QGC_SEPARATORS.split(line.strip())
        if len(fields) not in (2, 5):
            out.skipped.append((n, f"unparseable line ({len(fields)} fields)"))
            continue
        name, text = (fields[2], fields[3]) if len(fields) == 5 else (fields[0], fields[1])
        value = _regex_double(_QT_DOUBLE, text)
        if value is None:
            out.skipped.append((n, f"{name}: value conversion failed for {text!r}"))
            continue
        out.set(LoadedValue(name, value, n))
    if not out.values:
        out.refused = (1, "No valid parameters found in file")
    return out


LOADERS: dict[str, Callable[[bytes], Loaded]] = {
    "ardupilot": ardupilot_defaults,
    "mavproxy": mavproxy_param_load,
    "methodic_configurator": methodic_configurator,
    "mission_planner_old": mission_planner_old,
    "mission_planner": mission_planner,
    "qgroundcontrol": qgroundcontrol,
}


def disagreements(expected: dict[str, tuple[float, int]], loaded: Loaded) -> list[tuple[int, str]]:
    """(line, sentence) for each way ``loaded`` differs from ``expected`` (name → (value,
    line) as paramdiff reports it), values compared as float32."""
    if loaded.refused is not None:
        line, why = loaded.refused
        return [(line, f"{loaded.loader} refuses the file: {why}")]
    out = [(line, f"{loaded.loader}: {what}") for line, what in loaded.conflicts]
    for name, got in loaded.values.items():
        at = f" (the part from byte {got.byte})" if got.byte > 1 else ""
        want = expected.get(name)
        if want is None:
            out.append(
                (
                    got.line,
                    f"{loaded.loader} loads {name} = {got.value:g}{at}, which paramdiff "
                    "does not report",
                )
            )
        elif want[0] != got.value and float32(want[0]) != float32(got.value):
            out.append(
                (
                    got.line,
                    f"{loaded.loader} loads {name} = {got.value:g}{at}, paramdiff "
                    f"reports {want[0]:g} (line {want[1]})",
                )
            )
    for name, (value, line) in expected.items():
        if name not in loaded.values:
            out.append((line, f"{loaded.loader} does not load {name} = {value:g}"))
    return sorted(out)
