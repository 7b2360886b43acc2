"""paramdiff.api, the library surface: docs/library.md's example runs as written, against the
small offline boat project, and prints what the page says it prints."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from helpers import OVERLAY_YAML, build_mirror
from test_offline_project import offline_sources, offline_upstream

from paramdiff import api

PAGE = Path(__file__).resolve().parents[1] / "docs" / "library.md"


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", PAGE.read_text(), re.S)


def _boat_project(tmp_path: Path) -> Path:
    """The small offline boat project at tmp_path/project, its mirror at tmp_path/mirror."""
    root = tmp_path / "project"
    (root / "overlays").mkdir(parents=True)
    (root / "sources.yaml").write_text(offline_sources())
    (root / "overlays" / "boat.yaml").write_text(OVERLAY_YAML)
    build_mirror(tmp_path / "mirror", offline_upstream())
    return root


def test_every_name_in_all_is_importable() -> None:
    assert len(set(api.__all__)) == len(api.__all__)
    for name in api.__all__:
        assert getattr(api, name) is not None, name


def test_the_library_page_example_prints_what_it_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _boat_project(tmp_path)
    monkeypatch.chdir(root)
    monkeypatch.delenv("PARAMDIFF_MIRROR", raising=False)
    [code], [shown] = _blocks("python"), _blocks("text")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, str(PAGE), "exec"), {})
    assert printed.getvalue() == shown
    assert (root / "sources.lock").is_file()  # fetch_project wrote it


def test_a_writing_command_is_one_call_that_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """derive_file and report_files say what the command writes where; the sink writes."""
    root = _boat_project(tmp_path)
    project = api.open_project(root, mirror=str(tmp_path / "mirror"), cache_dir=tmp_path / "c")
    list(api.fetch_project(project, None, None, False))
    pin = api.open_pin(project, "boat")
    derived = api.derive_file(pin)
    [(lines, target)] = derived.files
    assert target is not None and target.path == root / "derived" / "boat_sitl.params"
    assert next(iter(lines)).startswith("#") and derived.warnings == []
    report = api.report_files(pin)
    assert [t.label for _, t in report.files if t is not None] == [
        "reports/boat-1.0.md",
        "reports/boat-1.0.svg",
    ]
    assert not (root / "derived").exists() and not (root / "reports").exists()
    with pytest.raises(api.UsageError, match="--model writes a report of its own"):
        api.report_files(pin, model_file=root / "model.sdf")
