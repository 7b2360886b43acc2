"""The thruster workbook's parsed sheets, kept per sha256 of its bytes
(paramdiff/fetch/thrust_sheets.py, entries as fetch/cache.py keeps them): what the cache gives
is what parsing the bytes gives, to the last bit of every float; an entry that fails any check
is rebuilt from the bytes, never used; a workbook that does not parse fails on every run."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from helpers import (
    DAMAGED_ENTRIES,
    OVERLAY_YAML,
    SOURCES_YAML,
    build_mirror,
    location_args,
    run_cli,
    small_upstream,
)
from test_thrust_table import T200, workbook

from paramdiff.errors import InputError
from paramdiff.fetch.cache import PARSED_FORMAT, Cache
from paramdiff.fetch.thrust_sheets import SHEETS_KIND, load_sheets, thrust_curve
from paramdiff.parse.thrust_table import parse_thrust_table, workbook_sheets

FILE = "t200.xlsx"
# Forces no short decimal holds exactly (a third, a tenth): json must round-trip them.
ROWS_12 = [(1100, -1 / 3), (1500, 0.0), (1900, 0.1 + 0.2)]
ROWS_16 = [(1100, -2 / 3), (1500, 0.0), (1900, 1.1 * 3)]
BOOK = workbook({"16 V": ROWS_16, "12 V": ROWS_12, "Notes": [(1, 1)]})
SHA = hashlib.sha256(BOOK).hexdigest()


def entry(cache: Cache, sha: str = SHA) -> Path:
    return cache.parsed_path(SHEETS_KIND, sha)


def forge(cache: Cache, payload: bytes, source_sha: str = SHA, fmt: str = PARSED_FORMAT) -> None:
    """An entry whose header agrees with ``payload``: what only a deliberate writer of the
    cache directory makes."""
    digest = hashlib.sha256(payload).hexdigest()
    path = entry(cache)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(f"{fmt} {SHEETS_KIND} {source_sha} {digest}\n".encode() + payload)


def test_the_kept_sheets_are_the_parse_of_the_bytes(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    parsed = workbook_sheets(BOOK, FILE)
    assert [s.name for s in parsed] == ["12 V", "16 V"]  # by volts; the notes sheet is not one
    assert load_sheets(cache, SHA, BOOK, FILE) == parsed  # parsed, and the entry written
    assert entry(cache).read_bytes().startswith(f"{PARSED_FORMAT} {SHEETS_KIND} {SHA} ".encode())
    # Read from the entry: the bytes given are not parsed again (these are no workbook at all).
    assert load_sheets(cache, SHA, b"PK\x03\x04 not read", FILE) == parsed


@pytest.mark.parametrize("voltage", [12, 13, 14.8, 16])
def test_every_voltage_s_curve_from_the_cache_equals_the_parse(
    tmp_path: Path, voltage: float
) -> None:
    """Every sheet is kept, so another voltage in sources.yaml reads no workbook."""
    cache = Cache(tmp_path)
    thrust_curve(cache, SHA, BOOK, FILE, 16)  # writes the entry
    assert thrust_curve(cache, SHA, BOOK, FILE, voltage) == parse_thrust_table(BOOK, FILE, voltage)


@pytest.mark.parametrize(
    "damage",
    [
        *DAMAGED_ENTRIES,
        lambda b: b.replace(b'"volts":16.0', b'"volts":15.0'),  # an edit, the old digest kept
    ],
)
def test_a_damaged_entry_is_rebuilt_not_used(tmp_path: Path, damage) -> None:  # type: ignore[no-untyped-def]
    cache = Cache(tmp_path)
    load_sheets(cache, SHA, BOOK, FILE)
    good = entry(cache).read_bytes()
    entry(cache).write_bytes(damage(good))
    assert load_sheets(cache, SHA, BOOK, FILE) == workbook_sheets(BOOK, FILE)
    assert entry(cache).read_bytes() == good  # rewritten from the source


def kept_rows(cache: Cache) -> list[dict[str, object]]:
    load_sheets(cache, SHA, BOOK, FILE)
    rows: list[dict[str, object]] = json.loads(entry(cache).read_bytes().split(b"\n", 1)[1])
    return rows


def test_an_entry_for_other_bytes_or_another_format_is_not_used(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    rows = kept_rows(cache)
    good = entry(cache).read_bytes()
    rows[1]["thrust_n"] = [0.0, 0.0, 1000.0]
    payload = json.dumps(rows).encode()
    for header in ({"source_sha": "0" * 64}, {"fmt": "paramdiff-parsed 0"}):
        forge(cache, payload, **header)  # type: ignore[arg-type]
        assert load_sheets(cache, SHA, BOOK, FILE) == workbook_sheets(BOOK, FILE)
        assert entry(cache).read_bytes() == good


def _unsorted(rows: list[dict[str, object]]) -> None:
    rows.reverse()


def _ints(rows: list[dict[str, object]]) -> None:
    rows[0]["pwm_us"] = [1100, 1500, 1900]


def _falling(rows: list[dict[str, object]]) -> None:
    rows[0]["pwm_us"] = [1900.0, 1500.0, 1100.0]


def _short(rows: list[dict[str, object]]) -> None:
    rows[0]["thrust_n"] = [0.0, 1.0]


def _one_point(rows: list[dict[str, object]]) -> None:
    rows[0]["pwm_us"], rows[0]["thrust_n"] = [1500.0], [0.0]


def _no_name(rows: list[dict[str, object]]) -> None:
    del rows[0]["name"]


def _extra(rows: list[dict[str, object]]) -> None:
    rows[0]["more"] = 1


def _text_volts(rows: list[dict[str, object]]) -> None:
    rows[0]["volts"] = "12"


def _renamed(rows: list[dict[str, object]]) -> None:
    rows[0]["name"] = "12 V -->\n<model>"  # no sheet name the parser reads: not its output


def _other_volts(rows: list[dict[str, object]]) -> None:
    rows[0]["volts"] = 11.0  # the name says 12 V


def _empty(rows: list[dict[str, object]]) -> None:
    rows.clear()


@pytest.mark.parametrize(
    "edit",
    [
        _unsorted,
        _ints,
        _falling,
        _short,
        _one_point,
        _no_name,
        _extra,
        _text_volts,
        _renamed,
        _other_volts,
        _empty,
    ],
)
def test_a_forged_entry_that_is_not_a_parse_is_not_used(tmp_path: Path, edit) -> None:  # type: ignore[no-untyped-def]
    """Valid JSON under a consistent header, but not sheets curve_at_voltage can trust."""
    cache = Cache(tmp_path)
    rows = kept_rows(cache)
    good = entry(cache).read_bytes()
    edit(rows)
    forge(cache, json.dumps(rows).encode())
    assert load_sheets(cache, SHA, BOOK, FILE) == workbook_sheets(BOOK, FILE)
    assert entry(cache).read_bytes() == good


@pytest.mark.parametrize("payload", [b"[1, 2", b"NaN", b'{"sheets": []}', b"[[1]]", b"\xff"])
def test_a_forged_entry_that_is_not_sheets_at_all_is_not_used(
    tmp_path: Path, payload: bytes
) -> None:
    good = Cache(tmp_path / "fresh")
    load_sheets(good, SHA, BOOK, FILE)
    cache = Cache(tmp_path / "forged")
    forge(cache, payload)
    assert load_sheets(cache, SHA, BOOK, FILE) == workbook_sheets(BOOK, FILE)
    assert entry(cache).read_bytes() == entry(good).read_bytes()


def test_a_workbook_that_does_not_parse_fails_every_time_and_nothing_is_kept(
    tmp_path: Path,
) -> None:
    cache = Cache(tmp_path)
    broken = BOOK[:500]
    sha = hashlib.sha256(broken).hexdigest()
    for _ in range(2):
        with pytest.raises(InputError, match="not a readable xlsx workbook"):
            thrust_curve(cache, sha, broken, FILE, 16)
        assert not entry(cache, sha).exists()


def test_a_bench_csv_is_parsed_as_it_is(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    data = b"pwm_us,thrust_n\n1100,-30\n1500,0\n1900,40\n"
    sha = hashlib.sha256(data).hexdigest()
    assert thrust_curve(cache, sha, data, "b.csv", 16) == parse_thrust_table(data, "b.csv", 16)
    assert not (tmp_path / "parsed").exists()


def test_the_t200_workbook_from_the_cache(upstream: Path, tmp_path: Path) -> None:
    data = (upstream / T200).read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    cache = Cache(tmp_path)
    parsed = workbook_sheets(data, FILE)
    assert load_sheets(cache, sha, data, FILE) == parsed
    assert load_sheets(cache, sha, b"", FILE) == parsed  # from the entry
    assert [s.volts for s in parsed] == [10, 12, 14, 16, 18, 20]
    for voltage in (14.8, 16):
        assert thrust_curve(cache, sha, data, FILE, voltage) == parse_thrust_table(
            data, FILE, voltage
        )


# -- the project: an unreadable workbook is one error line, on every run

THRUSTERS = "    thrusters: {role: t200, voltage: 16, voltage_reason: 4S nominal}\n"
T200_ROLE = (
    "        t200: {repo: acme/params, ref: master, path: t200.xlsx, format: thrust_table}\n"
)


def project(tmp_path: Path, book: bytes) -> list[str]:
    """The small boat project with a thrusters block reading ``book``, fetched."""
    root = tmp_path / "project"
    (root / "overlays").mkdir(parents=True)
    sources = SOURCES_YAML.replace("    pins:\n", THRUSTERS + "    pins:\n") + T200_ROLE
    (root / "sources.yaml").write_text(sources)
    (root / "overlays" / "boat.yaml").write_text(OVERLAY_YAML)
    repos = small_upstream()
    for files in repos["acme/params"]["files"].values():  # type: ignore[union-attr]
        files["t200.xlsx"] = book
    build_mirror(tmp_path / "mirror", repos)
    loc = location_args(root, tmp_path / "cache", tmp_path / "mirror")
    fetched = run_cli(["fetch", *loc])
    assert fetched.exit_code == 0, fetched.output
    return loc


def test_the_project_s_report_is_the_same_from_the_kept_sheets(tmp_path: Path) -> None:
    loc = project(tmp_path, BOOK)
    report = tmp_path / "project" / "reports" / "boat-1.0.md"
    first = run_cli(["report", *loc])
    assert first.exit_code == 0, first.output
    written = report.read_bytes()
    assert entry(Cache(tmp_path / "cache")).exists()
    report.unlink()
    assert run_cli(["report", *loc]).exit_code == 0
    assert report.read_bytes() == written


def test_an_unreadable_workbook_is_one_error_line_and_exit_2_every_run(tmp_path: Path) -> None:
    loc = project(tmp_path, BOOK[:500])
    for _ in range(2):
        result = run_cli(["report", *loc])
        assert result.exit_code == 2
        errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
        assert len(errors) == 1, result.output
        assert "t200.xlsx:1: not a readable xlsx workbook" in errors[0]
        assert "Traceback" not in result.output
    assert not (tmp_path / "cache" / "parsed" / SHEETS_KIND).exists()
