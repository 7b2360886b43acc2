"""The parsed-metadata cache (paramdiff/fetch/parsed.py, its entries kept as
fetch/cache.py keeps them): an entry is used only when its header and digest verify; a
corrupt, tampered, moved or outdated entry is rebuilt from the verified source bytes, never
trusted."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from helpers import DAMAGED_ENTRIES, FIXTURES, run_cli
from test_offline_project import fetched_offline_project

from paramdiff.errors import InputError
from paramdiff.fetch.cache import PARSED_FORMAT, Cache
from paramdiff.fetch.parsed import ENTRIES_KIND, METADATA_KIND, LazyParams, load_metadata
from paramdiff.model.metadata import label_tables_of, parse_pdef

PDEF = (FIXTURES / "offline" / "meta.pdef.json").read_bytes()
SHA = hashlib.sha256(PDEF).hexdigest()
FILE = "Rover-4.7/apm.pdef.json"


def load(cache: Cache):  # type: ignore[no-untyped-def]
    return load_metadata(cache, SHA, PDEF, FILE, "4.7")


def expected() -> dict[str, dict[str, object]]:
    return dict(parse_pdef(PDEF, FILE, "4.7").params)


def entry(cache: Cache) -> Path:
    return cache.parsed_path(METADATA_KIND, SHA)


def forge(
    cache: Cache,
    payload: bytes,
    source_sha: str = SHA,
    fmt: str = PARSED_FORMAT,
    kind: str = METADATA_KIND,
    at: str = SHA,
) -> None:
    """An entry whose header is consistent with ``payload`` (what only a deliberate writer of
    the cache directory could produce), kept for the source bytes whose sha256 is ``at``."""
    digest = hashlib.sha256(payload).hexdigest()
    path = cache.parsed_path(kind, at)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(f"{fmt} {kind} {source_sha} {digest}\n".encode() + payload)


def forge_metadata(
    cache: Cache,
    head: bytes,
    tables: bytes = b"",
    entries: bytes = b"{}",
    ranges: bytes = b"[null]",
) -> None:
    """A metadata entry of ``head`` (names, flags, display names, units, starts), the digest of
    ``entries``, ``ranges`` and ``tables``, and ``entries`` as its entries' entry."""
    forge(cache, entries, kind=ENTRIES_KIND)
    digest = json.dumps(hashlib.sha256(entries).hexdigest()).encode()
    forge(cache, head + b"\n" + digest + b"\n" + ranges + b"\n" + tables)


ONE_NAME = b'["SERVO1_FUNCTION"]\n{}\n[""]\n'


def test_first_load_parses_and_writes_the_entry_the_second_reads_it(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    first = load(cache)
    assert dict(first.params) == expected()
    assert entry(cache).read_bytes().startswith(f"{PARSED_FORMAT} {METADATA_KIND} {SHA} ".encode())
    second = load(cache)
    assert isinstance(second.params, LazyParams)  # read from the entry, not parsed again
    assert dict(second.params) == expected()
    assert second.label("SERVO1_FUNCTION", 73) == first.label("SERVO1_FUNCTION", 73)
    assert "SERVO1_FUNCTION" in second and "NOPE" not in second
    assert second.params.get("NOPE") is None and len(second.params) == len(expected())
    for flag in ("RebootRequired", "Calibration", "ReadOnly", "NoSuchFlag"):
        assert second.flagged(flag) == first.flagged(flag)
    assert second.flagged("RebootRequired") == {"FRAME_CLASS"}


@pytest.mark.parametrize(
    "damage",
    [
        *DAMAGED_ENTRIES,
        lambda b: b.replace(b"Servo output function", b"Servo output functioN"),  # one byte
    ],
)
def test_a_corrupt_entry_is_rebuilt(tmp_path: Path, damage) -> None:  # type: ignore[no-untyped-def]
    cache = Cache(tmp_path)
    load(cache)
    good = entry(cache).read_bytes()
    entry(cache).write_bytes(damage(good))
    assert dict(load(cache).params) == expected()
    assert entry(cache).read_bytes() == good  # rewritten from the source


def test_a_tampered_value_is_not_trusted(tmp_path: Path) -> None:
    """An edited value with the old digest left in the header: the real value wins."""
    cache = Cache(tmp_path)
    load(cache)
    good = entry(cache).read_bytes()
    entry(cache).write_bytes(good.replace(b'"73":"ThrottleLeft"', b'"73":"ThrottleRight"'))
    assert load(cache).label("SERVO1_FUNCTION", 73) == "73 (ThrottleLeft)"
    assert entry(cache).read_bytes() == good


def test_an_entry_for_other_bytes_or_another_format_is_not_used(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    load(cache)
    good = entry(cache).read_bytes()
    payload = good.split(b"\n", 1)[1].replace(b"ThrottleLeft", b"Forged")
    forge(cache, payload, source_sha="0" * 64)  # consistent, but built from other bytes
    assert load(cache).label("SERVO1_FUNCTION", 73) == "73 (ThrottleLeft)"
    forge(cache, payload, fmt="paramdiff-parsed 0")  # an older format
    assert load(cache).label("SERVO1_FUNCTION", 73) == "73 (ThrottleLeft)"
    forge_metadata(cache, b'["A","B"]\n{}\n["",""]\n[null]\n[0,0]')  # names, units disagree
    assert dict(load(cache).params) == expected()
    assert entry(cache).read_bytes() == good


@pytest.mark.parametrize(
    "summary",
    [
        b'[""]\n[null,null]\n[0]',  # more units than names
        b'[""]\n[0]',  # a line missing
        b"[7]\n[null]\n[0]",  # a display name that is not text
        b'[""]\n[{}]\n[0]',  # units that are neither text nor null
    ],
)
def test_a_forged_summary_that_does_not_fit_is_not_used(tmp_path: Path, summary: bytes) -> None:
    cache = Cache(tmp_path)
    load(cache)
    good = entry(cache).read_bytes()
    forge_metadata(cache, b'["SERVO1_FUNCTION"]\n{}\n' + summary)
    assert load(cache).label("SERVO1_FUNCTION", 73) == "73 (ThrottleLeft)"
    assert entry(cache).read_bytes() == good


@pytest.mark.parametrize(
    "tables",
    [
        b"0",  # not a table
        b'[[[73.0, "ThrottleLeft"]], []]',  # two items
        b'[[[73.0, "ThrottleLeft", 1]], [], ""]',  # not a pair
        b'[[["73", "ThrottleLeft"]], [], ""]',  # a text key
        b'[[[73.0, 7]], [], ""]',  # a number for a name
        b'[[], [[1.5, "A"]], ""]',  # a fractional bit
        b"[[], [], 7]",  # units as a number
        b'[[], [], ""] trailing',
    ],
)
def test_forged_label_tables_are_the_entry_error(tmp_path: Path, tables: bytes) -> None:
    cache = Cache(tmp_path)
    forge_metadata(cache, ONE_NAME + b"[0]\n[0]", tables)
    with pytest.raises(InputError):
        load(cache).label("SERVO1_FUNCTION", 73)


@pytest.mark.parametrize("number", [b"1", b"-1"])
def test_a_table_number_pointing_nowhere_is_the_entry_error(tmp_path: Path, number: bytes) -> None:
    cache = Cache(tmp_path)
    forge_metadata(cache, ONE_NAME + b"[" + number + b"]\n[0]", b'[[], [], ""]')
    with pytest.raises(InputError):
        load(cache).label("SERVO1_FUNCTION", 73)


def test_a_label_comes_from_its_table_or_else_from_its_entry(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    entry_line = b'{"Values":{"73":"FromEntry"}}'
    forge_metadata(cache, ONE_NAME + b"[null]\n[0]", entries=entry_line)
    assert load(cache).label("SERVO1_FUNCTION", 73) == "73 (FromEntry)"
    tables = b'[[[73.0, "FromTables"]], [], ""]'
    forge_metadata(cache, ONE_NAME + b"[0]\n[0]", tables, entry_line)
    assert load(cache).label("SERVO1_FUNCTION", 73) == "73 (FromTables)"
    assert label_tables_of({"Values": ["not", "an", "object"]}) is None


def test_parameters_share_their_label_tables(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    load(cache)
    units = json.loads(entry(cache).read_bytes().split(b"\n")[4])
    assert units.count(units[list(expected()).index("SERVO1_REVERSED")]) == 2  # SERVO3 too


def test_the_summary_gives_what_the_whole_entry_gives(tmp_path: Path) -> None:
    """Display names and labels from the entry's summary (no entry decoded) are the ones
    the parsed file gives, for every parameter, an enum, a bitmask and a plain number."""
    cache = Cache(tmp_path)
    fresh = load(cache)
    cached = load(cache)
    assert isinstance(cached.params, LazyParams)
    for name in [*expected(), "NOPE"]:
        assert cached.display_name(name) == fresh.display_name(name)
        for value in (0, 1, 3, 73, 2.5, -1):
            assert cached.label(name, value) == fresh.label(name, value)
            info = fresh.get(name)
            assert cached.label(name, value) == (info.label(value) if info else str(value))


def test_a_forged_malformed_line_is_an_error_naming_the_entry(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    forge_metadata(cache, ONE_NAME + b"[null]\n[0]", entries=b"not json")
    meta = load(cache)
    with pytest.raises(InputError) as exc:
        meta.get("SERVO1_FUNCTION")
    assert exc.value.fix == f"delete {entry(cache)} (it is rebuilt from the verified source)"
    # line starts pointing wrong, not a list, or not one a name (checked when first needed)
    for starts in (b"[5]", b"[-1]", b'["0"]', b"[1.5]", b"{}", b"[0, 1]", b"[0"):
        forge_metadata(cache, ONE_NAME + b"[null]\n" + starts)
        with pytest.raises(InputError):
            load(cache).get("SERVO1_FUNCTION")
    forge_metadata(cache, b'["A","B"]\n{}\n["",""]\n[null,null]\n[0,1]', entries=b"{}\n{}")
    with pytest.raises(InputError):
        load(cache).get("A")
    # an index pointing nowhere
    forge_metadata(cache, b'["SERVO1_FUNCTION"]\n{"Calibration":[7]}\n[""]\n[null]\n[0]')
    with pytest.raises(InputError):
        load(cache).flagged("Calibration")


def test_an_unwritable_cache_still_gives_the_metadata(tmp_path: Path) -> None:
    blocker = tmp_path / "parsed"
    blocker.write_text("a file where the folder would go")
    cache = Cache(tmp_path)
    assert dict(load(cache).params) == expected()
    assert dict(load(cache).params) == expected()


def test_compare_never_shows_a_tampered_label(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end: the enum label in `compare three-way` comes from the verified source even
    when the parsed entry in the cache was edited (the second run reads the entry)."""
    _, loc = fetched_offline_project(tmp_path)
    first = run_cli(["compare", "three-way", *loc])
    assert first.exit_code == 0, first.output
    assert "(ThrottleLeft)" in first.output
    (path,) = (tmp_path / "cache" / "parsed" / METADATA_KIND).glob("*/*")
    path.write_bytes(path.read_bytes().replace(b"ThrottleLeft", b"ThrottleLefT"))
    again = run_cli(["compare", "three-way", *loc])
    assert again.output == first.output
    assert b"ThrottleLeft" in path.read_bytes()  # rebuilt
    assert json.loads(path.read_bytes().split(b"\n")[1]) == list(expected())


def test_an_entry_that_is_not_a_regular_file_is_a_miss(tmp_path: Path) -> None:
    """A FIFO where the entry goes (reading or writing it would block) is passed over."""
    import os

    cache = Cache(tmp_path)
    entry(cache).parent.mkdir(parents=True)
    os.mkfifo(entry(cache))
    assert dict(load(cache).params) == expected()


def test_a_link_where_the_entry_goes_is_never_written_through(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.write_bytes(b"not yours")
    cache = Cache(tmp_path / "cache")
    entry(cache).parent.mkdir(parents=True)
    entry(cache).symlink_to(target)
    assert dict(load(cache).params) == expected()
    assert target.read_bytes() == b"not yours"


def entries_entry(cache: Cache) -> Path:
    return cache.parsed_path(ENTRIES_KIND, SHA)


def test_labels_read_no_entries_and_a_lookup_rebuilds_missing_or_damaged_ones(
    tmp_path: Path,
) -> None:
    """The names' own lines are a second entry: a label never reads it; a name's metadata
    does, and a missing, damaged or stale one is made again from the source."""
    cache = Cache(tmp_path)
    load(cache)
    good = entries_entry(cache).read_bytes()
    entries_entry(cache).unlink()
    meta = load(cache)
    assert meta.label("SERVO1_FUNCTION", 73) == "73 (ThrottleLeft)"
    assert meta.display_name("SERVO1_FUNCTION") == "Servo output function"
    fresh = parse_pdef(PDEF, FILE, "4.7")
    for name in ("ARMING_CHECK", "SERVO1_MIN", "SERVO1_FUNCTION", "NOPE"):  # what renames read
        bits, info = meta.bits_of(name), fresh.get(name)
        assert (bits is None) == (info is None)
        assert bits is None or info is None or bits.bitmask == info.bitmask
    assert not entries_entry(cache).exists()
    assert dict(meta.params) == expected()
    assert entries_entry(cache).read_bytes() == good
    for damaged in (good[:-9], good.replace(b"Servo", b"Serv0")):
        entries_entry(cache).write_bytes(damaged)
        assert dict(load(cache).params) == expected()
        assert entries_entry(cache).read_bytes() == good
    forge(cache, good.split(b"\n", 1)[1].replace(b"Servo", b"Serv0"), kind=ENTRIES_KIND)
    assert dict(load(cache).params) == expected()  # consistent, but not what the head names
    assert entries_entry(cache).read_bytes() == good


def test_a_head_naming_other_entries_is_the_entry_error(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    forge_metadata(cache, ONE_NAME + b"[null]\n[0]")
    payload = entry(cache).read_bytes().split(b"\n", 1)[1].split(b"\n")
    payload[5] = json.dumps("0" * 64).encode()  # the entries' digest, forged
    forge(cache, b"\n".join(payload))
    with pytest.raises(InputError):
        load(cache).get("SERVO1_FUNCTION")


DEEP = b"[" * 200_000 + b"]" * 200_000  # valid JSON, nested past the parser's recursion limit


def test_an_entry_nested_too_deep_is_a_miss_or_the_entry_error(tmp_path: Path) -> None:
    """A forged entry (its digest recomputed) nesting past the JSON parser's depth is what any
    other damaged entry is: rebuilt from the source, or the entry's own error, never a bug."""
    cache = Cache(tmp_path)
    forge_metadata(cache, DEEP + b'\n{}\n[""]\n[null]\n[0]')  # the names line
    assert dict(load(cache).params) == expected()  # a miss: rebuilt
    for starts in (DEEP, b'["0"]'):  # nested too deep; strings where offsets go
        forge_metadata(cache, ONE_NAME + b"[null]\n" + starts)
        with pytest.raises(InputError, match="malformed"):
            load(cache).get("SERVO1_FUNCTION")
    forge_metadata(cache, ONE_NAME + b"[0]\n[0]", b'[[], [], ""]', ranges=DEEP)
    with pytest.raises(InputError, match="malformed"):
        load(cache).problems("SERVO1_FUNCTION", 73)


# --------------------------------------------------------------------------- metadata bytes


def offline_project(tmp_path: Path) -> tuple[list[str], Path]:
    """The offline boat project fetched and compared once (every parsed entry written); its
    location args and the cache entry of its metadata's bytes."""
    _, loc = fetched_offline_project(tmp_path)
    for command in (["derive"], ["compare", "three-way"]):
        assert run_cli([*command, *loc]).exit_code == 0
    return loc, Cache(tmp_path / "cache").path_for(SHA)


@pytest.mark.parametrize("command", [["compare", "three-way"], ["derive", "--check"]])
@pytest.mark.parametrize("damage", ["flip", "truncate", "delete", "directory", "fifo"])
def test_metadata_bytes_are_verified_though_their_parsed_entry_is_warm(
    tmp_path: Path, command: list[str], damage: str
) -> None:
    """The metadata's bytes are hashed (not kept) when its parsed entry serves: damaged bytes
    are a miss all the same, refused offline and fetched again from the mirror."""
    loc, cached = offline_project(tmp_path)
    data = cached.read_bytes()
    if damage == "flip":
        cached.write_bytes(data[:100] + bytes([data[100] ^ 1]) + data[101:])
    elif damage == "truncate":
        cached.write_bytes(data[:-1])
    else:
        cached.unlink()
        if damage == "directory":
            (cached / "inner").mkdir(parents=True)
        elif damage == "fifo":
            os.mkfifo(cached)
    offline = run_cli([*command, *loc[:4], "--offline"])
    assert offline.exit_code == 2, offline.output
    assert "Rover-4.7/apm.pdef.json" in offline.output
    assert "is not in the cache and --offline forbids the network" in offline.output
    again = run_cli([*command, *loc])
    assert again.exit_code == 0, again.output
    assert cached.is_file() and cached.read_bytes() == data


def test_validating_reads_the_head_and_gives_what_the_whole_entry_gives(tmp_path: Path) -> None:
    """Metadata.problems / read_only from the summary, label tables and ranges (no entry
    decoded) are what ParamMeta gives, for every parameter and a value set around each
    limit; an entry whose label tables are not objects is read whole, as before."""
    extra = {
        "PRESET": {"Values": {"0": "Slow", "9": "Fast"}, "Range": {"low": "0", "high": "9"}},
        "ODD_RANGE": {"Range": {"low": "-1e3", "high": " 1e3 "}},
        "NO_RANGE": {"Range": {"low": "x", "high": "1"}},
        "LISTED": {"Values": ["not", "an", "object"], "Range": {"low": "0", "high": "2"}},
        "LOCKED": {"ReadOnly": "1", "Bitmask": {"0": "A", "3": "D"}},
    }
    doc = {**json.loads(PDEF), "Extra": extra}
    data = json.dumps(doc).encode()
    sha = hashlib.sha256(data).hexdigest()
    cache = Cache(tmp_path)
    fresh = load_metadata(cache, sha, data, FILE, "4.7")
    cached = load_metadata(cache, sha, data, FILE, "4.7")
    assert isinstance(cached.params, LazyParams)
    names = [*fresh.params, "NOPE"]
    values = (0, 1, 2, 3, 9, 73, 2.5, -1, 499, 500, 2200, 2201, 8, 9.5, 1e4, 1 << 40)

    def outcome(problems, name: str, value: float) -> object:  # type: ignore[no-untyped-def]
        try:
            return problems(name, value)
        except AttributeError as exc:  # LISTED: ParamMeta cannot read a list of values
            return str(exc)

    def whole(name: str, value: float) -> object:
        info = fresh.get(name)
        return info.problems(value) if info else None

    for name in names:
        for value in values:
            assert outcome(cached.problems, name, value) == outcome(whole, name, value)
        info = fresh.get(name)
        assert cached.read_only(name) == bool(info and info.read_only)
    assert cached.params._decoded.keys() == {"LISTED"}  # its Values are not an object


@pytest.mark.parametrize(
    "ranges",
    [
        b"[[0, 1]]",  # ints
        b"[[0.0]]",  # one number
        b"[]",  # no row
        b'["0.0 1.0"]',  # text
        b"nope",
        b"[[0.0, 1.0], null]",  # two rows for one name
        b"{}",
        b"[[[0.0, 1.0]]]",  # a list of rows for a row
        b"[[0.0, 1.0]] x",
    ],
)
def test_forged_ranges_are_the_entry_error(tmp_path: Path, ranges: bytes) -> None:
    cache = Cache(tmp_path)
    forge_metadata(cache, ONE_NAME + b"[0]\n[0]", b'[[], [], ""]', ranges=ranges)
    with pytest.raises(InputError):
        load(cache).problems("SERVO1_FUNCTION", 73)
    forge_metadata(cache, ONE_NAME + b"[0]\n[0]", b'[[], [], ""]', ranges=b"[[0.0, 9.0]]")
    assert load(cache).problems("SERVO1_FUNCTION", 73) == ["73 is outside its range 0..9"]
