"""Parameter file formats: bytes -> rows, rows -> lines. Pure functions, no I/O.

Every row keeps the file and line it came from. Nothing is ever skipped in
silence: ArduPilot's own loader drops malformed lines and over-long names
without a word; here each one is an error (or, with ``lenient``, a warning that
stays attached to the file and appears in every report).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from paramdiff.errors import InputError, quote
from paramdiff.model.params import READ_ONLY_FLAG, Diagnostic, Origin, Param, ParamFile
from paramdiff.model.values import check_name, format_value, parse_number, same_value
from paramdiff.parse.loaders import LOADERS, disagreements
from paramdiff.parse.text import BLUEOS_RE, ascii_int, decode, detect_format

HEADER_RE = re.compile(r"^#\s*(Date|Vehicle|Platform|Version|Stack|Vehicle-Id)\s*:\s*(.*?)\s*$")
PARAMS_SPLIT = re.compile(r"[ \t,=]+")  # the separators ArduPilot's own loader accepts
# The common, well-formed line in one match (a valid name, a decimal, an optional # comment);
# anything else takes the general path, which explains what is wrong with it. ASCII digits
# only, as ArduPilot's strtof (see model/values.py NUMBER_RE).
PARAMS_LINE_RE = re.compile(
    r"([A-Z][A-Z_0-9]{0,15})[ \t,=]+([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)"
    r"[ \t,=]*(?:#\s*(.*))?",
    re.ASCII,
)
FLOAT32_SAFE = 3.4e38  # below float32's largest finite value, so no rounding to inf
INCLUDE_RE = re.compile(r"""^%include\s+(?:"([^"]*)"|'([^']*)')\s*$""")
# Included BlueOS files also use Mission Planner's NAME,VALUE (hardware/power_sense_module.params)
# and MAVProxy's NAME VALUE (ArduRover/4.7/Navigator/BlueBoat120.params, which
# Navigator64/BlueBoat120.params includes): the parameter repository's consolidate.py, which
# turns the include sets into the params_v1.json BlueOS loads, reads a line as NAME, then
# ':', ',' or whitespace, then VALUE (its pattern3), whichever file holds it.
BLUEOS_MP_RE = re.compile(r"^([^:,\s]+)\s*,\s*([^,\s]+)\s*$")
BLUEOS_WS_RE = re.compile(r"^([^:,\s]+)\s+([^:,\s]+)$")
QGC_TYPES = {1: "UINT8", 2: "INT8", 3: "UINT16", 4: "INT16", 5: "UINT32", 6: "INT32", 9: "REAL32"}
PARAM_TEXT_FORMATS = ("params", "mp", "qgc", "blueos")


# --------------------------------------------------------------------------- parsing


# No ArduPilot vehicle has more than ~6,000 parameters (Copter 4.7's metadata defines 5,688),
# and a real file has a handful of bad lines. Past these a file is not a parameter file, and
# reading on would only cost memory and time (a 1 MiB file can hold 260,000 lines).
MAX_PARAMS = 20_000
MAX_WARNINGS = 1_000


class _Collector(NamedTuple):
    """Adds rows in order, turning every problem into an error or (lenient) a warning."""

    out: ParamFile
    lenient: bool

    def problem(self, file: str, line: int, message: str, fix: str) -> None:
        diag = Diagnostic(file, line, message, fix)
        if not self.lenient:
            raise diag.error()
        self.warn(file, line, message, fix)

    def warn(self, file: str, line: int, message: str, fix: str) -> None:
        if len(self.out.warnings) >= MAX_WARNINGS:
            raise InputError(
                f"more than {MAX_WARNINGS} bad or repeated lines (the first at line "
                f"{self.out.warnings[0].line}): not a parameter file",
                "check that this is the parameter file you mean",
                file=file,
                line=line,
            )
        self.out.warnings.append(Diagnostic(file, line, message, fix))

    def add(self, param: Param, override: bool = False) -> None:
        """``override`` — a later include replacing an earlier file's value (BlueOS semantics)."""
        old = self.out.params.get(param.name)
        if old is None:
            if len(self.out.params) >= MAX_PARAMS:
                raise InputError(
                    f"more than {MAX_PARAMS} parameters: no ArduPilot vehicle has that many",
                    "check that this is the parameter file you mean",
                    file=param.file,
                    line=param.line,
                )
            self.out.params[param.name] = param
            return
        if old.file != param.file and override:
            self.out.params[param.name] = param._replace(
                overrides=(*old.overrides, (old.origin, old.text))
            )
            return
        if same_value(old.value, param.value):
            self.warn(
                param.file,
                param.line,
                f"{param.name} is set again to the same value (first at {old.origin})",
                "delete one of the two lines",
            )
            return
        self.problem(
            param.file,
            param.line,
            f"{param.name} is set twice with different values: {old.text} at {old.origin} "
            f"and {param.text} here",
            "keep the one you mean and delete the other",
        )

    def value_row(
        self,
        file: str,
        line: int,
        name: str,
        text: str,
        comment: str,
        mav_type: int | None = None,
        chain: tuple[Origin, ...] = (),
    ) -> Param | None:
        bad = check_name(name)
        if bad:
            self.problem(file, line, *bad)
            return None
        value, problem = parse_number(text)
        if value is None:
            self.problem(file, line, f"{name}: {problem}", "write a finite decimal number")
            return None
        return Param(name, value, text, file, line, comment, mav_type=mav_type, chain=chain)


def _split_comment(line: str, marker: str) -> tuple[str, str]:
    body, sep, comment = line.partition(marker)
    return body.strip(), comment.strip() if sep else ""


def _content_lines(lines: list[str], col: _Collector) -> Iterator[tuple[int, str]]:
    """(line number, text) of every non-blank, non-comment line; ``# Key: value`` header
    comments before the first parameter become the file's header."""
    for n, raw in enumerate(lines, 1):
        stripped = raw.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            m = HEADER_RE.match(stripped)
            if m and not col.out.params:
                col.out.header[m.group(1)] = m.group(2)
            continue
        yield n, stripped


def _parse_name_value(lines: list[str], file: str, col: _Collector) -> None:
    """MAVProxy / SITL / BlueOS ``.params`` (``NAME VALUE``), Mission Planner (``NAME,VALUE``)."""
    params = col.out.params
    for n, stripped in _content_lines(lines, col):
        if READ_ONLY_FLAG in stripped and "#" in stripped and _flag_disagrees(stripped):
            col.problem(
                file,
                n,
                "a '#' touches a token here, and ArduPilot, which reads no comment after the "
                "name, would read the read-only flag differently",
                "put a space before the #",
            )
            continue
        if INCLUDE_RE.match(stripped):
            col.problem(
                file,
                n,
                "'%include' is BlueOS's include format, which this reader (format "
                f"'{col.out.format}') does not follow",
                "read the file as BlueOS's: format: blueos in sources.yaml (or --format "
                "blueos), or format: auto",
            )
            continue
        fast = PARAMS_LINE_RE.fullmatch(stripped)
        if fast is not None:
            name, text, comment = fast.groups()
            value = float(text)
            if abs(value) < FLOAT32_SAFE:
                param = Param(name, value, text, file, n, comment or "")
                if name in params or len(params) >= MAX_PARAMS:
                    col.add(param)  # set again, or too many: the collector says what is wrong
                else:  # col.add's common case, inline (~2,000 lines a diff)
                    params[name] = param
                continue
        body, comment = _split_comment(stripped, "#")
        tokens = [t for t in PARAMS_SPLIT.split(body) if t]
        if len(tokens) < 2:
            col.problem(
                file,
                n,
                f"'{quote(body)}' is not a parameter line (NAME VALUE)",
                "write NAME VALUE, or comment the line out with #",
            )
            continue
        read_only = len(tokens) == 3 and tokens[2] == READ_ONLY_FLAG
        if len(tokens) > 2 and not read_only:
            _after_value(col, file, n, tokens[2:])
            continue
        row = col.value_row(file, n, tokens[0], tokens[1], comment)
        if row:
            col.add(row._replace(read_only=True) if read_only else row)


def _flag_disagrees(line: str) -> bool:
    """Whether ArduPilot's parse_param_line, which splits the whole line on ", =\\t" with
    no comment syntax, finds @READONLY as the third token where this reader (a '#' starts a
    comment) does not, or the other way round (``1500#c @READONLY``, ``1500 @READONLY#x``)."""
    raw = [t for t in PARAMS_SPLIT.split(line) if t]
    body = [t for t in PARAMS_SPLIT.split(_split_comment(line, "#")[0]) if t]
    return (raw[2:3] == [READ_ONLY_FLAG]) != (body[2:3] == [READ_ONLY_FLAG])


def _after_value(col: _Collector, file: str, n: int, extra: list[str]) -> None:
    """Text after ``NAME VALUE`` other than exactly ``@READONLY``: ArduPilot's
    parse_param_line (libraries/AP_Param/AP_Param.cpp, ardupilot@00bc4884) compares a third
    token with strcmp against "@READONLY" and ignores anything else without a word."""
    if extra[0].upper() == READ_ONLY_FLAG and len(extra) == 1:
        col.problem(
            file,
            n,
            f"'{quote(extra[0])}' is not ArduPilot's read-only flag (it compares the exact "
            f"text {READ_ONLY_FLAG}) and would load the value as writable",
            f"write {READ_ONLY_FLAG}",
        )
        return
    col.problem(
        file,
        n,
        f"unexpected text after the value: '{quote(' '.join(extra))}'",
        f"remove it, or put it after a # as a comment (ArduPilot ignores it silently; only "
        f"a single {READ_ONLY_FLAG} is read)",
    )


def _parse_qgc(lines: list[str], file: str, col: _Collector) -> None:
    """QGroundControl: ``sysid<TAB>compid<TAB>NAME<TAB>VALUE<TAB>TYPE`` under ``#`` headers."""
    for n, stripped in _content_lines(lines, col):
        fields = [f.strip() for f in stripped.split("\t")]
        if len(fields) != 5:
            col.problem(
                file,
                n,
                f"QGC line has {len(fields)} tab-separated columns, expected 5 "
                "(sysid compid name value type)",
                "export the file again from QGroundControl, or fix the columns",
            )
            continue
        sysid, compid, name, text, type_text = fields
        if not (ascii_int(sysid) and ascii_int(compid)):
            col.problem(
                file,
                n,
                f"sysid/compid '{quote(sysid)}'/'{quote(compid)}' are not numbers",
                "fix the columns",
            )
            continue
        # (length first: int() of a 5,000-digit column raised ValueError, exit 3)
        if not ascii_int(type_text) or len(type_text) > 2 or int(type_text) not in QGC_TYPES:
            col.problem(
                file,
                n,
                f"TYPE '{quote(type_text)}' is not a MAV_PARAM_TYPE",
                "use 2/4/6 (int8/16/32) or 9 (real32)",
            )
            continue
        row = col.value_row(file, n, name, text, "", mav_type=int(type_text))
        if row:
            col.add(row)


IncludeReader = Callable[[str], bytes]
# Deeper than any real include set (BlueOS's go 2 levels); a deeper chain is refused, never
# a RecursionError.
INCLUDE_DEPTH_LIMIT = 32


@dataclass(slots=True)
class _IncludeContext:
    """One top-level parse's includes: how to read them, where they must stay, and each
    file's rows parsed once (a diamond of includes costs one parse per file, not 2^depth)."""

    read: IncludeReader | None
    root: str  # "" = repository-relative paths that may not climb; else a directory
    lenient: bool
    parsed: dict[str, ParamFile] = field(default_factory=dict)


def include_inside(path: str, root: str) -> bool:
    """Whether the normalized include ``path`` stays inside ``root`` (see _IncludeContext)."""
    if not root:
        return not posixpath.isabs(path) and path != ".." and not path.startswith("../")
    rel = posixpath.relpath(path, root)
    return rel != ".." and not rel.startswith("../")


def _parse_blueos(
    lines: list[str],
    file: str,
    col: _Collector,
    ctx: _IncludeContext,
    stack: tuple[str, ...],
) -> None:
    """BlueOS's other format: ``%include "x"``, ``NAME: VALUE,`` and ``//`` comments.

    Included paths are relative to the including file; a later setting (in a later
    include or after it) wins and records what it replaced.
    """
    for n, raw in enumerate(lines, 1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("//") or stripped.startswith("#"):
            continue
        inc = INCLUDE_RE.match(stripped)
        if inc:
            target = inc.group(1) if inc.group(1) is not None else inc.group(2)
            _include(file, n, target, col, ctx, (*stack, file))
            continue
        if stripped.startswith("%"):
            col.problem(
                file, n, f"unknown directive '{quote(stripped)}'", "only %include is supported"
            )
            continue
        body, comment = _split_comment(stripped, "//")
        m = BLUEOS_RE.match(body) or BLUEOS_MP_RE.match(body) or BLUEOS_WS_RE.match(body)
        if not m:
            col.problem(
                file,
                n,
                f"'{quote(body)}' is not a parameter line (NAME: VALUE, NAME,VALUE or NAME VALUE)",
                "write NAME: VALUE, or comment the line out with //",
            )
            continue
        row = col.value_row(file, n, m.group(1), m.group(2), comment)
        if row:
            col.add(row, override=True)


def _include(
    file: str, n: int, target: str, col: _Collector, ctx: _IncludeContext, stack: tuple[str, ...]
) -> None:
    """Merge the rows of one ``%include`` line, each with this line prepended to its chain."""
    path = posixpath.normpath(posixpath.join(posixpath.dirname(file), target))
    shown = quote(target)
    if not target.strip():
        col.problem(
            file, n, f"%include '{shown}' names no file", "write the path of the file to include"
        )
        return
    if posixpath.isabs(target) or not include_inside(path, ctx.root):
        where = "the repository" if not ctx.root else "the include root"
        fix = "fix the include path" if not ctx.root else "fix the include path, or pass --root"
        col.problem(file, n, f"%include '{shown}' leaves {where}", fix)
        return
    if path in stack:
        col.problem(file, n, f"%include '{shown}' includes itself", "remove the cycle")
        return
    if len(stack) > INCLUDE_DEPTH_LIMIT:
        col.problem(
            file,
            n,
            f"%include '{shown}' nests includes more than {INCLUDE_DEPTH_LIMIT} deep",
            "flatten the include chain",
        )
        return
    if ctx.read is None:
        col.problem(
            file,
            n,
            f"%include '{shown}' cannot be resolved here",
            "parse the file through a profile so its includes are fetched",
        )
        return
    sub = ctx.parsed.get(path)
    if sub is None:
        sub = ParamFile(file=path, format="blueos")
        data = _read_include(ctx.read, file, n, target, path)
        _parse_blueos(decode(data, path), path, _Collector(sub, ctx.lenient), ctx, stack)
        ctx.parsed[path] = sub
    here = Origin(file, n)
    for p in sub.params.values():
        col.add(p._replace(chain=(here, *p.chain)), override=True)
    for w in sub.warnings:
        if w not in col.out.warnings:
            col.out.warnings.append(w)


def _read_include(read: IncludeReader, file: str, n: int, target: str, path: str) -> bytes:
    """The bytes of an included file; a file that cannot be read (missing, a directory, a
    FIFO, a symlink loop...) is an error at the ``%include`` line that names it."""
    shown = quote(target)
    try:
        return read(path)
    except FileNotFoundError:
        raise InputError(
            f"%include '{shown}' ({quote(path)}): no such file",
            "fix the include path",
            file=file,
            line=n,
        ) from None
    except InputError as exc:
        if exc.line is not None:
            raise  # a problem inside that file, already at its own line
        raise InputError(
            f"%include '{shown}' ({quote(path)}): {exc.what}", exc.fix, file=file, line=n
        ) from None


LONE_CR = re.compile(rb"\r(?!\n)")


def _lone_cr(data: bytes, file: str, col: _Collector) -> None:
    """A ``\r`` not followed by ``\n`` ends a line here, and in ArduPilot's defaults reader
    (libraries/AP_Param/AP_Param.cpp read_param_defaults_file reads lines through
    libraries/AP_Filesystem/AP_Filesystem.cpp AP_Filesystem::fgets, which stops at \r or
    \n); a reader that ends lines at \n only (QGroundControl's QTextStream::readLine) sees
    one long line. Warn, naming each loader of parse/loaders.py that reads other values."""
    found = LONE_CR.search(data)
    if found is None:
        return
    line = data[: found.start()].count(b"\n") + data[: found.start()].count(b"\r") + 1
    expected = {name: (p.value, p.line) for name, p in col.out.params.items()}
    differ = []
    for key, loader in LOADERS.items():
        problems = disagreements(expected, loader(data))
        if problems:
            differ.append(f"{key} ({len(problems)} difference{'s' if len(problems) > 1 else ''})")
    col.warn(
        file,
        line,
        "lone CR line endings (\\r without \\n): ArduPilot's defaults reader "
        "(AP_Filesystem::fgets) ends a line at \\r, as this reader does; "
        + (
            f"these read the file differently: {', '.join(differ)}"
            if differ
            else "every loader paramdiff knows reads the same values"
        ),
        "save the file with \\n line endings (mac2unix converts it)",
    )


def parse_params(
    data: bytes,
    file: str,
    fmt: str = "auto",
    *,
    lenient: bool = False,
    read_include: IncludeReader | None = None,
    include_root: str = "",
) -> ParamFile:
    """Parse a parameter text file. Raises InputError (strict) on the first bad line.

    ``include_root``: the directory BlueOS ``%include`` paths must stay in; "" for files
    named by their path inside a repository."""
    if fmt == "auto":
        fmt = detect_format(data, file)
    if fmt not in PARAM_TEXT_FORMATS:
        raise InputError(
            f"format '{fmt}' is not a parameter text format",
            f"use one of: {', '.join(PARAM_TEXT_FORMATS)}",
            file=file,
            line=1,
        )
    lines = decode(data, file)
    out = ParamFile(file=file, format=fmt)
    col = _Collector(out, lenient)
    if fmt == "qgc":
        _parse_qgc(lines, file, col)
    elif fmt == "blueos":
        _parse_blueos(lines, file, col, _IncludeContext(read_include, include_root, lenient), ())
    else:
        _parse_name_value(lines, file, col)
        if b"\r" in data:
            _lone_cr(data, file, col)
    if not out.params and not out.warnings:
        raise InputError(
            "no parameters in the file",
            "check that this is a parameter file and that its format is right",
            file=file,
            line=1,
        )
    return out


def include_paths(data: bytes, file: str) -> list[str]:
    """The files a BlueOS include-format file pulls in directly (repo paths)."""
    try:
        lines = decode(data, file)
    except InputError:
        return []
    found = []
    for raw in lines:
        m = INCLUDE_RE.match(raw.strip())
        if m:
            target = m.group(1) if m.group(1) is not None else m.group(2)
            path = posixpath.normpath(posixpath.join(posixpath.dirname(file), target))
            if not path.startswith("..") and not posixpath.isabs(path):
                found.append(path)
    return found


# --------------------------------------------------------------------------- writing


def qgc_type(param: Param, types: Mapping[str, int] | None = None) -> int:
    """The row's MAV_PARAM_TYPE: from ``types`` (model.mavtypes.qgc_types, which reports the names
    it could not type), else the row's own, else guessed from the value."""
    if types is not None and param.name in types:
        return types[param.name]
    if param.mav_type is not None:
        return param.mav_type
    return 6 if param.value == int(param.value) and abs(param.value) < 2**31 else 9


WRITE_FORMATS = ("params", "mp", "qgc")  # what write_rows writes


def write_rows(
    params: Iterable[Param],
    fmt: str,
    types: Mapping[str, int] | None = None,
    vehicle: tuple[int, int] = (1, 1),
) -> Iterator[str]:
    """Lines of a parameter file in ``fmt`` (one of WRITE_FORMATS); no header. ``vehicle``:
    the (system, component) ids of QGC's first two columns."""
    system, component = vehicle
    for p in params:
        value = format_value(p.value)
        if fmt == "mp":
            yield f"{p.name},{value}"
        elif fmt == "qgc":
            yield f"{system}\t{component}\t{p.name}\t{value}\t{qgc_type(p, types)}"
        else:
            yield f"{p.name:<16} {value}"
