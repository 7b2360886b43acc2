"""Shared test parts: a real HTTP server with fault injection, real git repos, mirror builders."""

from __future__ import annotations

import contextlib
import hashlib
import http.server
import json
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from paramdiff.digests import git_blob_id

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SHARED_MIRROR = ROOT.parent / "shared" / "upstream"


@pytest.fixture(autouse=True)
def _no_caller_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never depend on the caller's PARAMDIFF_* variables (a shell with
    PARAMDIFF_MIRROR set made the git-transport tests read the mirror instead)."""
    for name in list(os.environ):
        if name.startswith("PARAMDIFF_"):
            monkeypatch.delenv(name)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--without-mirror",
        action="store_true",
        help="Run as on a machine without ../shared: every integration test skips (used to "
        "measure what the unit tests alone cover).",
    )


def shared_mirror(config: pytest.Config) -> Path:
    """The real upstream mirror beside the checkout; the calling test skips, saying why,
    when it is absent (or --without-mirror asks to behave as if it were)."""
    if config.getoption("--without-mirror"):
        pytest.skip("--without-mirror: integration tests skipped")
    if not (SHARED_MIRROR / "MANIFEST.json").exists():
        pytest.skip(f"no upstream mirror at {SHARED_MIRROR} (integration tests need ../shared)")
    return SHARED_MIRROR


@pytest.fixture
def upstream(request: pytest.FixtureRequest) -> Path:
    return shared_mirror(request.config)


# --------------------------------------------------------------------------- mirror builder


def build_mirror(base: Path, repos: dict[str, dict[str, object]]) -> Path:
    """Write a MANIFEST.json + raw/ layout.

    ``repos``: repo -> {branches, commits, files: {commit: {path: bytes}}}.
    """
    manifest: dict[str, object] = {}
    for repo, spec in repos.items():
        files: dict[str, dict[str, object]] = {}
        for commit, paths in spec["files"].items():  # type: ignore[union-attr]
            files[commit] = {}
            for path, data in paths.items():
                target = base / "raw" / repo / commit / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                files[commit][path] = {
                    "blob": git_blob_id(data),
                    "sha256": hashlib.sha256(data).hexdigest(),
                    "size": len(data),
                }
        manifest[repo] = {
            "branches": spec.get("branches", {}),
            "commits": spec.get("commits", []),
            "files": files,
        }
    base.mkdir(parents=True, exist_ok=True)
    (base / "MANIFEST.json").write_text(json.dumps(manifest, indent=1))
    return base


# --------------------------------------------------------------------------- HTTP server


@dataclass
class FaultServer:
    """Serves a directory; ``faults[path]`` is a list of modes consumed one per request:
    404, 500, 'slow', 'truncate', 'wrong'. Every request is logged."""

    root: Path
    url: str = ""
    faults: dict[str, list[object]] = field(default_factory=dict)
    log: list[str] = field(default_factory=list)
    slow_seconds: float = 2.0


def _handler(server: FaultServer) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            from urllib.parse import unquote

            path = unquote(self.path)
            server.log.append(path)
            queue = server.faults.get(path) or []
            mode = queue.pop(0) if queue else None
            if mode in (404, 500):
                self.send_response(int(mode))  # type: ignore[arg-type]
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            target = (server.root / path.lstrip("/")).resolve()
            if not target.is_file() or not target.is_relative_to(server.root.resolve()):
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            data = target.read_bytes()
            if mode == "wrong":
                data = data.replace(b"1", b"2", 1) if b"1" in data else data + b"x"
            if mode == "slow":
                time.sleep(server.slow_seconds)
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            try:
                if mode == "truncate":
                    self.wfile.write(data[: len(data) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test); nothing to report

    return Handler


@pytest.fixture
def http_mirror(tmp_path: Path) -> Iterator[FaultServer]:
    root = tmp_path / "served"
    root.mkdir()
    state = FaultServer(root)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()


# --------------------------------------------------------------------------- a small project


HW = (FIXTURES / "hardware.params").read_bytes()
SITL = (FIXTURES / "sitl.params").read_bytes()
MODEL = (FIXTURES / "model.sdf").read_bytes()
C1 = "c1" * 20
C2 = "c2" * 20
M1 = "ab" * 20

SOURCES_YAML = """\
version: 1
categories:
  - name: calibration
    rule: one unit
    calibration_list: true
  - name: script
    rule: scripts
    script_defined: true
  - name: board
    rule: board
    params: [AHRS_ORIENTATION]
  - name: vehicle
    rule: the rest
profiles:
  boat:
    joint_roles: {motor_port_joint: 73, motor_stbd_joint: 74}
    script_params:
      - {params: "NL_*", reason: navlight.lua}
    overlay: overlays/boat.yaml
    derived: derived/boat_sitl.params
    report: reports/boat-{pin}.md
    pins:
      "1.0":
        hardware: {repo: acme/params, ref: master, path: boats/hw.params, format: params}
        sitl: {repo: acme/params, ref: master, path: boats/sitl.params, format: params}
        sitl_models: {repo: acme/models, ref: main, path: boat/model.sdf, format: sdf}
        calibration: {repo: acme/params, ref: master, path: blacklist.txt, format: names}
"""

OVERLAY_YAML = """\
version: 1
base: hardware
select:
  exclude:
    - {category: calibration, reason: one unit's calibration}
    - {category: board, reason: board mounting}
    - {category: script, reason: no scripts in SITL}
sections:
  - {name: frame, params: [FRAME_*]}
  - {name: outputs, params: [SERVO*]}
deltas:
  - param: SERVO1_TRIM
    value: 1500
    was: 1510
    reason: one unit's neutral; the model is neutral at 1500
"""


def small_upstream() -> dict[str, dict[str, object]]:
    return {
        "acme/params": {
            "branches": {"master": C2},
            "commits": [
                {"sha": C2, "parents": [C1], "date": "2026-02-01T00:00:00Z", "subject": "trim"},
                {"sha": C1, "parents": [], "date": "2026-01-01T00:00:00Z", "subject": "first"},
            ],
            "files": {
                C1: {
                    "boats/hw.params": HW.replace(b"WP_RADIUS        1", b"WP_RADIUS        2"),
                    "boats/sitl.params": SITL,
                    "blacklist.txt": b"COMPASS_OFS_X\n",
                },
                C2: {
                    "boats/hw.params": HW,
                    "boats/sitl.params": SITL,
                    "blacklist.txt": b"COMPASS_OFS_X\n",
                },
            },
        },
        "acme/models": {
            "branches": {"main": M1},
            "commits": [{"sha": M1, "parents": [], "date": "2026-01-01T00:00:00Z", "subject": "m"}],
            "files": {M1: {"boat/model.sdf": MODEL}},
        },
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project checkout (sources.yaml + overlay) whose upstream is ``tmp_path/mirror``."""
    root = tmp_path / "project"
    (root / "overlays").mkdir(parents=True)
    (root / "sources.yaml").write_text(SOURCES_YAML)
    (root / "overlays" / "boat.yaml").write_text(OVERLAY_YAML)
    build_mirror(tmp_path / "mirror", small_upstream())
    return root


def location_args(root: Path, cache: Path, mirror: Path) -> list[str]:
    """The CLI options that point a command at a project, a cache and a mirror."""
    return ["--root", str(root), "--cache-dir", str(cache), "--mirror", str(mirror)]


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes, to prove nothing was written."""
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@contextlib.contextmanager
def unwritable(path: Path) -> Iterator[None]:
    """Make a directory refuse new files, for real: chmod, and as root (which ignores modes)
    the immutable attribute. Skips when the machine offers neither."""
    os.chmod(path, 0o500)
    immutable = False
    if _writable(path):
        immutable = subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0
    try:
        if _writable(path):
            pytest.skip("cannot make a directory unwritable here (root without chattr)")
        yield
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        os.chmod(path, 0o700)


def _writable(path: Path) -> bool:
    probe = path / ".probe"
    try:
        probe.write_bytes(b"")
    except OSError:
        return False
    probe.unlink()
    return True


def copy_fixture(name: str, dest: Path) -> Path:
    target = dest / name
    shutil.copy(FIXTURES / name, target)
    return target
