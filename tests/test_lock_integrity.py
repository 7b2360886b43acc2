"""The lock is verified on every use, cache hit or not; it is written under a file lock,
read-modify-write, every target or none.

Upstreams are a mirror folder and real local git repositories (git transport); the lock
is edited the way a person (or a pull request) would edit it, one field at a time.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import git
import pytest
from helpers import (
    C1,
    C2,
    M1,
    OVERLAY_YAML,
    ROOT,
    SOURCES_YAML,
    build_mirror,
    location_args,
    run_cli,
    small_upstream,
    tree_bytes,
)

from paramdiff.config.lock import Lock, LockEntry, read_lock, write_lock
from paramdiff.config.lockwrite import LOCK_GUARD, commit_entries
from paramdiff.errors import FetchError
from paramdiff.fetch.verified import VerifiedFile, VerifiedIndex

INVENTED = "de" * 20  # a well-formed commit that exists nowhere


def cli(*args: str) -> tuple[int, str]:
    result = run_cli(list(args))
    return result.exit_code, result.output


# --------------------------------------------------------------------------- upstreams


def git_upstream(base: Path) -> str:
    """The small upstream as real git repositories (one commit each); its file:// base URL."""
    for repo, spec in small_upstream().items():
        head = spec["branches"]  # type: ignore[index]
        commit = next(iter(head.values()))  # type: ignore[union-attr]
        work = base / f"{repo}.git"
        r = git.Repo.init(work, initial_branch=next(iter(head)))  # type: ignore[call-overload]
        files = spec["files"][commit]  # type: ignore[index]
        for path, data in files.items():
            (work / path).parent.mkdir(parents=True, exist_ok=True)
            (work / path).write_bytes(data)
        r.index.add(list(files))
        r.index.commit("upstream")
    return base.as_uri()


class Warm(NamedTuple):
    root: Path  # the project, its lock, derived file and report
    args: list[str]  # how to reach the upstream


@pytest.fixture(scope="module", params=["mirror", "git"])
def warm_template(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Warm:
    """Built once per upstream kind (the mirror folder, or local git over the git
    transport): a project fetched with a warm cache, its derived file and report
    generated, so every command passes."""
    base = tmp_path_factory.mktemp(f"warm-{request.param}")
    root = base / "project"
    (root / "overlays").mkdir(parents=True)
    (root / "sources.yaml").write_text(SOURCES_YAML)
    (root / "overlays" / "boat.yaml").write_text(OVERLAY_YAML)
    if request.param == "mirror":
        args = ["--mirror", str(build_mirror(base / "mirror", small_upstream()))]
    else:
        args = ["--transport", "git", "--git-base", git_upstream(base / "repos")]
    with pytest.MonkeyPatch.context() as env:  # module scope: conftest's cleaner runs later
        for name in [n for n in os.environ if n.startswith("PARAMDIFF_")]:
            env.delenv(name)
        for command in ("fetch", "derive", "report", "check"):
            where = ["--root", str(root), "--cache-dir", str(base / "cache"), *args]
            code, out = cli(command, *where)
            assert code == 0, out
    return Warm(root, args)


@pytest.fixture
def warm(warm_template: Warm, tmp_path: Path) -> Warm:
    """A copy of the template: the project in ``tmp_path/project``, the warm cache in
    ``tmp_path/warm-cache``."""
    shutil.copytree(warm_template.root, tmp_path / "project")
    shutil.copytree(warm_template.root.parent / "cache", tmp_path / "warm-cache")
    return Warm(tmp_path / "project", warm_template.args)


def edit_lock(root: Path, role: str, field: str, value: object) -> bytes:
    """Change one field of one role's entry, textually, as a person would; the new bytes."""
    lock = root / "sources.lock"
    lines = lock.read_text().splitlines(keepends=True)
    start = lines.index(f"      {role}:\n")
    at = next(i for i in range(start, len(lines)) if lines[i].startswith(f"        {field}:"))
    old = lines[at].split(":", 1)[1].strip()
    if value == "+1":
        value = int(old) + 1
    lines[at] = f"        {field}: {value}\n"
    lock.write_text("".join(lines))
    return lock.read_bytes()


# --------------------------------------------------------------------------- a cache hit verifies


ALL = ("fetch", "derive", "report", "check")
LOCK_EDITS = [  # role, field, new value, the commands that read the role
    ("hardware", "commit", INVENTED, ALL),
    ("hardware", "blob", "0a" * 20, ALL),
    ("hardware", "size", "+1", ALL),
    ("sitl_models", "commit", INVENTED, ("fetch", "report", "check")),
    ("calibration", "blob", "1" * 39 + "a", ALL),
]


@pytest.mark.parametrize(
    ("command", "role", "field", "value"),
    [(c, role, f, v) for role, f, v, commands in LOCK_EDITS for c in commands],
)
def test_edited_lock_fails_with_a_warm_cache_exactly_as_on_a_fresh_clone(
    tmp_path: Path, warm: Warm, command: str, role: str, field: str, value: str
) -> None:
    project = warm.root
    edited = edit_lock(project, role, field, value)
    before = tree_bytes(project)
    runs = {
        cache: cli(
            command, "--root", str(project), "--cache-dir", str(tmp_path / cache), *warm.args
        )
        for cache in ("warm-cache", "fresh-cache")
    }
    assert runs["warm-cache"] == runs["fresh-cache"]
    code, out = runs["warm-cache"]
    assert code == 2, out
    assert out.startswith(f"Error: {role} (") and out.count("\n") == 1, out
    assert tree_bytes(project) == before
    assert (project / "sources.lock").read_bytes() == edited


def test_invented_commit_is_refused_offline(tmp_path: Path, warm: Warm) -> None:
    project = warm.root
    edit_lock(project, "hardware", "commit", INVENTED)
    code, out = cli(
        "check", "--offline", "--root", str(project), "--cache-dir", str(tmp_path / "warm-cache")
    )
    assert code == 2
    at = f"boats/hw.params): the file at {INVENTED[:12]} is not in the cache and --offline "
    assert at in out
    assert "if sources.lock was edited, restore it from git" in out


@pytest.mark.parametrize(
    ("field", "value"),
    [("repo", "acme/other"), ("path", "boats/sitl.params")],
)
def test_plain_fetch_never_rewrites_an_edited_entry(
    tmp_path: Path, warm: Warm, field: str, value: str
) -> None:
    """repo and path make a claim about bytes: the entry no longer verifies, so plain fetch
    fails as on a fresh clone and the lock stays as it was; derive refuses it too."""
    project = warm.root
    original = (project / "sources.lock").read_bytes()
    edited = edit_lock(project, "hardware", field, value)
    runs = [
        cli("fetch", "--root", str(project), "--cache-dir", str(tmp_path / cache), *warm.args)
        for cache in ("warm-cache", "fresh-cache")
    ]
    assert runs[0] == runs[1]
    code, out = runs[0]
    assert code == 2
    assert out.startswith(f"Error: hardware (acme/{'other' if field == 'repo' else 'params'}@"), out
    assert (project / "sources.lock").read_bytes() == edited
    where = ["--root", str(project), "--cache-dir", str(tmp_path / "warm-cache"), *warm.args]
    code, out = cli("derive", *where)
    assert code == 2 and "does not match sources.yaml" in out and "restore it from git" in out
    # --update moves an entry without asking the old one: back to what sources.yaml says.
    code, out = cli("fetch", "--update", *where)
    assert code == 0, out
    assert (project / "sources.lock").read_bytes() == original


@pytest.mark.parametrize(("field", "value"), [("ref", "develop"), ("format", "mp")])
def test_a_changed_spec_moves_the_entry_only_after_it_verifies_and_says_so(
    tmp_path: Path, warm: Warm, field: str, value: str
) -> None:
    """A ref (or format) that differs from sources.yaml is what a sources.yaml change looks
    like, and the locked bytes still verify: plain fetch re-resolves that role from
    sources.yaml, and says so — never silently."""
    project = warm.root
    original = (project / "sources.lock").read_bytes()
    edit_lock(project, "hardware", field, value)
    where = ["--root", str(project), "--cache-dir", str(tmp_path / "warm-cache"), *warm.args]
    code, out = cli("fetch", *where)
    assert code == 0, out
    assert f"  hardware: sources.yaml changed; the lock had {field} {value}\n" in out
    assert out.rstrip().endswith("sources.lock written")
    assert (project / "sources.lock").read_bytes() == original


def test_changed_sources_yaml_moves_only_that_role(tmp_path: Path, warm: Warm) -> None:
    project = warm.root
    yaml_path = project / "sources.yaml"
    yaml_path.write_text(
        yaml_path.read_text().replace(
            "path: boats/sitl.params, format: params", "path: boats/hw.params, format: params"
        )
    )
    before = read_lock(project)
    where = ["--root", str(project), "--cache-dir", str(tmp_path / "warm-cache"), *warm.args]
    code, out = cli("derive", *where)
    assert code == 2 and "if you changed sources.yaml, run: paramdiff fetch --profile boat" in out
    code, out = cli("fetch", *where)
    assert code == 0, out
    assert "  sitl: sources.yaml changed; the lock had path boats/sitl.params\n" in out
    after = read_lock(project)
    assert before is not None and after is not None
    moved = {k for k in after.entries if after.entries[k] != before.entries.get(k)}
    assert moved == {("boat", "1.0", "sitl")}
    assert after.entries[("boat", "1.0", "sitl")].path == "boats/hw.params"


def test_a_damaged_verified_record_is_a_miss_and_re_verified(project: Path, tmp_path: Path) -> None:
    where = ["--root", str(project), "--cache-dir", str(tmp_path / "c")]
    mirror = ["--mirror", str(tmp_path / "mirror")]
    assert cli("fetch", *where, *mirror)[0] == 0
    records = sorted((tmp_path / "c" / "verified").rglob("*.json"))
    assert len(records) == 4
    # Truncated, a checksum that does not match, another key's record, a FIFO.
    records[0].write_bytes(records[0].read_bytes()[:-5])
    records[1].write_text(records[1].read_text().replace('"size": ', '"size": 1'))
    shutil.copy(records[3], records[2])
    records[3].unlink()
    os.mkfifo(records[3])
    assert cli("fetch", "--offline", *where)[0] == 2
    code, out = cli("fetch", *where, *mirror)
    assert code == 0, out
    assert out.count("downloaded") == 4 and "cached" not in out
    assert cli("fetch", "--offline", *where)[0] == 0


def test_verified_index_refuses_records_not_for_their_key(tmp_path: Path) -> None:
    index = VerifiedIndex(tmp_path)
    record = VerifiedFile("acme/params", C2, "a.params", 3, "a" * 64, "b" * 40)
    index.put(record)
    assert index.get("acme/params", C2, "a.params") == record
    assert index.get("acme/params", C1, "a.params") is None
    other = index.path_for("acme/params", C1, "a.params")
    other.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(index.path_for("acme/params", C2, "a.params"), other)
    assert index.get("acme/params", C1, "a.params") is None
    index.path_for("acme/params", C2, "a.params").write_bytes(b"{" * 20000)
    assert index.get("acme/params", C2, "a.params") is None


BLUEOS_YAML = """\
version: 1
profiles:
  rov:
    pins:
      "1":
        hardware: {repo: acme/sub, ref: master, path: v/heavy.params, format: blueos}
"""


def test_included_files_are_verified_on_every_use(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "sources.yaml").write_text(BLUEOS_YAML)
    files = {"v/heavy.params": b'%include "base.params"\nFRAME_CONFIG: 2,\n'}
    files["v/base.params"] = b"SERVO14_FUNCTION: 59,\n"
    build_mirror(tmp_path / "m", {"acme/sub": {"branches": {"master": C2}, "files": {C2: files}}})
    where = ["--root", str(root), "--mirror", str(tmp_path / "m")]
    assert cli("fetch", *where, "--cache-dir", str(tmp_path / "c"))[0] == 0
    lock_path = root / "sources.lock"
    good = lock_path.read_text()
    include_blob = good.split("includes:")[1].split("blob: ")[1].split()[0]
    for edited in (
        good.replace(include_blob, "0a" * 20),  # the include's blob
        good.replace(good[good.index("        includes:") : good.index("        path:")], ""),
    ):
        lock_path.write_text(edited)
        warm = cli("fetch", *where, "--cache-dir", str(tmp_path / "c"))
        fresh = cli("fetch", *where, "--cache-dir", str(tmp_path / f"fresh{len(edited)}"))
        assert warm == fresh
        assert warm[0] == 2, warm[1]
        assert lock_path.read_text() == edited


# --------------------------------------------------------------------------- writing the lock


def entry(commit: str, path: str = "a.params") -> LockEntry:
    return LockEntry("acme/params", "master", commit, path, "params", 1, "a" * 64, "b" * 40)


def test_commit_entries_keeps_what_another_run_wrote_meanwhile(tmp_path: Path) -> None:
    base = Lock()  # what this run read before fetching: nothing yet
    write_lock(tmp_path, Lock({("other", "1", "hardware"): entry(C1)}))  # another run, meanwhile
    assert commit_entries(tmp_path, base, {("boat", "1", "hardware"): entry(C2)})
    assert set(read_lock(tmp_path).entries) == {  # type: ignore[union-attr]
        ("other", "1", "hardware"),
        ("boat", "1", "hardware"),
    }


def test_commit_entries_refuses_to_undo_another_runs_move(tmp_path: Path) -> None:
    key = ("boat", "1", "hardware")
    base = Lock({key: entry(C1)})
    write_lock(tmp_path, Lock({key: entry(C2)}))  # another run moved it meanwhile
    on_disk = (tmp_path / "sources.lock").read_bytes()
    with pytest.raises(FetchError, match="changed while this fetch ran: another run wrote boat 1"):
        commit_entries(tmp_path, base, {key: entry(M1)})
    assert (tmp_path / "sources.lock").read_bytes() == on_disk
    assert not commit_entries(tmp_path, base, {key: entry(C2)})  # the same move: nothing to do


def test_commit_entries_waits_for_the_file_lock_held_by_another_process(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import filelock, sys\n"
            f"with filelock.FileLock({str(tmp_path / LOCK_GUARD)!r}):\n"
            "    print('held', flush=True)\n"
            "    sys.stdin.readline()\n",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(FetchError, match=r"another process has held .*\.sources\.lock\.lock"):
            commit_entries(tmp_path, Lock(), {("boat", "1", "hardware"): entry(C2)}, wait=0)
        assert not (tmp_path / "sources.lock").exists()
    finally:
        holder.communicate("\n")
    assert commit_entries(tmp_path, Lock(), {("boat", "1", "hardware"): entry(C2)}, wait=0)


TWO_PROFILES = SOURCES_YAML + (
    "  other:\n    pins:\n      '2':\n"
    "        hardware: {repo: acme/params, ref: master, path: boats/%s, format: params}\n"
)


def test_multi_target_fetch_writes_every_target_or_none(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    build_mirror(tmp_path / "m", small_upstream())
    where = location_args(root, tmp_path / "c", tmp_path / "m")
    (root / "sources.yaml").write_text(TWO_PROFILES % "missing.params")
    code, out = cli("fetch", *where)
    assert code == 2 and "boats/missing.params does not exist" in out
    assert sorted(p.name for p in root.iterdir()) == ["sources.yaml"]  # not the first target
    (root / "sources.yaml").write_text(TWO_PROFILES % "hw.params")
    assert cli("fetch", *where)[0] == 0
    assert {k[0] for k in read_lock(root).entries} == {"boat", "other"}  # type: ignore[union-attr]


def test_full_disk_leaves_the_old_lock_intact(tmp_path: Path) -> None:
    """A lock that grows past one page on a filesystem with one page free: the old code
    wrote the first target and then failed on the second, leaving half a lock."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        _fill_and_fetch(disk, tmp_path)
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def _fill_and_fetch(disk: Path, tmp_path: Path) -> None:
    root = disk / "p"
    root.mkdir()
    upstream = small_upstream()
    upstream["acme/params"]["branches"] = {"master": C1}
    build_mirror(tmp_path / "m", upstream)
    where = location_args(root, tmp_path / "c", tmp_path / "m")
    many_roles = "".join(
        f"        r{i:02}: {{repo: acme/params, ref: master, path: boats/hw.params}}\n"
        for i in range(16)
    )
    big = "  big:\n    pins:\n      '2':\n" + many_roles
    (root / "sources.yaml").write_text(SOURCES_YAML)
    assert cli("fetch", *where)[0] == 0  # the old lock: profile boat at C1, one page
    old = (root / "sources.lock").read_bytes()
    (root / "sources.yaml").write_text(SOURCES_YAML + big)
    build_mirror(tmp_path / "m", small_upstream())  # master moves to C2
    fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass  # full
    finally:
        os.close(fd)
    os.truncate(disk / "filler", os.path.getsize(disk / "filler") // 4096 * 4096 - 4096)
    code, out = cli("fetch", "--update", *where)
    assert code == 2, out
    assert "No space left on device" in out
    assert (root / "sources.lock").read_bytes() == old
    assert not list(root.glob(".sources.lock.*.tmp"))


# --------------------------------------------------------------------------- real processes


def test_concurrent_fetches_of_two_profiles_keep_both(upstream: Path, tmp_path: Path) -> None:
    """Two real `paramdiff fetch` processes at once, five times: both profiles survive, and
    the lock equals the committed one for those pins."""
    root = tmp_path / "p"
    root.mkdir()
    shutil.copy(ROOT / "sources.yaml", root / "sources.yaml")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARAMDIFF_")}
    args = ["--root", str(root), "--cache-dir", str(tmp_path / "c"), "--mirror", str(upstream)]
    base = [sys.executable, "-m", "paramdiff", "fetch", *args]
    subprocess.run(base, env=env, check=True, capture_output=True)  # a warm cache: fast runs
    committed = read_lock(ROOT)
    assert committed is not None
    for _ in range(5):
        (root / "sources.lock").unlink()
        runs = [
            subprocess.Popen([*base, "--profile", p], env=env, stdout=subprocess.PIPE)
            for p in ("blueboat", "bluerov2_heavy")
        ]
        assert [r.wait() for r in runs] == [0, 0]
        for r in runs:
            assert r.stdout is not None
            r.stdout.close()
        lock = read_lock(root)
        assert lock is not None
        # --profile alone: every pin of it, as check checks every pin (#31)
        pins = {("blueboat", "4.7"), ("blueboat", "4.6"), ("bluerov2_heavy", "4.7")}
        assert {k[:2] for k in lock.entries} == pins
        assert all(committed.entries[k] == e for k, e in lock.entries.items())
