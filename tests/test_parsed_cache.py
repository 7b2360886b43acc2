"""The parsed-metadata cache (paramdiff/upstream/parsed.py): an entry is used only when its
header and digest verify; a corrupt, tampered, moved or outdated entry is rebuilt from the
verified source bytes, never trusted."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from helpers import FIXTURES, OVERLAY_YAML, build_mirror, location_args, run_cli
from test_offline_project import offline_sources, offline_upstream

from paramdiff.config.yamlfile import YAML_KIND, load_yaml
from paramdiff.errors import InputError
from paramdiff.files import parsed_entry_path
from paramdiff.model.metadata import parse_pdef
from paramdiff.upstream.cache import Cache
from paramdiff.upstream.parsed import (
    FORMAT,
    METADATA_KIND,
    LazyParams,
    load_metadata,
    parsed_path,
)

PDEF = (FIXTURES / "offline" / "meta.pdef.json").read_bytes()
SHA = hashlib.sha256(PDEF).hexdigest()
FILE = "Rover-4.7/apm.pdef.json"


def load(cache: Cache):  # type: ignore[no-untyped-def]
    return load_metadata(cache, SHA, PDEF, FILE, "4.7")


def expected() -> dict[str, dict[str, object]]:
    return dict(parse_pdef(PDEF, FILE, "4.7").params)


def entry(cache: Cache) -> Path:
    return parsed_path(cache, METADATA_KIND, SHA)


def forge(cache: Cache, payload: bytes, source_sha: str = SHA, fmt: str = FORMAT) -> None:
    """An entry whose header is consistent with ``payload`` (what only a deliberate writer of
    the cache directory could produce)."""
    digest = hashlib.sha256(payload).hexdigest()
    entry(cache).parent.mkdir(parents=True, exist_ok=True)
    head = f"{fmt} {METADATA_KIND} {source_sha} {digest}\n".encode()
    entry(cache).write_bytes(head + payload)


def test_first_load_parses_and_writes_the_entry_the_second_reads_it(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    first = load(cache)
    assert dict(first.params) == expected()
    assert entry(cache).read_bytes().startswith(f"{FORMAT} {METADATA_KIND} {SHA} ".encode())
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
        lambda b: b"",  # empty
        lambda b: b[: len(b) // 2],  # truncated
        lambda b: b.split(b"\n", 1)[0],  # header only
        lambda b: b"\xff\xfe" + b,  # garbage in front
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
    forge(cache, b'["A","B"]\n{}\n{}')  # names and lines disagree
    assert dict(load(cache).params) == expected()
    assert entry(cache).read_bytes() == good


def test_a_forged_malformed_line_is_an_error_naming_the_entry(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    forge(cache, b'["SERVO1_FUNCTION"]\n{}\nnot json')
    meta = load(cache)
    with pytest.raises(InputError) as exc:
        meta.get("SERVO1_FUNCTION")
    assert exc.value.fix == f"delete {entry(cache)} (it is rebuilt from the verified source)"
    forge(cache, b'["SERVO1_FUNCTION"]\n{"Calibration":[7]}\n{}')  # an index pointing nowhere
    with pytest.raises(InputError):
        load(cache).flagged("Calibration")


def test_an_unwritable_cache_still_gives_the_metadata(tmp_path: Path) -> None:
    blocker = tmp_path / "parsed"
    blocker.write_text("a file where the folder would go")
    cache = Cache(tmp_path)
    assert dict(load(cache).params) == expected()
    assert dict(load(cache).params) == expected()


def test_compare_never_shows_a_tampered_label(tmp_path: Path) -> None:
    """End to end: the enum label in `compare three-way` comes from the verified source even
    when the parsed entry in the cache was edited."""
    root = tmp_path / "project"
    (root / "overlays").mkdir(parents=True)
    (root / "sources.yaml").write_text(offline_sources())
    (root / "overlays" / "boat.yaml").write_text(OVERLAY_YAML)
    build_mirror(tmp_path / "mirror", offline_upstream())
    loc = location_args(root, tmp_path / "cache", tmp_path / "mirror")
    assert run_cli(["fetch", *loc]).exit_code == 0
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


YAML_TEXT = b"""\
version: 1
profiles:
  boat:
    pins:
      "4.7": {hardware: {repo: a/b, ref: main, path: x.params}}
    flags: [1, 2.5, true, null, "04"]
"""


def yaml_entry(root: Path) -> Path:
    return parsed_entry_path(root, YAML_KIND, hashlib.sha256(YAML_TEXT).hexdigest())


def test_a_yaml_document_is_kept_once_accepted_and_read_back_the_same(tmp_path: Path) -> None:
    fresh = load_yaml(YAML_TEXT, "s.yaml")
    first = load_yaml(YAML_TEXT, "s.yaml", tmp_path)
    assert not yaml_entry(tmp_path).exists()  # not accepted yet
    first.remember()
    second = load_yaml(YAML_TEXT, "s.yaml", tmp_path)
    assert second.pending is None  # from the entry
    for doc in (first, second):
        assert (doc.file, doc.data, doc.lines) == (fresh.file, fresh.data, fresh.lines)
    flags = second.data["profiles"]["boat"]["flags"]
    assert [type(v) for v in flags] == [int, float, bool, type(None), str]


def test_a_tampered_yaml_entry_is_parsed_again(tmp_path: Path) -> None:
    load_yaml(YAML_TEXT, "s.yaml", tmp_path).remember()
    path = yaml_entry(tmp_path)
    path.write_bytes(path.read_bytes().replace(b'"a/b"', b'"evil/repo"'))
    doc = load_yaml(YAML_TEXT, "s.yaml", tmp_path)
    assert doc.data["profiles"]["boat"]["pins"]["4.7"]["hardware"]["repo"] == "a/b"


def test_a_yaml_document_json_would_change_is_never_kept(tmp_path: Path) -> None:
    for text in (b"when: 2026-12-01\n", b"1: one\n", b"s: !!set {a: null}\n"):
        load_yaml(text, "d.yaml", tmp_path).remember()
        assert not (tmp_path / "parsed").exists()
