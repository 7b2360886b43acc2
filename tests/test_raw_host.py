"""Issue #10's "done when": fetch from an empty cache against a local server that answers
like GitHub's raw host really does — every body compressed (when the client accepts it),
every path's first request refused with 429 + Retry-After: 1 — gives the committed lock.

The server serves ../shared/upstream (skipped, saying so, when absent) two ways: as an HTTP
mirror (``--mirror http://...``: refs resolve through MANIFEST.json, no lock needed) and as
the https transport's raw host (what a networked user runs: the committed lock pins every
commit, so no ``git ls-remote`` is needed and each file comes from the raw host).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from helpers import ROOT, run_cli, serve

from paramdiff.config.sources import load_config
from paramdiff.fetch.cache import Cache
from paramdiff.fetch.engine import TransportChoice
from paramdiff.fetch.includes import pinned_includes
from paramdiff.fetch.resolve import fetch

COMMITTED_LOCK = (ROOT / "sources.lock").read_bytes()


@pytest.fixture(autouse=True)
def no_paramdiff_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The caller's PARAMDIFF_* variables (a mirror, a cache) must not steer these tests."""
    import os

    for name in [n for n in os.environ if n.startswith("PARAMDIFF_")]:
        monkeypatch.delenv(name)


def checkout(base: Path, with_lock: bool) -> Path:
    base.mkdir()
    shutil.copy(ROOT / "sources.yaml", base / "sources.yaml")
    shutil.copytree(ROOT / "overlays", base / "overlays")
    if with_lock:
        shutil.copy(ROOT / "sources.lock", base / "sources.lock")
    return base


def assert_every_path_was_refused_first(log: list[str]) -> None:
    """The server refused each path's first request (``first_429``), so every path that was
    fetched was asked for again; a file two pins share may be downloaded twice."""
    assert log, "nothing was requested"
    assert all(log.count(path) >= 2 for path in log)


def locked_urls(lock: Path) -> set[str]:
    """Every raw-host path the lock pins (main files and their includes)."""
    urls = set()
    for pins in yaml.safe_load(lock.read_text())["profiles"].values():
        for roles in pins.values():
            for e in roles.values():
                for path in [e["path"], *(i["path"] for i in e.get("includes") or [])]:
                    urls.add(f"/raw/{e['repo']}/{e['commit']}/{path}")
    return urls


def test_http_mirror_that_compresses_and_rate_limits(upstream: Path, tmp_path: Path) -> None:
    root = checkout(tmp_path / "project", with_lock=False)
    with serve(upstream, encoding="gzip", first_429=True) as server:
        result = run_cli(
            [
                "fetch",
                "--root",
                str(root),
                "--cache-dir",
                str(tmp_path / "c"),
                "--mirror",
                server.url,
            ],
        )
    assert result.exit_code == 0, result.output
    assert (root / "sources.lock").read_bytes() == COMMITTED_LOCK
    assert "/MANIFEST.json" in server.log
    assert_every_path_was_refused_first(server.log)
    assert set(server.codings) == {"gzip"}


def test_raw_host_that_compresses_and_rate_limits(upstream: Path, tmp_path: Path) -> None:
    root = checkout(tmp_path / "project", with_lock=True)
    config = load_config(root)
    cache = Cache(tmp_path / "c")
    # Retry-After: 0 keeps this one quick; the wait itself is tested in test_fetch.py and
    # by the mirror test above.
    with serve(upstream, encoding="deflate", first_429=True, retry_after="0") as server:
        choice = TransportChoice(cache_dir=cache.root, raw_base=f"{server.url}/raw")
        for profile, pin in config.fetch_targets(None, None):
            fetch(config, profile, pin, cache, choice, includes=pinned_includes)
    assert (root / "sources.lock").read_bytes() == COMMITTED_LOCK
    assert all(path.startswith("/raw/") for path in server.log)
    assert set(server.log) == locked_urls(root / "sources.lock")
    assert_every_path_was_refused_first(server.log)
    assert set(server.codings) == {"deflate"}
