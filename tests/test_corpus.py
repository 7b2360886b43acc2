"""Hostile inputs: each gives exactly its Error line, exit 2, no traceback, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT, tree_bytes, unwritable

from paramdiff.cli import main

CORPUS = Path(__file__).parent / "corpus"
CASES = [
    line.split("\t", 1)
    for line in (CORPUS / "EXPECTED.txt").read_text().splitlines()
    if line and not line.startswith("#")
]


def test_every_corpus_file_has_an_expectation() -> None:
    files = {p.name for p in CORPUS.iterdir() if p.name != "EXPECTED.txt"}
    assert files == {name for name, _ in CASES}


@pytest.mark.parametrize(("name", "expected"), CASES, ids=[c[0] for c in CASES])
def test_corpus_case(name: str, expected: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    before = tree_bytes(CORPUS)
    result = CliRunner().invoke(main, ["show", f"tests/corpus/{name}"])
    assert result.exit_code == 2
    assert result.output == expected + "\n"
    assert "Traceback" not in result.output
    assert tree_bytes(CORPUS) == before


def test_unwritable_output_leaves_nothing_behind(tmp_path: Path) -> None:
    from paramdiff.errors import ParamdiffError
    from paramdiff.sinks import write_atomic

    target_dir = tmp_path / "ro"
    target_dir.mkdir()
    (target_dir / "old.params").write_text("FRAME_CLASS 2\n")
    with unwritable(target_dir):
        with pytest.raises(ParamdiffError, match=r"cannot write .*old\.params"):
            write_atomic(target_dir / "old.params", b"FRAME_CLASS 1\n")
        assert (target_dir / "old.params").read_text() == "FRAME_CLASS 2\n"
        assert sorted(p.name for p in target_dir.iterdir()) == ["old.params"]


def test_mypy_is_clean() -> None:
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "mypy", "paramdiff", "--ignore-missing-imports"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout


def test_ruff_is_clean() -> None:
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "paramdiff", "tests", "bench"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout
