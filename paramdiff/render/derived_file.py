"""The derived parameter file as text: ``NAME VALUE`` lines that every loader reads the same
way, with the provenance of every value in ``#`` comment lines of at most 98 bytes.

Why this shape (see ``paramdiff.parse.loaders`` for each loader's rules):

- A parameter line is exactly ``NAME VALUE`` (one space). A trailing ``# comment`` makes
  the line 4 fields for QGroundControl and 3 items for Mission Planner before 1.3.75,
  which then skip it silently; older pymavlink rejects it too.
- Every other line starts with ``#`` in its first byte — the only comment marker all six
  loaders share — and is at most ``LINE_MAX`` bytes of UTF-8. ArduPilot's defaults reader
  takes a file 98 bytes at a time (``AP_Filesystem::fgets``): byte 99 of a longer comment
  would start a "line" of its own and be read as ``NAME VALUE``.
- Provenance without a comment per value: ``# hardware:854-858`` heads a run of parameter
  lines that come, in order, from consecutive lines of one source file; a value the overlay
  changes gets a ``# DELTA overlay:LINE`` block with the shipped value and the reason.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paramdiff.config.roles import LOCAL_REPO
from paramdiff.derive.derived import DERIVE_FORMATS, Derived, Line
from paramdiff.errors import ConfigError
from paramdiff.model.params import Param, ParamFile
from paramdiff.model.source import Source
from paramdiff.model.values import format_value
from paramdiff.parse.loaders import LOADERS, disagreements
from paramdiff.parse.param_text import write_rows
from paramdiff.render.safe_text import visible
from paramdiff.render.sinks import join_lines

if TYPE_CHECKING:
    from paramdiff.model.mavtypes import QgcTypes

LINE_MAX = 98  # bytes of UTF-8 per line, newline not counted: AP_Filesystem::fgets' limit
# Every character some reader or editor ends a line at (str.splitlines' set): a reason that
# contains one is split there, so the text after it stays a comment.
_BREAKS = re.compile("\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def _printable(text: str) -> str:
    """``text`` with a tab as a space and every other control character made visible
    (``\\x1b``; render/safe_text.py), before it is wrapped: the escapes count in the 98 bytes."""
    if text.isprintable():  # no Cc/Cf character at all (nearly every text): nothing to replace
        return text
    return visible(text.replace("\t", " "))


def _fit(word: str, room: int) -> tuple[str, str]:
    """The longest head of ``word`` whose UTF-8 fits ``room`` bytes (whole characters)."""
    used = 0
    for i, c in enumerate(word):
        used += len(c.encode())
        if used > room:
            return word[:i], word[i:]
    return word, ""


def comment_lines(text: str, indent: str = "", width: int = LINE_MAX) -> Iterator[str]:
    """``text`` as ``#`` lines of at most ``width`` bytes: one paragraph per line break in
    ``text``, words wrapped at spaces, a word longer than a line cut between characters;
    continuation lines are indented two more spaces."""
    for para in _BREAKS.split(text):
        para = _printable(para)
        lead = indent + para[: len(para) - len(para.lstrip(" "))]
        words = para.split()
        if not words:
            yield "#"
            continue
        yield from _wrap(words, f"# {lead}", f"# {lead}  ", width)


def _wrap(words: list[str], first: str, cont: str, width: int) -> Iterator[str]:
    """Greedy fill; a word goes to a fresh line when it does not fit, and is cut between
    characters only when it is longer than a whole line."""
    line, fresh = first, True
    for word in words:
        while word:
            candidate = line + ("" if fresh else " ") + word
            if len(candidate.encode()) <= width:
                line, fresh, word = candidate, False, ""
            elif not fresh:
                yield line
                line, fresh = cont, True
            else:
                head, word = _fit(word, width - len(line.encode()))
                if not head:  # not even one character fits after the prefix
                    head, word = word[0], word[1:]
                yield line + head
                line, fresh = cont, True
    if not fresh:
        yield line


def _where(ln: Line, base: Source) -> tuple[str, int]:
    """(file as the header names it, line) of a value taken from the base set."""
    # Every line without a delta comes from the base set (build() guarantees it).
    assert ln.shipped is not None
    if ln.shipped.file == base.file.file:
        return "", ln.shipped.line
    rel = posixpath.relpath(ln.shipped.file, posixpath.dirname(base.file.file) or ".")
    return rel, ln.shipped.line


@dataclass(slots=True)
class _Run:
    """Parameter lines from consecutive lines of one file: ``# role[:file]:first-last``."""

    role: str
    file: str
    first: int
    last: int

    def label(self) -> str:
        where = f"{self.file}:" if self.file else ""
        span = f"{self.first}-{self.last}" if self.last > self.first else str(self.first)
        return f"{self.role}:{where}{span}"


def _delta_text(ln: Line) -> str:
    assert ln.delta is not None
    shipped = (
        f"shipped {ln.shipped.text} ({ln.shipped.file.rsplit('/', 1)[-1]}:{ln.shipped.line})"
        if ln.shipped
        else "not set by the shipped file"
    )
    return f"DELTA overlay:{ln.delta.line}: {shipped} — {ln.delta.reason}"


def _body(d: Derived, sep: str) -> Iterator[str]:
    """Sections, run headers, DELTA blocks and ``NAME<sep>VALUE`` lines."""
    section = None
    run: _Run | None = None
    pending: list[str] = []  # parameter lines of the open run, written once it closes

    def close() -> Iterator[str]:
        if run is not None:
            yield f"# {run.label()}"
        yield from pending
        pending.clear()

    for ln in d.lines:
        if ln.section != section:
            yield from close()
            run, section = None, ln.section
            yield ""
            yield f"# --- {section} ---"
        text = f"{ln.name}{sep}{format_value(ln.value)}"
        if ln.delta is not None:
            yield from close()
            run = None
            yield from comment_lines(_delta_text(ln))
            yield text
            continue
        file, line = _where(ln, d.base)
        if run is not None and run.file == file and line == run.last + 1:
            run.last = line
        else:
            yield from close()
            run = _Run(d.base.role, file, line, line)
        pending.append(text)
    yield from close()


def _provenance(d: Derived) -> Iterator[str]:
    role = d.base.role
    yield f"Provenance. Parameter lines are exactly NAME VALUE; every value is {role}'s."
    yield f"A line '# {role}:854-858' names the lines of the {role} file"
    yield f"  {d.base.path}"
    yield "that the parameter lines under it come from, one each, in order."
    if d.base.file.includes_used():
        yield f"('# {role}:FILE:5-12': lines of FILE, a file it %includes, relative to it.)"
    yield (
        "A value the overlay changes comes after a '# DELTA overlay:LINE:' block: that line "
        "of the overlay, the shipped value and the reason."
    )


def _header(d: Derived, fmt: str) -> Iterator[str]:
    yield f"{d.target.rsplit('/', 1)[-1]} — GENERATED by paramdiff. Do not edit by hand."
    yield f"Regenerate: {d.regenerate}" + (f" --format {fmt}" if fmt != "params" else "")
    yield ""
    yield f"Profile {d.profile}, pin {d.pin}; every input as locked in sources.lock:"
    for use, s in d.locked or [("values", i) for i in d.inputs]:
        version = f"; version {s.version}" if s.version else ""
        if s.repo == LOCAL_REPO:
            yield f"  {s.role} ({use}): this repository{version}"
            yield f"    {s.path}"
        else:
            yield f"  {s.role} ({use}): {s.repo}{version}"
            yield f"    {s.path}"
            yield f"    commit {s.commit}"
        yield f"    sha256 {s.sha256}"
        for inc in s.includes:
            yield f"    %include {inc.path}"
            yield f"      sha256 {inc.sha256}"
    yield f"  overlay: {d.overlay.file}"
    yield f"    sha256 {d.overlay.sha256}"
    if d.minimal_of:
        role, dropped = d.minimal_of
        yield ""
        yield (
            f"Minimal (--minimal): {dropped} lines left out that only restate what the launch "
            f"runs anyway ({role}, then the frame's defaults); every delta stays."
        )
    yield ""
    if fmt != "qgc":
        yield from _provenance(d)
    if d.excluded:
        left = ", ".join(
            f"{r.label} ({len(ps)})" if r.category else ", ".join(p.name for p in ps)
            for r, ps in d.excluded.items()
        )
        yield f"Left out on purpose: {left}; see the report."
    read_only = [ln.name for ln in d.lines if ln.shipped is not None and ln.shipped.read_only]
    if read_only:
        # MAVProxy and Mission Planner before 1.3.75 skip a line of three fields (see
        # parse/loaders.py), so the flag is named here and never written on the line.
        yield (
            f"Read-only in the shipped file (NAME VALUE @READONLY; written here as NAME VALUE, "
            f"which every loader reads): {', '.join(read_only)}."
        )
    yield ""
    yield from _loading(d)


def _loading(d: Derived) -> Iterator[str]:
    if d.load_with is not None:
        command, files = d.load_with
        yield "Load it with (the first launch the profile declares that `paramdiff check`"
        yield "verifies; each declared launch has its section in the report):"
        yield from pasteable(command)
        yield f"It loads {' then '.join(files)}; the last file loaded wins."
        if d.load_model:  # docs/launches.md: how Gazebo is pointed at it
            yield f"Gazebo runs the model {d.load_model} (docs/launches.md says how to load it)."
        if " -w" not in f" {command}":
            yield "Add -w to wipe parameters stored by an earlier run: they win over every file."
        return
    if d.vehicle is None:
        return
    if d.launches_declared:
        yield "No launch line: none of the launches the profile declares loads this file"
        yield "and passes `paramdiff check` (see the report's launch sections)."
        return
    # Only a launch check verified goes here; say how to get one.
    yield "No launch line: the profile declares no launches (`launches:` in sources.yaml);"
    yield "`paramdiff check` verifies each declared launch and the first that passes goes here."
    if d.frame:
        yield f"sim_vehicle.py's frame {d.frame} loads {' then '.join(d.frame_files)} first."
        if d.frame_outputs:
            yield f"They set {' / '.join(d.frame_outputs)}."
        yield "The last file loaded wins, so this file sets every output parameter explicitly."


def pasteable(command: str, indent: str = "  ", width: int = LINE_MAX) -> Iterator[str]:
    """``command`` as header lines (``# `` and the text yielded) that, with ``# `` stripped and
    pasted into a POSIX shell, are that one command: every line but the last ends with a backslash,
    a line continuation (POSIX.1 Shell Command Language, 2.2.1: backslash-newline is removed
    outside quotes). Words are quoted with shlex.quote, so the argv is shlex.split(command)'s,
    the argv check verified (parse/launch.py splits the launch the same way); a word longer
    than a line is cut into adjacent quoted pieces, which the shell joins into one word."""
    words = shlex.split(command)
    whole = indent + " ".join(map(shlex.quote, words))
    if len(whole.encode()) <= width - len("# "):
        yield whole
        return
    room = width - len("# ") - len(" \\")  # every line leaves room for its continuation
    line, fresh = indent, True
    for word in words:
        quoted = shlex.quote(word)
        candidate = line + ("" if fresh else " ") + quoted
        if len(candidate.encode()) <= room:
            line, fresh = candidate, False
            continue
        if not fresh:
            yield line + " \\"
            line = indent + "  "
        while len((line + shlex.quote(word)).encode()) > room:
            cut = max(1, room - len(line.encode()) - len(b"''"))
            head = word[:cut]
            while len((line + shlex.quote(head)).encode()) > room and len(head) > 1:
                head = head[:-1]
            # No space before the backslash, none after it: the next piece joins this word.
            yield line + shlex.quote(head) + "\\"
            line, word = "", word[len(head) :]
        line, fresh = line + shlex.quote(word), False
    yield line


def _header_lines(d: Derived, fmt: str) -> Iterator[str]:
    for text in _header(d, fmt):
        yield from comment_lines(text)


def derived_rows(d: Derived) -> list[Param]:
    """One Param per line of the derived file; a delta keeps its shipped row (and so its type)."""
    return [
        Param(ln.name, ln.value, format_value(ln.value), "", 0, mav_type=ln.shipped.mav_type)
        if ln.shipped
        else Param(ln.name, ln.value, format_value(ln.value), "", 0)
        for ln in d.lines
    ]


def values_source(d: Derived) -> Source:
    """The derived file's values as every loader reads them back (``float`` of the text each
    line writes, which verify_loaders proves for the file written), without rendering it."""
    rows = {p.name: p._replace(value=float(p.text), file=d.target) for p in derived_rows(d)}
    return Source(role=d.target, file=ParamFile(d.target, "params", rows))


def derived_qgc_types(d: Derived) -> QgcTypes:
    """The QGC type column of the derived file, and the names nothing pinned types."""
    from paramdiff.model.mavtypes import qgc_types  # only QGC output types its rows

    return qgc_types(derived_rows(d))


def render(d: Derived, fmt: str = "params") -> Iterator[str]:
    """The derived file's lines in ``fmt``: params (sim_vehicle/MAVProxy), mp or qgc.

    A params or mp file is read back by every real loader before a line of it is used, so
    no reason text can make one of them see another value.
    """
    lines = render_derived(d, fmt)
    if fmt != "qgc":  # QGC's own format is for QGC only (and carries types)
        verify_loaders(lines, d, "," if fmt == "mp" else " ")
    yield from lines


def render_derived(d: Derived, fmt: str = "params") -> list[str]:
    """The derived file's lines in ``fmt``: params (sim_vehicle/MAVProxy), mp or qgc."""
    if fmt not in DERIVE_FORMATS:
        raise ConfigError(
            f"unknown derive format '{fmt}'", f"use one of {', '.join(DERIVE_FORMATS)}"
        )
    if fmt == "qgc":
        lines = ["# Onboard parameters for Vehicle 1", *_header_lines(d, fmt), "#"]
        lines.append("# Vehicle-Id Component-Id Name Value Type")
        lines += write_rows(derived_rows(d), "qgc", derived_qgc_types(d).types)
        return lines
    lines = [*_header_lines(d, fmt), *_body(d, "," if fmt == "mp" else " ")]
    _require_short(lines, d.target)
    return lines


def _require_short(lines: Sequence[str], target: str) -> None:
    """Comment lines are wrapped by construction; a parameter line cannot be (it is data)."""
    for n, line in enumerate(lines, 1):
        if len(line.encode()) > LINE_MAX:
            raise ConfigError(
                f"line {n} of {target} would be {len(line.encode())} bytes; ArduPilot reads "
                f"{LINE_MAX} at a time and would take the rest for another line",
                "shorten the value or name",
            )


def verify_loaders(lines: Sequence[str], d: Derived, sep: str = " ") -> None:
    """Refuse a file that any real loader would read differently from ``d.lines``.

    Wrapping makes this impossible by construction; this proves it for every file written,
    and names the overlay's fix when a loader leaves a carried name out on purpose.
    """
    data = join_lines(lines).encode()
    at = {line: n for n, line in enumerate(lines, 1)}
    expected = {
        ln.name: (ln.value, at.get(f"{ln.name}{sep}{format_value(ln.value)}", 0)) for ln in d.lines
    }
    for load in LOADERS.values():
        found = disagreements(expected, load(data))
        if found:
            line, what = found[0]
            raise ConfigError(
                what,
                f"leave the parameter out with a reason in {d.overlay.file} (select.exclude)",
                file=d.target,
                line=line,
            )


# Compiled by read_provenance (re's cache): `derive` never reads its provenance back.
# (at most 9 digits: a longer "line number" is no run header, and int() of 5,000 digits raised)
_RUN_RE = r"# (\w+):(?:(.+):)?(\d{1,9})(?:-(\d{1,9}))?$"
_DELTA_RE = r"# DELTA (overlay:\d+):"
_PARAM_RE = r"([A-Z][A-Z_0-9]*)[ ,]"


def read_provenance(lines: Sequence[str]) -> dict[str, str]:
    """Where each value of a derived file comes from, read back from its comment lines:
    name → ``role:LINE``, ``role:FILE:LINE`` or ``overlay:LINE`` (the inverse of ``_body``)."""
    run_re, delta_re, param_re = re.compile(_RUN_RE), re.compile(_DELTA_RE), re.compile(_PARAM_RE)
    out: dict[str, str] = {}
    role = file = ""
    nxt: int | None = None
    delta: str | None = None
    for line in lines:
        if m := run_re.match(line):
            role, file, nxt, delta = m[1], m[2] or "", int(m[3]), None
        elif m := delta_re.match(line):
            delta = m[1]
        elif (m := param_re.match(line)) and (delta or nxt is not None):
            if delta:
                out[m[1]], delta = delta, None
                continue
            assert nxt is not None
            out[m[1]] = f"{role}:{file + ':' if file else ''}{nxt}"
            nxt += 1
        elif not line.startswith("#"):
            nxt = None  # a blank line or a new section ends the run
    return out
