"""What bounds a fetch as a whole (issue #19): one deadline for all of a command's downloads,
the first failure ending the others, no retry of what cannot recover (a refused connection,
a name that does not resolve) and a line on stderr for every retry wait, same-origin
redirects, and bugs that stay bugs (exit 3). Real HTTP on 127.0.0.1 (the fault server)."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import (
    C2,
    HW,
    M1,
    SOURCES_YAML,
    CliResult,
    build_mirror,
    captured,
    run_cli,
    serve,
    small_upstream,
    tree_bytes,
)

from paramdiff.cli import guarded
from paramdiff.config.sources import load_config
from paramdiff.errors import FetchError
from paramdiff.fetch.cache import Cache
from paramdiff.fetch.engine import MAX_WORKERS, TransportChoice
from paramdiff.fetch.http import HttpClient, HttpSettings, origin
from paramdiff.fetch.resolve import fetch, fetch_targets
from paramdiff.fetch.verified import VerifiedFile, VerifiedIndex

HW_PATH = f"/raw/acme/params/{C2}/boats/hw.params"
RAW_PATHS = [
    HW_PATH,
    f"/raw/acme/params/{C2}/boats/sitl.params",
    f"/raw/acme/params/{C2}/blacklist.txt",
    f"/raw/acme/models/{M1}/boat/model.sdf",
]
PROXY_VARIABLES = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy")


def three_pins(project: Path) -> None:
    """The small project with pins 1.0, 2.0 and 3.0 alike: 12 downloads, three waves of
    MAX_WORKERS (4) if each wave ran to its own deadline."""
    head, pin = SOURCES_YAML.split('      "1.0":\n')
    pins = "".join(f'      "{name}":\n{pin}' for name in ("1.0", "2.0", "3.0"))
    (project / "sources.yaml").write_text(head + pins)


def raw_requests(log: list[str]) -> list[str]:
    return [p for p in log if p.startswith("/raw/")]


def wait_for(condition: object, seconds: float = 10) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


def at_the_boundary(call: Callable[[], object]) -> CliResult:
    """``call`` inside the CLI's one error boundary: its exit code and what it printed."""

    def run() -> None:
        call()

    return captured(lambda: guarded(run))


def free_port() -> int:
    """A port on 127.0.0.1 nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --------------------------------------------------------------------------- item 7


def test_a_stalled_host_costs_the_command_one_deadline(
    project: Path, tmp_path: Path, http_mirror, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every file drips one byte every 0.5 s: before, each wave of 4 downloads ran to its own
    deadline (12 downloads: three deadlines). Now the first that fails ends them all."""
    three_pins(project)
    build_mirror(http_mirror.root, small_upstream())
    http_mirror.drip_seconds = 0.5
    for path in RAW_PATHS:
        http_mirror.faults[path] = ["drip"] * 20
    deadline = 4
    monkeypatch.setenv("PARAMDIFF_HTTP_DEADLINE", str(deadline))
    before = tree_bytes(project)
    started = time.monotonic()
    args = ["fetch", "--root", str(project), "--cache-dir", str(tmp_path / "c")]
    result = run_cli([*args, "--mirror", http_mirror.url])
    took = time.monotonic() - started
    assert result.exit_code == 2, result.output
    assert (
        "did not finish within its 4s deadline — the server is stalled or too slow (one 4s "
        "deadline bounds all the command's downloads together); check the network and run the "
        "command again, or read a mirror: --mirror DIR|URL or PARAMDIFF_MIRROR (e.g. export "
        "PARAMDIFF_MIRROR=../shared/upstream), or allow more "
        "time: PARAMDIFF_HTTP_DEADLINE=SECONDS"
    ) in result.stderr
    assert result.stderr.count("Error:") == 1
    assert took < 2 * deadline  # not a speed goal: three waves took three deadlines
    # Only the first wave was ever asked for: the rest were cancelled, not started late.
    assert len(raw_requests(http_mirror.log)) <= MAX_WORKERS
    assert wait_for(lambda: http_mirror.dripping == 0)
    assert tree_bytes(project) == before


def test_the_first_failure_stops_the_downloads_in_flight(
    project: Path, tmp_path: Path, http_mirror
) -> None:
    """One file is missing (404) while three others drip: the fetch ends with the 404 at
    once, not at the deadline, and the dripping requests are stopped (their sockets shut)."""
    build_mirror(http_mirror.root, small_upstream())
    http_mirror.drip_seconds = 0.2
    for path in RAW_PATHS[:2] + RAW_PATHS[3:]:
        http_mirror.faults[path] = ["drip"]
    missing = RAW_PATHS[2]
    http_mirror.faults[missing] = [404]
    config = load_config(project)
    choice = TransportChoice(cache_dir=tmp_path / "c", mirror=http_mirror.url, deadline=60)
    started = time.monotonic()
    with pytest.raises(FetchError) as err:
        fetch(config, config.profile(None), None, Cache(tmp_path / "c"), choice)
    assert time.monotonic() - started < 30  # the deadline is 60 s; the drips last 80 s
    assert f"HTTP 404 for {http_mirror.url}{missing}" in str(err.value)
    assert "calibration (acme/params@master" in str(err.value)
    assert wait_for(lambda: http_mirror.dripping == 0)  # the server saw the client leave
    assert not (project / "sources.lock").exists()


def test_a_bug_in_one_download_stops_the_others_and_stays_a_bug(
    project: Path, tmp_path: Path, http_mirror
) -> None:
    """Not every failure is a FetchError: whatever ends the first job ends the rest, and a
    bug still reaches the error boundary as a bug (exit 3)."""
    build_mirror(http_mirror.root, small_upstream())
    for path in RAW_PATHS[:3]:
        http_mirror.faults[path] = ["drip"]
    config = load_config(project)
    choice = TransportChoice(cache_dir=tmp_path / "c", mirror=http_mirror.url, deadline=60)

    def finder(spec, path, data):  # type: ignore[no-untyped-def]
        if spec.role == "sitl_models":
            return None  # a bug: None where a list of paths belongs
        return []

    targets = [(config.profile(None), None)]
    cache = Cache(tmp_path / "c")
    result = at_the_boundary(lambda: fetch_targets(config, targets, cache, choice, includes=finder))
    assert result.exit_code == 3, result.output
    assert result.stderr.startswith(
        "Error: internal error (TypeError: 'NoneType' object is not iterable)"
    )
    assert wait_for(lambda: http_mirror.dripping == 0)


@pytest.mark.parametrize("value", ["soon", "0", "-5", "inf", "nan"])
def test_a_deadline_that_is_not_seconds_is_refused(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("PARAMDIFF_HTTP_DEADLINE", value)
    mirror = str(tmp_path / "mirror")
    result = run_cli(
        ["fetch", "--root", str(project), "--cache-dir", str(tmp_path / "c"), "--mirror", mirror]
    )
    assert result.exit_code == 2
    assert result.stderr == (
        f"Error: PARAMDIFF_HTTP_DEADLINE={value!r} is not a number of seconds — set it to a "
        "positive number (the default is 120), or unset it\n"
    )
    assert not (project / "sources.lock").exists()


# --------------------------------------------------------------------------- item 9


def https_choice(cache: Path, raw_base: str, lines: list[str]) -> TransportChoice:
    return TransportChoice(cache_dir=cache, raw_base=raw_base, progress=lines.append)


def locked(project: Path, tmp_path: Path) -> None:
    """Lock the small project from its mirror folder, so a later fetch resolves nothing."""
    args = ["fetch", "--root", str(project), "--cache-dir", str(tmp_path / "warm")]
    assert run_cli([*args, "--mirror", str(tmp_path / "mirror")]).exit_code == 0


@pytest.mark.parametrize(
    ("host", "why"),
    [
        (f"127.0.0.1:{free_port()}", "connection refused"),
        ("raw.paramdiff.invalid", "the host name does not resolve"),  # RFC 6761: never resolves
    ],
    ids=["closed-port", "unresolvable"],  # the port differs per process: pytest-xdist's workers
)  # must collect the same test ids
def test_an_unreachable_host_fails_at_once_naming_the_mirror(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, host: str, why: str
) -> None:
    for name in PROXY_VARIABLES:  # straight to the host: no proxy may answer for it
        monkeypatch.delenv(name, raising=False)
    locked(project, tmp_path)
    before = tree_bytes(project)
    config = load_config(project)
    lines: list[str] = []
    choice = https_choice(tmp_path / "cold", f"http://{host}", lines)
    cache = Cache(tmp_path / "cold")
    result = at_the_boundary(lambda: fetch(config, config.profile(None), None, cache, choice))
    assert result.exit_code == 2, result.output
    line = result.stderr.splitlines()
    assert len(line) == 1 and line[0].startswith("Error: "), result.stderr
    assert f"/{C2}/" in line[0] or f"/{M1}/" in line[0]
    assert line[0].endswith(
        f": cannot reach {host} ({why}) — check the network, or read a mirror: "
        "--mirror DIR|URL or PARAMDIFF_MIRROR (e.g. export PARAMDIFF_MIRROR=../shared/upstream)"
    )
    assert lines == []  # not retried: nothing to wait for
    assert tree_bytes(project) == before


def test_every_retry_wait_is_announced_on_stderr(
    project: Path, tmp_path: Path, http_mirror
) -> None:
    build_mirror(http_mirror.root, small_upstream())
    http_mirror.faults[HW_PATH] = [500, 500]
    http_mirror.faults[RAW_PATHS[1]] = ["truncate"]
    args = ["fetch", "--root", str(project), "--cache-dir", str(tmp_path / "c")]
    result = run_cli([*args, "--mirror", http_mirror.url])
    assert result.exit_code == 0, result.output
    waits = sorted(ln for ln in result.stderr.splitlines() if ln.startswith("GET "))
    assert waits == [
        f"GET {http_mirror.url}{HW_PATH}: HTTP 500; trying again in 0.0s (attempt 2 of 4)",
        f"GET {http_mirror.url}{HW_PATH}: HTTP 500; trying again in 1.0s (attempt 3 of 4)",
        f"GET {http_mirror.url}{RAW_PATHS[1]}: connection closed early, after 0 bytes; "
        "trying again in 0.5s (attempt 2 of 4)",
    ], result.stderr
    assert "sources.lock written" in result.stdout


def test_a_retry_after_of_5000_digits_is_past_the_deadline(tmp_path: Path, http_mirror) -> None:
    """int() refuses 4,300+ digits (ValueError): before, that escaped urllib3's Retry."""
    (http_mirror.root / "hw.params").write_bytes(HW)
    http_mirror.retry_after = "9" * 5000
    http_mirror.faults["/hw.params"] = [429]
    client = HttpClient(HttpSettings(retries=2, deadline=5))
    with pytest.raises(FetchError, match="did not finish within its 5s deadline"):
        client.get(f"{http_mirror.url}/hw.params")
    assert http_mirror.log == ["/hw.params"]


# --------------------------------------------------------------------------- redirects


def test_a_redirect_to_another_port_of_the_same_host_is_refused(
    project: Path, tmp_path: Path, http_mirror
) -> None:
    """Same origin = scheme, host and port: another port is another server, whoever runs it."""
    build_mirror(http_mirror.root, small_upstream())
    other_root = tmp_path / "other"
    build_mirror(other_root, small_upstream())
    config = load_config(project)
    with serve(other_root) as other:
        for target in (f"{other.url}{HW_PATH}", f"https://127.0.0.1:{port(http_mirror)}{HW_PATH}"):
            http_mirror.faults[HW_PATH] = [("redirect", target)]
            choice = TransportChoice(cache_dir=tmp_path / "c", mirror=http_mirror.url)
            with pytest.raises(FetchError) as err:
                fetch(config, config.profile(None), None, Cache(tmp_path / "c"), choice)
            shown = target.removesuffix(HW_PATH)
            assert (
                f"was redirected from {http_mirror.url} to {shown}; redirects are followed only "
                f"within the same origin (scheme, host and port) — fetch from {shown} directly "
                "if you trust it, or allow it in HttpSettings.redirect_origins"
            ) in str(err.value)
        assert other.log == []
        # An origin the settings name is followed.
        http_mirror.faults[HW_PATH] = [("redirect", f"{other.url}{HW_PATH}")]
        client = HttpClient(HttpSettings(redirect_origins=(other.url,)))
        assert client.get(f"{http_mirror.url}{HW_PATH}") == HW
        assert other.log == [HW_PATH]


def port(server: object) -> int:
    return int(str(server.url).rsplit(":", 1)[1])  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("HTTP://Example.COM/x", ("http", "example.com", 80)),
        ("https://example.com:443/", ("https", "example.com", 443)),
        ("https://example.com/", ("https", "example.com", 443)),
        ("http://[::1]:8080/", ("http", "::1", 8080)),
        ("http://example.com:99999/", ("http", "example.com", -1)),
        ("ftp://example.com/", ("ftp", "example.com", None)),
    ],
)
def test_origins_compare_scheme_host_and_port(url: str, expected: tuple[object, ...]) -> None:
    assert origin(url) == expected


# --------------------------------------------------------------------------- item 14


def test_a_bug_writing_the_verified_index_exits_3(tmp_path: Path) -> None:
    """A value of the wrong type through the public put(): before, every exception became
    'cannot write the cache's verified index' (exit 2)."""
    index = VerifiedIndex(tmp_path / "cache")
    wrong = VerifiedFile("acme/params", C2, "a.params", object(), "0" * 64, "0" * 40)  # type: ignore[arg-type]
    result = at_the_boundary(lambda: index.put(wrong))
    assert result.exit_code == 3
    assert result.stderr.startswith("Error: internal error (TypeError: ")


def test_a_cache_that_refuses_the_record_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "verified").write_text("a file where the index's folder belongs")
    index = VerifiedIndex(tmp_path / "cache")
    record = VerifiedFile("acme/params", C2, "a.params", 1, "0" * 64, "0" * 40)
    result = at_the_boundary(lambda: index.put(record))
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: cannot write the cache's verified index ")
    assert result.stderr.rstrip().endswith(
        "make the cache directory writable, or pass --cache-dir / set PARAMDIFF_CACHE"
    )


def test_a_stalled_git_host_is_killed_at_the_deadline(
    tmp_path: Path, http_mirror, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`git ls-remote` (refs for the https and git transports) and the git transport's
    `git fetch` share the command's deadline: git is killed when it passes."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    refs = http_mirror.root / "acme" / "params.git" / "info" / "refs"
    refs.parent.mkdir(parents=True)
    refs.write_bytes(b"never sent: the headers drip first\n")
    http_mirror.faults["/acme/params.git/info/refs"] = ["drip-headers"] * 5
    root = tmp_path / "p"
    root.mkdir()
    (root / "sources.yaml").write_text(
        "version: 1\nprofiles:\n  b:\n    pins:\n      '1':\n        hardware:\n"
        "          repo: acme/params\n          ref: master\n          path: a.params\n"
        "          format: params\n          transport: git\n"
    )
    monkeypatch.setenv("PARAMDIFF_HTTP_DEADLINE", "4")
    args = ["fetch", "--root", str(root), "--cache-dir", str(tmp_path / "c")]
    started = time.monotonic()
    result = run_cli([*args, "--git-base", http_mirror.url])
    assert time.monotonic() - started < 8  # two deadlines; not a speed goal: the drip lasts 400 s
    assert result.exit_code == 2, result.output
    assert (
        f"git ls-remote {http_mirror.url}/acme/params.git did not finish within its 4s deadline"
        " — the server is stalled or too slow"
    ) in result.stderr
    assert http_mirror.log == ["/acme/params.git/info/refs"]
