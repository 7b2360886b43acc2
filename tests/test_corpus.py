"""Hostile inputs: each gives exactly its Error line, exit 2, no traceback, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import (
    OVERLAY_YAML,
    ROOT,
    SOURCES_YAML,
    build_mirror,
    location_args,
    run_cli,
    small_upstream,
    tree_bytes,
    unwritable,
)

CORPUS = Path(__file__).parent / "corpus"


def expectations(folder: Path) -> list[list[str]]:
    """``<case> TAB <the exact Error line>`` per line of folder/EXPECTED.txt."""
    return [
        line.split("\t", 1)
        for line in (folder / "EXPECTED.txt").read_text().splitlines()
        if line and not line.startswith("#")
    ]


CASES = expectations(CORPUS)  # input files, read by `paramdiff show`
SOURCES_CASES = expectations(CORPUS / "sources")  # one sources.yaml per folder, `fetch`
OVERLAY_CASES = expectations(CORPUS / "overlays")  # one overlay per file, `derive`


def test_every_corpus_file_has_an_expectation() -> None:
    files = {
        p.name
        for p in CORPUS.iterdir()
        if (p.is_file() or p.is_symlink()) and p.name != "EXPECTED.txt"  # dev_zero -> /dev/zero
    }
    assert files == {name for name, _ in CASES}
    folders = {p.name for p in (CORPUS / "sources").iterdir() if p.is_dir()}
    assert folders == {name for name, _ in SOURCES_CASES}
    overlays = {p.stem for p in (CORPUS / "overlays").glob("*.yaml")}
    assert overlays == {name for name, _ in OVERLAY_CASES}


@pytest.mark.parametrize(("name", "expected"), CASES, ids=[c[0] for c in CASES])
def test_corpus_case(name: str, expected: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    before = tree_bytes(CORPUS)
    result = run_cli(["show", f"tests/corpus/{name}"])
    assert result.exit_code == 2
    assert result.output == expected + "\n"
    assert "Traceback" not in result.output
    assert tree_bytes(CORPUS) == before


@pytest.mark.parametrize(("name", "expected"), SOURCES_CASES, ids=[c[0] for c in SOURCES_CASES])
def test_hostile_sources_yaml(name: str, expected: str, tmp_path: Path) -> None:
    before = tree_bytes(CORPUS)
    cache = tmp_path / "cache"
    result = run_cli(["fetch", "--root", str(CORPUS / "sources" / name), "--cache-dir", str(cache)])
    assert result.exit_code == 2
    assert result.output == expected + "\n"
    assert tree_bytes(CORPUS) == before  # no lock written beside it
    assert not cache.exists()


# Just enough firmware metadata to judge the overlay cases' values.
PDEF = {
    "SERVO": {
        "SERVO1_TRIM": {"DisplayName": "Trim PWM", "Range": {"low": "800", "high": "2200"}},
        "SERVO1_FUNCTION": {
            "DisplayName": "Servo output function",
            "Values": {"0": "Disabled", "73": "ThrottleLeft", "74": "ThrottleRight"},
        },
    },
    "AHRS_": {"AHRS_ORIENTATION": {"DisplayName": "Board Orientation"}},
}


@pytest.fixture(scope="module")
def overlay_project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The small project plus a metadata role, fetched once from a local mirror."""
    import json

    base = tmp_path_factory.mktemp("overlays")
    upstream = small_upstream()
    upstream["acme/meta"] = {
        "branches": {"main": "ef" * 20},
        "commits": [{"sha": "ef" * 20, "parents": [], "date": "2026-01-01", "subject": "m"}],
        "files": {"ef" * 20: {"Rover-1.0/apm.pdef.json": json.dumps(PDEF).encode()}},
    }
    build_mirror(base / "mirror", upstream)
    root = base / "project"
    (root / "overlays").mkdir(parents=True)
    (root / "sources.yaml").write_text(
        SOURCES_YAML
        + "        metadata: {repo: acme/meta, ref: main, path: Rover-1.0/apm.pdef.json,"
        + " format: pdef}\n"
    )
    (root / "overlays" / "boat.yaml").write_text(OVERLAY_YAML)
    loc = location_args(root, base / "cache", base / "mirror")
    fetched = run_cli(["fetch", *loc])
    assert fetched.exit_code == 0, fetched.output
    derived = run_cli(["derive", *loc])
    assert derived.exit_code == 0, derived.output
    return root, loc


@pytest.mark.parametrize(("name", "expected"), OVERLAY_CASES, ids=[c[0] for c in OVERLAY_CASES])
def test_hostile_overlay(name: str, expected: str, overlay_project: tuple[Path, list[str]]) -> None:
    root, loc = overlay_project
    (root / "overlays" / "boat.yaml").write_bytes(
        (CORPUS / "overlays" / f"{name}.yaml").read_bytes()
    )
    before = tree_bytes(root)
    result = run_cli(["derive", *loc])
    assert result.exit_code == 2
    assert result.output == expected + "\n"
    assert tree_bytes(root) == before  # the derived file from the good overlay is untouched


def test_unwritable_output_leaves_nothing_behind(tmp_path: Path) -> None:
    from paramdiff.errors import ParamdiffError
    from paramdiff.files import write_atomic

    target_dir = tmp_path / "ro"
    target_dir.mkdir()
    (target_dir / "old.params").write_text("FRAME_CLASS 2\n")
    with unwritable(target_dir):
        with pytest.raises(ParamdiffError, match=r"cannot write .*old\.params"):
            write_atomic(target_dir / "old.params", b"FRAME_CLASS 1\n")
        assert (target_dir / "old.params").read_text() == "FRAME_CLASS 2\n"
        assert sorted(p.name for p in target_dir.iterdir()) == ["old.params"]
