"""pytest's fixtures and options; the helpers they use live in helpers.py."""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from pathlib import Path

import coverage
import pytest
from helpers import (
    OVERLAY_YAML,
    SOURCES_YAML,
    WITHOUT_MIRROR_SKIP,
    FaultServer,
    build_mirror,
    serve,
    shared_mirror,
    small_upstream,
)
from hypothesis import settings

# No test is timed (speed goals live in bench/run.py): hypothesis's default 200 ms deadline per
# example failed tests on a loaded machine that were right.
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


@pytest.fixture(scope="session")
def upstream(request: pytest.FixtureRequest) -> Path:
    """The real upstream mirror beside the checkout; the test skips without it. The one way
    a test reaches the mirror: a test that uses it is marked `integration` (below)."""
    return shared_mirror(request.config)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that reads the real mirror (its fixtures include `upstream`) as
    `integration`; with pytest-xdist's `--dist loadgroup`, one file's integration tests run
    on one worker (test_integration.py's module fixture fetches every pin once, not once per
    worker)."""
    for item in items:
        if "upstream" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.integration)
            item.add_marker(pytest.mark.xdist_group(f"integration-{item.path.name}"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    """Under --cov, an integration test (setup, call and teardown) runs unmeasured: the
    coverage the test command requires is what the unit tests alone reach, i.e. what a
    machine without ../shared measures (`--without-mirror`), on the same single run."""
    measuring = coverage.Coverage.current()
    if measuring is None or item.get_closest_marker("integration") is None:
        return (yield)
    measuring.stop()
    try:
        return (yield)
    finally:
        measuring.start()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item,
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A test that reaches the mirror some other way would skip in the unit run and be left
    out of the integration run, i.e. never run: that is a failure, saying how to fix it."""
    report = yield
    if (
        report.skipped
        and item.get_closest_marker("integration") is None
        and WITHOUT_MIRROR_SKIP in str(report.longrepr)
    ):
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} reads the upstream mirror without the `upstream` fixture, so it is "
            "not marked integration and would never run: take the mirror from that fixture"
        )
    return report


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
