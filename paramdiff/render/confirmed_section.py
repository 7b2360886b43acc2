"""The report's "Confirmed in SITL" section and column: each row of the derived file marked
with what a running SITL was seen to hold (the pin's verification record, derive.record).
Nothing at all is rendered where the pin has no record."""

from __future__ import annotations

import re
from collections.abc import Iterator

from paramdiff.derive.record import CONFIRMED, DIFFERS, NOT_SEEN, Record
from paramdiff.model.metadata import Metadata
from paramdiff.model.values import format_value
from paramdiff.render.texttable import markdown_table

MARK = "🧪 confirmed"  # the reference documents' mark, kept next to each mapped item


def sitl_cell(
    record: Record,
    name: str,
    value: float | None,
    meta: Metadata | None,
    derived_sha256: str | None = None,
) -> str:
    """One derived row's mark: confirmed, differs (with the live value) or not seen (also a
    row whose value changed since a stale record: ``derived_sha256``, the current file's);
    a name the derived file leaves out has none."""
    if value is None:
        return ""
    status, live = record.mark(name, value, derived_sha256)
    if status == CONFIRMED:
        return MARK
    if status == DIFFERS and live is not None:
        return f"differs: runs {meta.label(name, live) if meta else format_value(live)}"
    return NOT_SEEN


def confirmed_section(
    record: Record | None, derived: dict[str, float], derived_sha256: str, meta: Metadata | None
) -> Iterator[str]:
    """The section: the summary line, what the record is of, the rows not confirmed, then
    every row in a collapsed table. ``derived``: the derived file's rows (name -> value);
    ``derived_sha256``: the digest of the file as derive writes it now."""
    if record is None:
        return
    marks = record.marks(derived, derived_sha256)
    yield "## Confirmed in SITL"
    yield ""
    yield f"**{record.summary(derived, derived_sha256)}.**"
    yield ""
    launch = _code(record.launch) if record.launch else "the frame's defaults files"
    yield (
        f"Read back over MAVLink by `paramdiff verify --record` ({record.firmware.frame}, "
        f"{record.time}), launched with {launch}; the record is `{record.file}`. "
        f"{MARK}: the vehicle held the derived value (float32); differs: it ran the value "
        "shown; not seen: it has no such parameter, or the record is older than the value."
    )
    yield ""
    if record.derived_sha256 != derived_sha256:
        yield (
            f"The record is **stale**: it read back `{record.derived_file}` with sha256 "
            f"`{record.derived_sha256[:12]}`, the file is now `{derived_sha256[:12]}`. Rows "
            "whose value changed since are not seen. Run SITL on the new file and "
            "`paramdiff verify CONNECTION --record` again."
        )
        yield ""
    rows = [
        [
            f"`{name}`",
            _value(meta, name, value),
            sitl_cell(record, name, value, meta, derived_sha256),
        ]
        for name, value in derived.items()
    ]
    open_rows = [r for r, (s, _) in zip(rows, marks.values(), strict=True) if s != CONFIRMED]
    counts = {s: sum(1 for m, _ in marks.values() if m == s) for s in (DIFFERS, NOT_SEEN)}
    if open_rows:
        differ = f"{counts[DIFFERS]} differ{'s' if counts[DIFFERS] == 1 else ''}"
        yield f"Not confirmed: {differ}, {counts[NOT_SEEN]} not seen."
        yield ""
        yield from markdown_table(["param", "derived", "in SITL"], open_rows)
        yield ""
    yield "<details>"
    yield f"<summary>Every row of the derived file ({len(rows)})</summary>"
    yield ""
    yield from markdown_table(["param", "derived", "in SITL"], rows)
    yield ""
    yield "</details>"
    yield ""


def _code(text: str) -> str:
    """``text`` as one markdown code span, whatever backticks it holds (a launch's command
    substitution; a record's text is read as it was committed): fenced by one more backtick
    than its longest run, so nothing in it becomes markup (CommonMark 6.1)."""
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _value(meta: Metadata | None, name: str, value: float) -> str:
    return meta.label(name, value) if meta else format_value(value)
