"""Fetch over real transports: a local HTTP server (mirror layout), a mirror folder, local git."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import git
import pytest
from helpers import (
    C2,
    HW,
    M1,
    build_mirror,
    gzip_bomb,
    run_cli,
    small_upstream,
    tree_bytes,
    unwritable,
)

from paramdiff.config.sources import load_config
from paramdiff.errors import FetchError
from paramdiff.fetch.cache import Cache
from paramdiff.fetch.engine import TransportChoice
from paramdiff.fetch.http import HttpClient, HttpSettings
from paramdiff.fetch.resolve import fetch
from paramdiff.fetch.transports import GitTransport, MirrorTransport


def run(args: list[str], root: Path, cache: Path) -> object:
    return run_cli([*args, "--root", str(root), "--cache-dir", str(cache)])


def fast_client() -> HttpClient:
    return HttpClient(HttpSettings(connect_timeout=1, read_timeout=0.5, retries=2, backoff=0.01))


def do_fetch(
    root: Path, cache: Path, mirror: str, update: bool = False, client: HttpClient | None = None
) -> Any:
    config = load_config(root)
    choice = TransportChoice(cache_dir=cache, mirror=mirror)
    if mirror.startswith("http"):
        choice._made["mirror"] = MirrorTransport(mirror, client or fast_client())
    return fetch(config, config.profile(None), None, Cache(cache), choice, update=update)


def test_fetch_writes_verified_lock_from_mirror_dir(project: Path, tmp_path: Path) -> None:
    result = run(["fetch", "--mirror", str(tmp_path / "mirror")], project, tmp_path / "cache")
    assert result.exit_code == 0, result.output
    lock = (project / "sources.lock").read_text()
    assert f"commit: {C2}" in lock and f"commit: {M1}" in lock
    assert "downloaded" in result.output and "sources.lock written" in result.output


def test_warm_fetch_makes_zero_requests(project: Path, tmp_path: Path, http_mirror) -> None:
    build_mirror(http_mirror.root, small_upstream())
    do_fetch(project, tmp_path / "cache", http_mirror.url)
    assert any(p.startswith("/raw/") for p in http_mirror.log)
    http_mirror.log.clear()
    # A second process: a fresh transport, same lock and cache.
    result = do_fetch(project, tmp_path / "cache", http_mirror.url)
    assert http_mirror.log == []
    assert {r.status for r in result.roles} == {"cached"}


def test_retry_after_500_gives_the_same_result(project: Path, tmp_path: Path, http_mirror) -> None:
    build_mirror(http_mirror.root, small_upstream())
    path = f"/raw/acme/params/{C2}/boats/hw.params"
    http_mirror.faults[path] = [500]
    do_fetch(project, tmp_path / "cache", http_mirror.url)
    assert http_mirror.log.count(path) == 2
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "sources.yaml").write_bytes((project / "sources.yaml").read_bytes())
    do_fetch(clean, tmp_path / "cache2", http_mirror.url)
    assert (clean / "sources.lock").read_bytes() == (project / "sources.lock").read_bytes()


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ([404], "HTTP 404"),
        ([500, 500, 500], "failed after 3 attempts: HTTP 500"),
        (["slow", "slow", "slow"], "timed out"),
        (["truncate", "truncate", "truncate"], "truncated"),
        (["wrong"], "sha256 mismatch"),
    ],
)
def test_fetch_faults_leave_lock_untouched(
    project: Path, tmp_path: Path, http_mirror, fault: list[object], message: str
) -> None:
    build_mirror(http_mirror.root, small_upstream())
    do_fetch(project, tmp_path / "cache", http_mirror.url)
    before = tree_bytes(project)
    path = f"/raw/acme/params/{C2}/boats/hw.params"
    http_mirror.faults[path] = list(fault)
    with pytest.raises(FetchError) as err:
        do_fetch(project, tmp_path / "fresh-cache", http_mirror.url)
    assert message in str(err.value)
    assert "hardware (acme/params@master" in str(err.value)
    assert tree_bytes(project) == before


HW_PATH = f"/raw/acme/params/{C2}/boats/hw.params"


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
def test_compressed_responses_give_the_same_lock(
    project: Path, tmp_path: Path, http_mirror, coding: str
) -> None:
    """Like GitHub's raw host: compressed when the client accepts it. The old client compared
    the decoded body with Content-Length (the compressed size) and called it truncated."""
    build_mirror(http_mirror.root, small_upstream())
    do_fetch(project, tmp_path / "plain", str(tmp_path / "mirror"))
    plain = (project / "sources.lock").read_bytes()
    (project / "sources.lock").unlink()
    http_mirror.encoding = coding
    result = do_fetch(project, tmp_path / "cache", http_mirror.url)
    assert {r.status for r in result.roles} == {"downloaded"}
    assert set(http_mirror.codings) == {coding}
    assert (project / "sources.lock").read_bytes() == plain


def test_429_waits_for_retry_after_then_succeeds(
    project: Path, tmp_path: Path, http_mirror
) -> None:
    build_mirror(http_mirror.root, small_upstream())
    http_mirror.faults[HW_PATH] = [429]
    do_fetch(project, tmp_path / "cache", http_mirror.url)
    asked = [t for p, t in http_mirror.times if p == HW_PATH]
    assert len(asked) == 2
    assert asked[1] - asked[0] >= 0.9  # Retry-After: 1 honoured (a backoff would be 0 s here)


def test_429_forever_fails_after_the_retries(project: Path, tmp_path: Path, http_mirror) -> None:
    build_mirror(http_mirror.root, small_upstream())
    http_mirror.retry_after = "0"
    http_mirror.faults[HW_PATH] = [429, 429, 429]
    with pytest.raises(FetchError, match="failed after 3 attempts: HTTP 429"):
        do_fetch(project, tmp_path / "cache", http_mirror.url)
    assert not (project / "sources.lock").exists()


def test_retry_after_past_the_deadline_is_not_waited_out(tmp_path: Path, http_mirror) -> None:
    """A server asking to come back in an hour: urllib3 would sleep up to 6 h; the deadline
    caps the wait and the download fails saying so."""
    (http_mirror.root / "hw.params").write_bytes(HW)
    http_mirror.retry_after = "3600"
    http_mirror.faults["/hw.params"] = [429]
    client = HttpClient(HttpSettings(retries=2, deadline=1))
    started = time.monotonic()
    with pytest.raises(FetchError, match="did not finish within its 1s deadline"):
        client.get(f"{http_mirror.url}/hw.params")
    assert time.monotonic() - started < 30  # not a speed goal: the server asked for 3600 s


def test_gzip_stream_cut_short_is_asked_again(project: Path, tmp_path: Path, http_mirror) -> None:
    build_mirror(http_mirror.root, small_upstream())
    http_mirror.faults[HW_PATH] = ["gzip-cut"]
    do_fetch(project, tmp_path / "cache", http_mirror.url)
    assert http_mirror.log.count(HW_PATH) == 2
    http_mirror.faults[HW_PATH] = ["gzip-cut"] * 3
    with pytest.raises(FetchError) as err:
        do_fetch(project, tmp_path / "fresh", http_mirror.url)
    assert "failed after 3 attempts: the body was truncated (connection closed early" in str(
        err.value
    )


def test_gzip_bomb_stops_at_the_locked_size(project: Path, tmp_path: Path, http_mirror) -> None:
    build_mirror(http_mirror.root, small_upstream())
    do_fetch(project, tmp_path / "cache", http_mirror.url)
    before = tree_bytes(project)
    http_mirror.log.clear()
    gzip_bomb()  # made now, not in the handler: on a loaded machine that outlasted 0.5 s reads
    http_mirror.faults[HW_PATH] = ["bomb"]
    with pytest.raises(FetchError) as err:
        do_fetch(project, tmp_path / "fresh", http_mirror.url)
    assert f"hardware (acme/params@master -> {C2[:12]} boats/hw.params): GET " in str(err.value)
    assert (
        f"the body is larger than {len(HW)} bytes after decompression "
        "(the bound: the size sources.lock records) — do not trust this server's answer"
    ) in str(err.value)
    assert http_mirror.log.count(HW_PATH) == 1  # a bound is not retried
    assert tree_bytes(project) == before


def test_without_a_lock_the_manifest_size_is_the_bound(
    project: Path, tmp_path: Path, http_mirror
) -> None:
    build_mirror(http_mirror.root, small_upstream())
    gzip_bomb()  # made before the request (see above)
    http_mirror.faults[HW_PATH] = ["bomb"]
    with pytest.raises(FetchError, match=r"the size the mirror's MANIFEST\.json records"):
        do_fetch(project, tmp_path / "cache", http_mirror.url)


def test_gzip_bomb_of_unknown_size_fails_with_bounded_memory(
    project: Path, tmp_path: Path, http_mirror
) -> None:
    """MANIFEST.json has no recorded size: the default cap (64 MiB decoded) stops a 2 GiB
    bomb. Run as a real process so its peak memory can be read."""
    build_mirror(http_mirror.root, small_upstream())
    http_mirror.faults["/MANIFEST.json"] = ["bomb"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARAMDIFF_")}
    args = ["fetch", "--root", str(project), "--cache-dir", str(tmp_path / "c")]
    with open(tmp_path / "err", "wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "paramdiff", *args, "--mirror", http_mirror.url],
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=env,
        )
        _, status, usage = os.wait4(proc.pid, 0)
    lines = (tmp_path / "err").read_text().splitlines()
    assert os.waitstatus_to_exitcode(status) == 2
    assert lines == [
        "Error: hardware (acme/params@master boats/hw.params): "
        f"mirror {http_mirror.url} has no readable MANIFEST.json (GET "
        f"{http_mirror.url}/MANIFEST.json: the body is larger than 64 MiB after decompression "
        "(the bound: HttpSettings.max_body, for a file of unknown size)) — point --mirror / "
        "PARAMDIFF_MIRROR at the folder holding MANIFEST.json and raw/"
    ]
    assert usage.ru_maxrss * 1024 < 500 * 1024 * 1024  # ru_maxrss is in KiB on Linux
    assert not (project / "sources.lock").exists()


@pytest.mark.parametrize("drip", ["drip", "drip-headers"])
def test_slow_drip_fails_at_the_deadline(
    project: Path, tmp_path: Path, http_mirror, drip: str
) -> None:
    """One byte every 0.2 s, of the body or of the headers, never trips a 5 s read timeout;
    the deadline stops it."""
    build_mirror(http_mirror.root, small_upstream())
    http_mirror.faults[HW_PATH] = [drip]
    client = HttpClient(HttpSettings(read_timeout=5, retries=2, backoff=0.01, deadline=1))
    started = time.monotonic()
    with pytest.raises(FetchError) as err:
        do_fetch(project, tmp_path / "cache", http_mirror.url, client=client)
    # Not a speed goal: the drip lasts 95 s (body) or 400 s (headers); the bound is 1 s.
    assert time.monotonic() - started < 30
    assert f"GET {http_mirror.url}{HW_PATH} did not finish within its 1s deadline — " in str(
        err.value
    )
    assert http_mirror.log.count(HW_PATH) == 1  # past the deadline nothing is asked again


def test_the_deadline_holds_through_a_proxy(
    tmp_path: Path, http_mirror, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HTTP_PROXY: requests opens the connection through another urllib3 pool manager; its
    sockets must reach the watchdog too."""
    (http_mirror.root / "hw.params").write_bytes(HW)
    http_mirror.faults["/hw.params"] = ["drip-headers"]
    for name in ("http_proxy", "HTTP_PROXY"):
        monkeypatch.setenv(name, http_mirror.url)
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    client = HttpClient(HttpSettings(read_timeout=5, retries=1, deadline=1))
    started = time.monotonic()
    with pytest.raises(FetchError, match="did not finish within its 1s deadline"):
        client.get("http://paramdiff.invalid/hw.params")
    assert time.monotonic() - started < 30  # the drip lasts 400 s; the bound is 1 s
    assert http_mirror.log == ["/hw.params"]  # through the proxy: no name lookup needed


def test_redirect_to_another_host_is_refused(project: Path, tmp_path: Path, http_mirror) -> None:
    build_mirror(http_mirror.root, small_upstream())
    port = http_mirror.url.rsplit(":", 1)[1]
    http_mirror.faults[HW_PATH] = ["redirect-away"]
    with pytest.raises(FetchError) as err:
        do_fetch(project, tmp_path / "cache", http_mirror.url)
    assert (
        f"was redirected from http://127.0.0.1:{port} to http://localhost:{port}; redirects are "
        "followed only within the same origin (scheme, host and port) — fetch from "
        f"http://localhost:{port} directly if you trust it, or allow it in "
        "HttpSettings.redirect_origins"
    ) in str(err.value)
    assert http_mirror.log.count(HW_PATH) == 1
    # Allowed by origin, the same redirect is followed.
    http_mirror.faults[HW_PATH] = ["redirect-away"]
    client = HttpClient(HttpSettings(retries=0, redirect_origins=(f"http://localhost:{port}",)))
    do_fetch(project, tmp_path / "cache", http_mirror.url, client=client)
    assert http_mirror.log.count(HW_PATH) == 3


def test_redirect_within_the_host_is_followed(project: Path, tmp_path: Path, http_mirror) -> None:
    build_mirror(http_mirror.root, small_upstream())
    http_mirror.faults[HW_PATH] = ["redirect-here"]
    do_fetch(project, tmp_path / "cache", http_mirror.url)
    assert http_mirror.log.count(HW_PATH) == 2


def test_connection_refused(project: Path, tmp_path: Path) -> None:
    with pytest.raises(FetchError, match=r"cannot reach 127\.0\.0\.1:9 \(connection refused\)"):
        do_fetch(project, tmp_path / "cache", "http://127.0.0.1:9")
    assert not (project / "sources.lock").exists()


def test_tampered_mirror_file_is_refused(project: Path, tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    (mirror / "raw" / "acme/params" / C2 / "boats/hw.params").write_bytes(b"FRAME_CLASS 1\n")
    result = run_cli(
        [
            "fetch",
            "--mirror",
            str(mirror),
            "--root",
            str(project),
            "--cache-dir",
            str(tmp_path / "c"),
        ],
    )
    assert result.exit_code == 2
    assert "sha256 mismatch — the source's manifest says" in result.output
    assert not (project / "sources.lock").exists()


def test_hand_edited_lock_is_refused_and_unchanged(project: Path, tmp_path: Path) -> None:
    mirror = str(tmp_path / "mirror")
    assert run(["fetch", "--mirror", mirror], project, tmp_path / "c").exit_code == 0
    lock = project / "sources.lock"
    text = lock.read_text()
    sha = text.split("sha256: ")[1].split()[0]
    lock.write_text(text.replace(sha, "f" * 64, 1))
    edited = lock.read_bytes()
    result = run_cli(
        ["fetch", "--mirror", mirror, "--root", str(project), "--cache-dir", str(tmp_path / "c2")],
    )
    assert result.exit_code == 2
    assert "sha256 mismatch — sources.lock says ffffffffffffffff…" in result.output
    assert lock.read_bytes() == edited


def test_unknown_ref_and_missing_path(project: Path, tmp_path: Path) -> None:
    yaml_path = project / "sources.yaml"
    yaml_path.write_text(yaml_path.read_text().replace("ref: main", "ref: nope"))
    result = run(["fetch", "--mirror", str(tmp_path / "mirror")], project, tmp_path / "c")
    assert result.exit_code == 2
    assert "Error: sitl_models (acme/models@nope boat/model.sdf): ref 'nope' does not exist" in (
        result.output
    )
    yaml_path.write_text(
        yaml_path.read_text()
        .replace("ref: nope", "ref: main")
        .replace("boat/model.sdf", "boat/missing.sdf")
    )
    result = run(["fetch", "--mirror", str(tmp_path / "mirror")], project, tmp_path / "c")
    assert "boat/missing.sdf does not exist at commit abababababab in the mirror" in result.output


def test_update_reports_old_and_new_commit(project: Path, tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    run(["fetch", "--mirror", str(mirror)], project, tmp_path / "c")
    upstream = small_upstream()
    upstream["acme/params"]["branches"] = {"master": "c1" * 20}
    build_mirror(mirror, upstream)
    result = run(["fetch", "--update", "--mirror", str(mirror)], project, tmp_path / "c")
    assert result.exit_code == 0, result.output
    assert "c2c2c2c2c2c2 -> c1c1c1c1c1c1, file changed" in result.output
    assert "hardware: 1 parameters changed upstream (c2c2c2c2c2c2 -> c1c1c1c1c1c1): " in (
        result.output
    )
    assert "values over upstream history: paramdiff history " in result.output


def test_offline_uses_cache_and_fails_clearly(project: Path, tmp_path: Path) -> None:
    run(["fetch", "--mirror", str(tmp_path / "mirror")], project, tmp_path / "c")
    assert run(["fetch", "--offline"], project, tmp_path / "c").exit_code == 0
    result = run(["fetch", "--offline"], project, tmp_path / "empty")
    assert result.exit_code == 2
    # One line naming the role and its file once (not the path again after the role's prefix)
    assert result.output == (
        "Error: hardware (acme/params@master boats/hw.params): the file at c2c2c2c2c2c2 is not "
        "in the cache and --offline forbids the network — run paramdiff fetch without --offline "
        "(or with --mirror) first; if sources.lock was edited, restore it from git\n"
    )
    update = run(["fetch", "--offline", "--update"], project, tmp_path / "c")
    assert update.exit_code == 2
    assert update.output.startswith(
        "Error: hardware (acme/params@master boats/hw.params): --update re-resolves refs, and "
        "--offline cannot resolve refs — "
    )


# --------------------------------------------------------------------------- git transport


def make_repo(path: Path) -> tuple[git.Repo, str, str]:
    repo = git.Repo.init(path, initial_branch="master")
    (path / "boats").mkdir()
    (path / "boats" / "hw.params").write_text("FRAME_CLASS 2\n")
    repo.index.add(["boats/hw.params"])
    first = repo.index.commit("first").hexsha
    (path / "boats" / "hw.params").write_text("FRAME_CLASS 2\nWP_RADIUS 1\n")
    repo.index.add(["boats/hw.params"])
    second = repo.index.commit("second").hexsha
    repo.create_tag("v1", ref=first)
    return repo, first, second


def test_git_transport_resolves_and_reads_blobs(tmp_path: Path) -> None:
    make_repo(tmp_path / "repos" / "acme" / "params.git")
    base = (tmp_path / "repos").as_uri()
    transport = GitTransport(tmp_path / "cache", base)
    head = transport.resolve("acme/params", "master")
    tag = transport.resolve("acme/params", "v1")
    assert head != tag
    got = transport.get("acme/params", tag, "boats/hw.params")
    assert got.data == b"FRAME_CLASS 2\n"
    from paramdiff.digests import git_blob_id

    assert got.blob == git_blob_id(got.data)
    with pytest.raises(FetchError, match="does not exist at commit"):
        transport.get("acme/params", tag, "boats/none.params")
    with pytest.raises(FetchError, match="ref 'nope' does not exist"):
        transport.resolve("acme/params", "nope")


def one_role_project(root: Path, repo: str, path: str, fmt: str = "params") -> Path:
    """A project whose one pin has one role, fetched with the git transport."""
    root.mkdir()
    (root / "sources.yaml").write_text(
        f"version: 1\nprofiles:\n  b:\n    pins:\n      '1':\n        hardware:\n"
        f"          repo: {repo}\n          ref: master\n          path: {path}\n"
        f"          format: {fmt}\n          transport: git\n"
    )
    return root


def test_fetch_over_git_transport_end_to_end(tmp_path: Path) -> None:
    _, first, second = make_repo(tmp_path / "repos" / "acme" / "params.git")
    root = one_role_project(tmp_path / "p", "acme/params", "boats/hw.params")
    result = run(["fetch", "--git-base", (tmp_path / "repos").as_uri()], root, tmp_path / "c")
    assert result.exit_code == 0, result.output
    assert f"commit: {second}" in (root / "sources.lock").read_text()
    # history from git log: the cached clone is shallow (depth 1) and gets deepened.
    result = run(
        ["history", "WP_*", "--git-base", (tmp_path / "repos").as_uri()], root, tmp_path / "c"
    )
    assert result.exit_code == 0, result.output
    rows = [ln.split() for ln in result.output.splitlines()[2:]]
    assert [(r[0], r[2], r[-1]) for r in rows] == [
        (first[:12], "first", "set)"),
        (second[:12], "second", "WP_RADIUS=1"),
    ]


def test_git_blob_larger_than_the_locked_size_is_not_read(tmp_path: Path) -> None:
    make_repo(tmp_path / "repos" / "acme" / "params.git")
    root = one_role_project(tmp_path / "p", "acme/params", "boats/hw.params")
    base = ["--git-base", (tmp_path / "repos").as_uri()]
    assert run(["fetch", *base], root, tmp_path / "c").exit_code == 0
    lock = root / "sources.lock"
    assert "size: 26\n" in lock.read_text()
    lock.write_text(lock.read_text().replace("size: 26\n", "size: 5\n"))
    result = run(["fetch", *base], root, tmp_path / "fresh")
    assert result.exit_code == 2
    assert "boats/hw.params at commit " in result.output
    assert "has 26 bytes; sources.lock records 5 — do not trust this file" in result.output


def test_ref_that_looks_like_an_option_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "sources.yaml").write_text(
        "version: 1\nprofiles:\n  b:\n    pins:\n      '1':\n        hardware:\n"
        "          repo: acme/params\n          ref: --upload-pack=touch /tmp/x\n"
        "          path: a.params\n"
    )
    result = run(["fetch"], root, tmp_path / "c")
    assert result.exit_code == 2
    assert result.output.startswith(
        "Error: sources.yaml:8: 'profiles.b.pins.1.hardware.ref' is not a safe git ref"
    )


def test_unwritable_lock_and_cache_fail_cleanly(project: Path, tmp_path: Path) -> None:
    mirror = str(tmp_path / "mirror")
    with unwritable(project):
        result = run(["fetch", "--mirror", mirror], project, tmp_path / "c")
    assert result.exit_code == 2
    assert result.output.startswith(f"Error: cannot write {project / 'sources.lock'}")
    assert not (project / "sources.lock").exists()
    assert not list(project.glob(".sources.lock.*"))
    cache = tmp_path / "ro-cache"
    cache.mkdir()
    with unwritable(cache):
        result = run(["fetch", "--mirror", mirror], project, cache)
    assert result.exit_code == 2
    assert "cannot write the cache entry" in result.output
    assert not (project / "sources.lock").exists()


def test_history_over_git_follows_included_files(tmp_path: Path) -> None:
    path = tmp_path / "repos" / "acme" / "sub.git"
    repo = git.Repo.init(path, initial_branch="master")
    (path / "v").mkdir()
    (path / "v" / "heavy.params").write_text('%include "base.params"\nFRAME_CONFIG: 2,\n')
    (path / "v" / "base.params").write_text("SERVO14_FUNCTION: 59,\n")
    repo.index.add(["v/heavy.params", "v/base.params"])
    first = repo.index.commit("add sub").hexsha
    root = one_role_project(tmp_path / "p", "acme/sub", "v/heavy.params", "blueos")
    base = ["--git-base", (tmp_path / "repos").as_uri()]
    assert run(["fetch", *base], root, tmp_path / "c").exit_code == 0
    assert "path: v/base.params" in (root / "sources.lock").read_text()
    # Upstream changes only the included file: --update must still see it.
    (path / "v" / "base.params").write_text("SERVO14_FUNCTION: 182, // lights 2\n")
    repo.index.add(["v/base.params"])
    second = repo.index.commit("fix lights").hexsha
    update = run(["fetch", "--update", *base], root, tmp_path / "c")
    assert update.exit_code == 0, update.output
    assert f"{first[:12]} -> {second[:12]}, file changed" in update.output
    assert (
        f"hardware: 1 parameters changed upstream ({first[:12]} -> {second[:12]}): SERVO14_FUNCTION"
    ) in update.output
    result = run(["history", "SERVO14_FUNCTION", *base], root, tmp_path / "c")
    assert result.exit_code == 0, result.output
    rows = [ln.split() for ln in result.output.splitlines()[2:]]
    assert [(r[0], r[-1]) for r in rows] == [
        (first[:12], "SERVO14_FUNCTION=59"),
        (second[:12], "SERVO14_FUNCTION=182"),
    ]


# --------------------------------------------------------------------------- a hostile MANIFEST


@pytest.mark.parametrize(
    ("manifest", "problem"),
    [
        ("[" * 100_000 + "]" * 100_000, "is not JSON (or nests too deeply)"),
        ("null", "is not a mirror manifest: the top level is not an object"),
        ('{"acme/params": {"branches": ["master"]}}', "branches must map names to 40-hex"),
        ('{"acme/params": {"branches": {"master": "../../evil"}}}', "branches must map names"),
        ('{"acme/params": {"files": {"../x": {}}}}', "is not a 40-hex commit"),
    ],
)
def test_a_hostile_manifest_is_an_input_error(
    project: Path, tmp_path: Path, manifest: str, problem: str
) -> None:
    mirror = build_mirror(tmp_path / "mirror", small_upstream())
    (mirror / "MANIFEST.json").write_text(manifest)
    result = run(["fetch", "--mirror", str(mirror)], project, tmp_path / "cache")
    assert result.exit_code == 2, result.output
    assert problem in result.output and result.output.count("\n") == 1


def test_a_manifest_that_fails_is_asked_for_once_per_run(
    project: Path, tmp_path: Path, http_mirror
) -> None:
    """Before: every role asked again, each with its own deadline (9 x 120 s on a mirror that
    answers 503 forever)."""
    build_mirror(http_mirror.root, small_upstream())
    http_mirror.faults["/MANIFEST.json"] = [404] * 10
    with pytest.raises(FetchError, match=r"has no readable MANIFEST\.json"):
        do_fetch(project, tmp_path / "cache", http_mirror.url)
    assert http_mirror.log.count("/MANIFEST.json") == 1


def test_a_manifest_cannot_raise_the_download_cap(project: Path, tmp_path: Path, http_mirror):
    """The manifest comes from the same server as the files: a size it claims above the cap
    must not lift the cap (before: a body that never ended grew to 2.8 GB)."""
    build_mirror(http_mirror.root, small_upstream())
    manifest = json.loads((http_mirror.root / "MANIFEST.json").read_text())
    for files in manifest["acme/params"]["files"].values():
        files["boats/hw.params"]["size"] = 10**11
    text = json.dumps(manifest)
    (http_mirror.root / "MANIFEST.json").write_text(text)
    cap = len(text) + 16  # room for the manifest itself
    client = HttpClient(HttpSettings(retries=0, max_body=cap))
    choice = TransportChoice(cache_dir=tmp_path / "c", mirror=http_mirror.url)
    choice._made["mirror"] = MirrorTransport(http_mirror.url, client)
    got = choice._made["mirror"].get("acme/params", C2, "boats/hw.params")
    assert got.data == HW  # the real body, well under the cap, still comes through
    (http_mirror.root / "raw/acme/params" / C2 / "boats/hw.params").write_bytes(b"X" * cap * 2)
    with pytest.raises(FetchError, match="larger than"):
        choice._made["mirror"].get("acme/params", C2, "boats/hw.params")


def test_the_default_cache_dir_is_the_users_unless_paramdiff_cache_says(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from paramdiff.fetch.cache import default_cache_dir

    monkeypatch.delenv("PARAMDIFF_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "paramdiff"  # (platformdirs, on Linux)
    monkeypatch.setenv("PARAMDIFF_CACHE", "/somewhere/else")
    assert default_cache_dir() == Path("/somewhere/else")
