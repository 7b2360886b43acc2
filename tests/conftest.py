"""pytest's fixtures and options; the helpers they use live in helpers.py."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import (
    OVERLAY_YAML,
    SOURCES_YAML,
    FaultServer,
    build_mirror,
    serve,
    shared_mirror,
    small_upstream,
)
from hypothesis import settings

# No property test is timed: hypothesis's default 200 ms deadline per example fails a test on
# a loaded machine, not on a bug (speed goals live in bench/run.py, never in tests).
settings.register_profile("paramdiff", deadline=None)
settings.load_profile("paramdiff")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--without-mirror",
        action="store_true",
        help="Run as on a machine without ../shared: every integration test skips (used to "
        "measure what the unit tests alone cover).",
    )


@pytest.fixture(autouse=True)
def _no_caller_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Tests never depend on the caller's PARAMDIFF_* variables (a shell with
    PARAMDIFF_MIRROR set made the git-transport tests read the mirror instead), and never
    write the user's cache: a command run without --cache-dir gets a fresh one."""
    for name in list(os.environ):
        if name.startswith("PARAMDIFF_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


@pytest.fixture
def upstream(request: pytest.FixtureRequest) -> Path:
    """The real upstream mirror beside the checkout; the test skips without it."""
    return shared_mirror(request.config)


@pytest.fixture
def http_mirror(tmp_path: Path) -> Iterator[FaultServer]:
    root = tmp_path / "served"
    root.mkdir()
    with serve(root) as state:
        yield state


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project checkout (sources.yaml + overlay) whose upstream is ``tmp_path/mirror``."""
    root = tmp_path / "project"
    (root / "overlays").mkdir(parents=True)
    (root / "sources.yaml").write_text(SOURCES_YAML)
    (root / "overlays" / "boat.yaml").write_text(OVERLAY_YAML)
    build_mirror(tmp_path / "mirror", small_upstream())
    return root


@pytest.fixture
def derived(project: Path, tmp_path: Path) -> tuple[Path, list[str]]:
    """The small project, fetched, with its derived file and report written; and the
    options that point a command at it."""
    from helpers import location_args, run_cli

    loc = location_args(project, tmp_path / "c", tmp_path / "mirror")
    for command in ("fetch", "derive", "report"):
        result = run_cli([command, *loc])
        assert result.exit_code == 0, result.output
    return project, loc
