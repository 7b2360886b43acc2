"""Fetch over real transports: a local HTTP server (mirror layout), a mirror folder, local git."""

from __future__ import annotations

from pathlib import Path

import git
import pytest
from click.testing import CliRunner
from conftest import C2, M1, build_mirror, small_upstream, tree_bytes, unwritable

from paramdiff.cli import main
from paramdiff.config.sources import load_config
from paramdiff.errors import FetchError
from paramdiff.upstream.cache import Cache
from paramdiff.upstream.fetch import TransportChoice, fetch
from paramdiff.upstream.transports import GitTransport, HttpClient, HttpSettings, MirrorTransport


def run(args: list[str], root: Path, cache: Path) -> object:
    return CliRunner().invoke(
        main, [*args, "--root", str(root), "--cache-dir", str(cache)], catch_exceptions=False
    )


def fast_client() -> HttpClient:
    return HttpClient(HttpSettings(connect_timeout=1, read_timeout=0.5, retries=2, backoff=0.01))


def do_fetch(root: Path, cache: Path, mirror: str, update: bool = False) -> object:
    config = load_config(root)
    choice = TransportChoice(cache_dir=cache, mirror=mirror)
    if mirror.startswith("http"):
        choice._made["mirror"] = MirrorTransport(mirror, fast_client())
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


def test_connection_refused(project: Path, tmp_path: Path) -> None:
    with pytest.raises(FetchError, match="connection failed"):
        do_fetch(project, tmp_path / "cache", "http://127.0.0.1:9")
    assert not (project / "sources.lock").exists()


def test_tampered_mirror_file_is_refused(project: Path, tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    (mirror / "raw" / "acme/params" / C2 / "boats/hw.params").write_bytes(b"FRAME_CLASS 1\n")
    result = CliRunner().invoke(
        main,
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
    result = CliRunner().invoke(
        main,
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
    assert "is not in the cache and --offline forbids the network" in result.output


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


def test_fetch_over_git_transport_end_to_end(tmp_path: Path) -> None:
    _, first, second = make_repo(tmp_path / "repos" / "acme" / "params.git")
    root = tmp_path / "p"
    root.mkdir()
    (root / "sources.yaml").write_text(
        "version: 1\nprofiles:\n  b:\n    pins:\n      '1':\n        hardware:\n"
        "          repo: acme/params\n          ref: master\n          path: boats/hw.params\n"
        "          transport: git\n"
    )
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
    root = tmp_path / "p"
    root.mkdir()
    (root / "sources.yaml").write_text(
        "version: 1\nprofiles:\n  rov:\n    pins:\n      '1':\n        hardware:\n"
        "          repo: acme/sub\n          ref: master\n          path: v/heavy.params\n"
        "          format: blueos\n          transport: git\n"
    )
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
