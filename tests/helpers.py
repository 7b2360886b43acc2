"""Test helpers: the command line run in this process, a real HTTP server with fault
injection, mirror builders, a small project, and tree snapshots. Fixtures that use them live
in conftest.py."""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import http.server
import io
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from paramdiff.digests import git_blob_id

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
CORPUS_DIR = Path(__file__).resolve().parent / "corpus"
SHARED_MIRROR = ROOT.parent / "shared" / "upstream"
WITHOUT_MIRROR_SKIP = "--without-mirror: integration tests skipped"


def shared_mirror(config: pytest.Config) -> Path:
    """The real upstream mirror beside the checkout; the calling test skips, saying why,
    when it is absent (or --without-mirror asks to behave as if it were)."""
    if config.getoption("--without-mirror"):  # the option is added in conftest.py
        pytest.skip(WITHOUT_MIRROR_SKIP)
    if not (SHARED_MIRROR / "MANIFEST.json").exists():
        pytest.skip(f"no upstream mirror at {SHARED_MIRROR} (integration tests need ../shared)")
    return SHARED_MIRROR


# --------------------------------------------------------------------------- the command line


@dataclass(frozen=True)
class CliResult:
    """What a command printed, and its exit code."""

    exit_code: int
    stdout: str
    stderr: str
    output: str  # stdout and stderr interleaved in the order written, as a terminal shows them


class _Copying(io.BytesIO):
    """A captured stream's bytes, each write also copied into the interleaved ``mixed``."""

    def __init__(self, mixed: io.BytesIO) -> None:
        super().__init__()
        self.mixed = mixed

    def write(self, data: Any) -> int:
        self.mixed.write(data)
        return super().write(data)


def captured(call: Callable[[], int]) -> CliResult:
    """Run ``call`` with sys.stdout and sys.stderr captured as UTF-8 text streams (strict,
    like a real one: text that cannot be encoded fails here too)."""
    mixed = io.BytesIO()
    out, err = _Copying(mixed), _Copying(mixed)
    with (
        io.TextIOWrapper(out, encoding="utf-8", write_through=True) as text_out,
        io.TextIOWrapper(err, encoding="utf-8", write_through=True) as text_err,
    ):
        with contextlib.redirect_stdout(text_out), contextlib.redirect_stderr(text_err):
            code = call()
        result = CliResult(
            code, out.getvalue().decode(), err.getvalue().decode(), mixed.getvalue().decode()
        )
    return result


def run_cli(args: list[str]) -> CliResult:
    """`paramdiff ARGS...` in this process, through the real entry point: parsing, the
    command, and the error boundary."""
    from paramdiff.cli import main

    return captured(lambda: main(args))


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
    404, 500, 429 (with ``Retry-After``), 'slow' (headers late), 'truncate' (connection
    closed halfway), 'wrong' (other bytes), 'gzip-cut' (a gzip stream cut short), 'bomb'
    (2 GiB of zeros, gzipped), 'drip' (the body one byte every ``drip_seconds``),
    'drip-headers' (the status line and headers too), 'redirect-away'
    (to the same port on another host name), 'redirect-here' (to the same path again),
    ``("redirect", URL)`` (a 302 to URL: another port or scheme). ``dripping`` counts the
    drips still writing (a client that stopped ends its drip at the next byte).

    Like GitHub's raw host, it compresses a body (``encoding``: gzip or deflate) only when
    the request's Accept-Encoding names that coding. ``first_429``: every path's first
    request gets 429 + ``Retry-After``. Every request is logged, with the coding it got."""

    root: Path
    url: str = ""
    faults: dict[str, list[object]] = field(default_factory=dict)
    log: list[str] = field(default_factory=list)
    codings: list[str] = field(default_factory=list)
    times: list[tuple[str, float]] = field(default_factory=list)  # (path, time.monotonic())
    slow_seconds: float = 2.0
    drip_seconds: float = 0.2
    encoding: str | None = None
    first_429: bool = False
    retry_after: str = "1"
    seen: set[str] = field(default_factory=set)
    dripping: int = 0
    guard: threading.Lock = field(default_factory=threading.Lock)

    def mode_for(self, path: str) -> object:
        with self.guard:
            self.log.append(path)
            self.times.append((path, time.monotonic()))
            queue = self.faults.get(path) or []
            mode = queue.pop(0) if queue else None
            if mode is None and self.first_429 and path not in self.seen:
                mode = 429
            self.seen.add(path)
            return mode


@functools.cache
def gzip_bomb() -> bytes:
    """2 GiB of zeros as 128 gzip members of 16 MiB each (a valid gzip file, ~2 MB)."""
    return gzip.compress(bytes(16 << 20), compresslevel=9) * 128


def compress(data: bytes, coding: str) -> bytes:
    return gzip.compress(data) if coding == "gzip" else zlib.compress(data)


class _Handler(http.server.BaseHTTPRequestHandler):
    """Serves ``self.server.state`` (a FaultServer): a fault if one is queued, else the file."""

    protocol_version = "HTTP/1.1"  # keep-alive, as real hosts do

    @property
    def state(self) -> FaultServer:
        return self.server.state  # type: ignore[attr-defined, no-any-return]

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        from urllib.parse import unquote, urlsplit

        # A proxy is sent the absolute URL ("GET http://host/path"): serve its path.
        target = urlsplit(self.path).path if "://" in self.path else self.path
        path = unquote(target.partition("?")[0])
        mode = self.state.mode_for(path)
        if not self.fault(mode):
            self.file(path, mode)

    def fault(self, mode: object) -> bool:
        """Answer a fault that needs no file; False when the file is needed."""
        if mode in (404, 500, 429):
            extra = {"Retry-After": self.state.retry_after} if mode == 429 else {}
            self.answer(int(mode), b"", extra)  # type: ignore[call-overload]
        elif mode in ("redirect-away", "redirect-here"):
            host = "localhost" if mode == "redirect-away" else "127.0.0.1"
            where = f"http://{host}:{self.server.server_address[1]}{self.path}?again"
            self.answer(302, b"", {"Location": where})
        elif isinstance(mode, tuple) and mode[0] == "redirect":
            self.answer(302, b"", {"Location": str(mode[1])})
        elif mode == "bomb":
            self.answer(200, gzip_bomb(), {"Content-Encoding": "gzip"})
        else:
            return False
        return True

    def file(self, path: str, mode: object) -> None:
        state = self.state
        target = (state.root / path.lstrip("/")).resolve()
        if not target.is_file() or not target.is_relative_to(state.root.resolve()):
            return self.answer(404, b"", {})
        data = target.read_bytes()
        if mode == "wrong":
            data = data.replace(b"1", b"2", 1) if b"1" in data else data + b"x"
        if mode == "slow":
            time.sleep(state.slow_seconds)
        coding = self.coding("gzip" if mode == "gzip-cut" else state.encoding)
        state.codings.append(coding or "identity")
        headers = {"Content-Encoding": coding} if coding else {}
        if mode == "drip-headers":
            pad = "x" * 2000  # 400 s of headers at 0.2 s a byte
            head = f"HTTP/1.1 200 OK\r\nX-Pad: {pad}\r\nContent-Length: {len(data)}\r\n\r\n"
            return self.drip(head.encode() + data)
        self.answer(200, compress(data, coding) if coding else data, headers, mode)

    def coding(self, wanted: str | None) -> str | None:
        accepted = self.headers.get("Accept-Encoding", "")
        return wanted if wanted and wanted in accepted else None

    def answer(
        self, status: int, body: bytes, headers: dict[str, str], mode: object = None
    ) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if mode == "drip":
            return self.drip(body)
        try:
            if mode in ("truncate", "gzip-cut"):
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.close_connection = True
            else:
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (a bound or a timeout)

    def drip(self, raw: bytes) -> None:
        self.close_connection = True
        state = self.state
        with state.guard:
            state.dripping += 1
        try:
            for i in range(len(raw)):
                self.wfile.write(raw[i : i + 1])
                self.wfile.flush()
                time.sleep(state.drip_seconds)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up: its deadline
        finally:
            with state.guard:
                state.dripping -= 1


class _QuietServer(http.server.ThreadingHTTPServer):
    daemon_threads = True  # a dripping handler must not hold up the test's teardown
    state: FaultServer

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that gave up (a bound, a deadline) resets the connection: expected."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


@contextlib.contextmanager
def serve(root: Path, **settings: object) -> Iterator[FaultServer]:
    """A fault-injecting HTTP server for ``root`` on 127.0.0.1, in a thread."""
    state = FaultServer(root, **settings)  # type: ignore[arg-type]
    httpd = _QuietServer(("127.0.0.1", 0), _Handler)
    httpd.state = state
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
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


# What a damaged cache entry looks like (each test adds an edit that keeps the old digest).
DAMAGED_ENTRIES = [
    lambda b: b"",  # empty
    lambda b: b[: len(b) // 2],  # truncated
    lambda b: b.split(b"\n", 1)[0],  # header only
    lambda b: b"\xff\xfe" + b,  # garbage in front
]


# The committed project, as a checkout has it (the inputs and every generated output).
COMMITTED = ("sources.yaml", "sources.lock", "overlays", "derived", "reports")


def copy_project(dest: Path, source: Path = ROOT) -> Path:
    """The committed project's files (COMMITTED) of ``source`` copied into ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in COMMITTED:
        src = source / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, dest / name)
    return dest
