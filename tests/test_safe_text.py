"""Control characters never leave paramdiff raw (render/safe_text.py): the escaping itself
against Unicode's categories, then every exit point — markdown and text tables, derived-file
comments, the SVG, the review (markdown and JSON), the sinks that write files, stdout and
stderr in this process and through a real pipe, and the generated files of a whole project
whose sources.yaml and overlay carry them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

from helpers import FIXTURES, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramdiff.render.derived_file import comment_lines
from paramdiff.render.safe_text import UNSAFE, has_unsafe, visible
from paramdiff.render.sinks import Output, emit, join_lines
from paramdiff.render.svg import escape as svg_escape
from paramdiff.render.texttable import markdown_cell, markdown_table, table
from paramdiff.review.changes import Attention, ProfileReview, Review
from paramdiff.review.comment import render_json, render_markdown

UNSAFE_CATEGORIES = ("Cc", "Cf", "Zl", "Zp", "Cs")
# One of each kind: ESC + CSI colour, BEL, C1 CSI, DEL, a bidi override, a zero-width space,
# the line separator, a BOM, a tag character, an OSC 52 clipboard write.
NASTY = "a\x1b[31mred\x07\x9b2J\x7f\u202eevil\u200b\u2028\ufeff\U000e0041\x1b]52;c;eA==\x07z"


def unsafe(text: str) -> list[str]:
    """The characters of ``text`` that must never reach a terminal or a file raw."""
    return [c for c in text if unicodedata.category(c) in UNSAFE_CATEGORIES and c not in "\t\n"]


# Text made of what attackers use, mixed with ordinary characters.
controls = st.characters(categories=UNSAFE_CATEGORIES)
hostile = st.text(
    st.one_of(controls, st.characters(), st.sampled_from("|<>&%\r\n\t ")), max_size=40
)


def test_visible_escapes_exactly_the_unsafe_characters() -> None:
    """Every code point: escaped when its category is Cc (but TAB, LF), Cf, Zl, Zp or Cs
    (as this Python's unicodedata has them), kept otherwise."""
    for code in range(sys.maxunicode + 1):
        c = chr(code)
        expected = unicodedata.category(c) in UNSAFE_CATEGORIES and c not in "\t\n"
        shown = visible(c)
        newer = unicodedata.category(c) == "Cn"  # a later Unicode's format character
        assert (shown != c) == expected or newer, hex(code)
        if expected:
            assert shown == repr(c)[1:-1] or shown == f"\\x{code:02x}", hex(code)
            assert shown.isascii() and shown.isprintable()


def test_printable_text_with_tabs_and_line_feeds_is_kept_and_a_control_in_it_is_not() -> None:
    """The fast path (printable but for TAB and LF) keeps what a table prints — dashes,
    arrows, ellipses, degrees — and still escapes a control among them."""
    text = "ARMING_SKIPCHK\t1 → 0\n— cut…\t90°"
    assert visible(text) == text and not has_unsafe(text)
    assert visible(text.replace("→", "\u202e→")) == text.replace("→", "\\u202e→")
    assert visible(text + "\r") == text + "\\x0d"


def test_every_unsafe_character_is_one_isprintable_refuses() -> None:
    """visible's fast path (a printable text, tab and line feed aside, is returned as it is)
    relies on this for every code point the pattern names."""
    printable_unsafe = [
        hex(code)
        for code in range(sys.maxunicode + 1)
        if re.match(UNSAFE, chr(code)) and chr(code).isprintable()
    ]
    assert printable_unsafe == []
    assert visible("a → b\n\tc — d") == "a → b\n\tc — d"
    assert visible("a → b\n\u202e") == "a → b\n\\u202e"


@given(hostile)
def test_visible_leaves_nothing_unsafe_and_keeps_safe_text(text: str) -> None:
    shown = visible(text)
    assert unsafe(shown) == []
    assert has_unsafe(text) == (shown != text)
    if not unsafe(text):
        assert shown == text


# --------------------------------------------------------------------------- each exit point


@given(hostile)
def test_markdown_cells_and_tables(text: str) -> None:
    cell = markdown_cell(text)
    assert unsafe(cell) == [] and "\n" not in cell and "\r" not in cell
    for line in markdown_table(["name", text], [["A", text], [text, "b"]]):
        assert unsafe(line) == [] and "\n" not in line


@given(hostile)
def test_text_tables_escape_before_measuring(text: str) -> None:
    lines = list(table(["name", "value"], [["A", text.replace("\n", " ")], ["B", "1"]], False))
    assert all(unsafe(line) == [] for line in lines)


@given(hostile)
def test_derived_comments(text: str) -> None:
    for line in comment_lines(text):
        assert unsafe(line) == [] and len(line.encode()) <= 98 and line.startswith("#")


@given(hostile)
def test_svg_text(text: str) -> None:
    shown = svg_escape(text)
    bare = shown.replace("&amp;", "").replace("&lt;", "").replace("&gt;", "")
    assert unsafe(shown) == [] and "<" not in shown and "&" not in bare


@given(hostile)
def test_review_markdown_and_json(text: str) -> None:
    profile = ProfileReview(profile="boat", pin="1.0", derived="derived/boat_sitl.params")
    profile.attention.append(Attention(text, text, file=text, line=3))
    review = Review(base=text, base_commit="0" * 40, profiles=[profile])
    review.attention.append(Attention(text, "fix " + text))
    for line in render_markdown(review, text):
        assert unsafe(line) == []
    document = "\n".join(render_json(review))
    assert document.isascii() and unsafe(document) == []
    assert json.loads(document)["attention"][0]["what"] == text  # escaped, not changed


@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hostile)
def test_the_sinks_write_and_print_nothing_raw(tmp_path: Path, text: str) -> None:
    lines = [f"# {text}", text, "NAME 1"]
    target = tmp_path / "out.txt"
    statuses = list(emit(lines, Output(target, "out.txt", "fix"), check=False))
    assert unsafe(target.read_text()) == []
    assert target.read_text() == join_lines(lines)
    # --check compares the same visible bytes: the file just written is up to date
    assert list(emit(lines, Output(target, "out.txt", "fix"), check=True))[-1][1]
    assert all(unsafe(t) == [] for t, _ in statuses)
    assert all(unsafe(t) == [] for t, _ in emit(lines, Output(None, "-", "fix"), check=False))


file_names = st.text(  # no lone surrogates: a file name on disk is valid UTF-8 here
    st.one_of(
        st.characters(categories=("Cc", "Cf", "Zl", "Zp")), st.characters(categories=("L", "N"))
    ),
    min_size=1,
    max_size=12,
).filter(lambda s: "\x00" not in s and "/" not in s and s not in (".", ".."))


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(file_names)
def test_stdout_and_stderr_of_commands(tmp_path: Path, name: str) -> None:
    """A file's name is every table's column header and every error's subject."""
    hw = FIXTURES / "hardware.params"
    a = tmp_path / f"{name}.params"
    a.write_bytes(hw.read_bytes())
    for fmt in ("text", "markdown", "csv", "json"):
        out = run_cli(["diff", "--format", fmt, str(a), str(hw)])
        assert out.exit_code in (0, 1), out.output
        assert unsafe(out.output) == [], fmt
    missing = run_cli(["show", str(tmp_path / f"{name}-missing.params")])
    assert missing.exit_code == 2 and unsafe(missing.output) == []
    if name not in ("text", "markdown", "csv", "json"):  # hypothesis drew 'text': a real format
        usage = run_cli(["diff", "--format", name, str(a), str(hw)])  # argparse's own error
        assert usage.exit_code == 2 and unsafe(usage.output) == []


def test_a_real_pipe_and_stderr_get_no_escape_byte(tmp_path: Path) -> None:
    a = tmp_path / f"{NASTY}.params"
    a.write_bytes((FIXTURES / "hardware.params").read_bytes())
    done = subprocess.run(
        [sys.executable, "-m", "paramdiff", "diff", str(a), str(FIXTURES / "hardware.params")],
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    assert b"\x1b" not in done.stdout and b"\xc2\x9b" not in done.stdout
    assert b"\\x1b[31mred" in done.stdout
    done = subprocess.run(
        [sys.executable, "-m", "paramdiff", "show", str(tmp_path / f"{NASTY}.missing")],
        capture_output=True,
    )
    assert done.returncode == 2 and b"\x1b" not in done.stderr and b"\x07" not in done.stderr


def test_a_project_whose_inputs_carry_them_writes_and_prints_none(
    project: Path, tmp_path: Path
) -> None:
    """Issue #19's instance and its class: a profile description, the vehicle noun, a
    category, an overlay section and a delta's reason, all carrying NASTY (as YAML escapes),
    reach stdout, reports/*.md, *.svg and the derived file only as visible text."""
    from helpers import location_args

    escaped = '"' + visible(NASTY) + '"'  # a YAML double-quoted scalar: the same escapes
    sources = project / "sources.yaml"
    text = sources.read_text().replace(
        "    overlay: overlays/boat.yaml\n",
        f"    description: {escaped}\n    vehicle_noun: {escaped}\n"
        "    overlay: overlays/boat.yaml\n",
    )
    text = text.replace("rule: the rest", f"rule: {escaped}")
    sources.write_text(text)
    overlay = project / "overlays" / "boat.yaml"
    overlay.write_text(
        overlay.read_text()
        .replace("{name: frame,", f"{{name: {escaped},")
        .replace("reason: one unit's neutral; the model is neutral at 1500", f"reason: {escaped}")
    )
    loc = location_args(project, tmp_path / "c", tmp_path / "mirror")
    printed = []
    for command in (["fetch"], ["derive"], ["report"], ["compare", "three-way"], ["check"]):
        out = run_cli([*command, *loc])
        assert out.exit_code == 0, (command, out.output)
        printed.append(out.output)
    more = (["compare", "three-way", "--format", "markdown"], ["history", "SERVO*"])
    for command in more:
        printed.append(run_cli([*command, *loc]).output)
    assert all(unsafe(text) == [] for text in printed)
    written = [p for p in project.rglob("*") if p.is_file()]
    assert {p.suffix for p in written} >= {".md", ".svg", ".params", ".lock"}
    for path in written:
        assert unsafe(path.read_text()) == [], path
    report = (project / "reports" / "boat-1.0.md").read_text()
    assert visible(NASTY) in report  # the description, made visible
    assert "\\x1b[31mred" in (project / "derived" / "boat_sitl.params").read_text()


def test_metadata_labels_and_display_names_reach_nothing_raw(tmp_path: Path) -> None:
    """Issue #19's first instance: a metadata display name and enum label (apm.pdef.json,
    downloaded) carrying NASTY, through the three-way table in every format, validate, derive,
    report (and its SVG) and check."""
    from helpers import OVERLAY_YAML, build_mirror, location_args
    from test_offline_project import AP, offline_sources, offline_upstream

    repos = offline_upstream()
    files = repos["acme/meta"]["files"][AP]  # type: ignore[index]
    meta = files["Rover-4.7/apm.pdef.json"].decode()
    for label in ("Servo output function", "ThrottleLeft", "Frame Class", "Boat"):
        meta = meta.replace(f'"{label}"', json.dumps(f"{label} {NASTY}"))
    files["Rover-4.7/apm.pdef.json"] = meta.encode()
    root = tmp_path / "project"
    (root / "overlays").mkdir(parents=True)
    (root / "sources.yaml").write_text(offline_sources())
    (root / "overlays" / "boat.yaml").write_text(OVERLAY_YAML)
    build_mirror(tmp_path / "mirror", repos)
    loc = location_args(root, tmp_path / "cache", tmp_path / "mirror")
    printed = []
    for command in (
        ["fetch"],
        ["derive"],
        ["report"],
        ["check"],
        *(["compare", "three-way", "--format", f] for f in ("text", "markdown", "csv", "json")),
        ["validate", str(root / "derived" / "boat_sitl.params")],
        ["layers"],
    ):
        out = run_cli([*command, *loc])
        assert out.exit_code in (0, 1), (command, out.output)
        printed.append(out.output)
    assert "\\x1b[31mred" in printed[5]  # the markdown table shows the label, made visible
    assert all(unsafe(text) == [] for text in printed)
    for path in (p for p in root.rglob("*") if p.is_file()):
        assert unsafe(path.read_text()) == [], path
    assert "\\x1b[31mred" in (root / "reports" / "boat-1.0.md").read_text()
