"""The results memo (paramdiff/memo.py): a kept result is exactly what computing it gives,
for the very inputs it was computed from, and never for any others."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from helpers import CliResult, run_cli, unwritable

from paramdiff.memo import fingerprint, pin_memo
from paramdiff.pin import Pin
from paramdiff.project import Project

COMMANDS = [["derive", "--check"], ["compare", "three-way"], ["check"]]


def cache_of(loc: list[str]) -> Path:
    return Path(loc[loc.index("--cache-dir") + 1])


def entries(loc: list[str]) -> list[Path]:
    return sorted((cache_of(loc) / "results").glob("*/*"))


def forget(loc: list[str]) -> None:
    shutil.rmtree(cache_of(loc) / "results", ignore_errors=True)


def computed(command: list[str], loc: list[str], monkeypatch: pytest.MonkeyPatch) -> CliResult:
    with monkeypatch.context() as m:
        m.setenv("PARAMDIFF_MEMO", "0")
        return run_cli([*command, *loc])


def same(a: CliResult, b: CliResult) -> bool:
    return (a.exit_code, a.output) == (b.exit_code, b.output)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_kept_result_is_what_computing_gives(
    derived: tuple[Path, list[str]], command: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, loc = derived
    forget(loc)
    first = run_cli([*command, *loc])  # computed and kept
    assert first.exit_code == 0, first.output
    assert entries(loc), "nothing was kept"
    kept = entries(loc)
    again = run_cli([*command, *loc])  # read back
    assert same(again, first)
    assert entries(loc) == kept  # nothing new: it was a hit
    assert same(computed(command, loc, monkeypatch), first)


def test_memo_off_keeps_nothing(
    derived: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, loc = derived
    shutil.rmtree(Path(loc[loc.index("--cache-dir") + 1]) / "results", ignore_errors=True)
    for command in COMMANDS:
        assert computed(command, loc, monkeypatch).exit_code == 0
    assert entries(loc) == []


EDITS = {
    "sources.yaml": lambda t: t.replace("categories:", "# a comment\ncategories:", 1),
    "overlays/boat.yaml": lambda t: t + "# reviewed again\n",
    "sources.lock": lambda t: t + "# a comment\n",
    "derived/boat_sitl.params": lambda t: t.replace("WP_RADIUS 1", "WP_RADIUS 2"),
    "reports/boat-1.0.md": lambda t: t + "edited\n",
}


@pytest.mark.parametrize("edited", sorted(EDITS))
@pytest.mark.parametrize("command", COMMANDS)
def test_any_input_edited_is_computed_again(
    derived: tuple[Path, list[str]],
    command: list[str],
    edited: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After an edit the command says what computing says (a stale derived file or report
    fails check, a changed comment changes the derived file's digests): never the kept
    result of the inputs before."""
    root, loc = derived
    assert run_cli([*command, *loc]).exit_code == 0  # kept for the inputs as they are
    path = root / edited
    path.write_text(EDITS[edited](path.read_text()))
    after = run_cli([*command, *loc])
    assert same(after, computed(command, loc, monkeypatch)), after.output


def test_a_stale_derived_file_fails_check_kept_or_not(
    derived: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, loc = derived
    path = root / "derived/boat_sitl.params"
    path.write_text(path.read_text().replace("WP_RADIUS 1", "WP_RADIUS 2"))
    first = run_cli(["check", *loc])
    assert first.exit_code == 1, first.output
    assert "derived/boat_sitl.params differs from what derive writes" in first.output
    assert same(run_cli(["check", *loc]), first)  # the failing outcome read back
    assert same(computed(["check"], loc, monkeypatch), first)


@pytest.mark.parametrize("damage", ["edit", "truncate", "fifo", "directory"])
def test_a_damaged_entry_is_computed_again(derived: tuple[Path, list[str]], damage: str) -> None:
    _, loc = derived
    forget(loc)
    first = run_cli(["compare", "three-way", *loc])
    (entry,) = entries(loc)
    data = entry.read_bytes()
    if damage == "edit":  # a line changed, the entry still JSON: its digest no longer fits
        kept = json.loads(data)
        kept["value"][0] = "forged"
        entry.write_text(json.dumps(kept))
    elif damage == "truncate":
        entry.write_bytes(data[: len(data) // 2])
    else:
        entry.unlink()
        os.mkfifo(entry) if damage == "fifo" else entry.mkdir()
    again = run_cli(["compare", "three-way", *loc])
    assert same(again, first)


def test_damaged_pinned_bytes_are_a_miss(derived: tuple[Path, list[str]]) -> None:
    """A kept result is read only while the cache holds every pinned file as verified: a
    damaged one is refused offline, as it is without a kept result."""
    _, loc = derived
    assert run_cli(["derive", "--check", *loc]).exit_code == 0
    cache = Path(loc[loc.index("--cache-dir") + 1])
    (entry,) = [p for p in (cache / "sha256").glob("*/*") if b"SERVO1_FUNCTION" in p.read_bytes()][
        :1
    ]
    entry.write_bytes(entry.read_bytes() + b"\n")
    offline = [a for a in loc if a != "--mirror" and not a.endswith("mirror")]
    result = run_cli(["derive", "--check", *offline, "--offline"])
    assert result.exit_code == 2, result.output
    assert "--offline forbids the network" in result.output


def test_an_unwritable_cache_costs_time_not_the_command(derived: tuple[Path, list[str]]) -> None:
    _, loc = derived
    forget(loc)
    results = cache_of(loc) / "results"
    results.mkdir()
    with unwritable(results):
        for command in COMMANDS:
            result = run_cli([*command, *loc])
            assert result.exit_code == 0, result.output
    assert entries(loc) == []


LOCAL_LAUNCH = """\
    launches:
      - name: rewired
        command: ardurover -w --model rover-skid --defaults derived/boat_sitl.params,sim/rewire.parm
"""


def test_a_pin_reading_an_unpinned_file_is_never_kept(
    derived: tuple[Path, list[str]],
) -> None:
    """A launch's defaults file in the repository is pinned by nothing: its results depend
    on bytes no key holds, so they are computed every time."""
    root, loc = derived
    text = (root / "sources.yaml").read_text()
    (root / "sources.yaml").write_text(text.replace("    pins:\n", LOCAL_LAUNCH + "    pins:\n", 1))
    (root / "sim").mkdir()
    (root / "sim" / "rewire.parm").write_text("SERVO1_FUNCTION 73\n")
    forget(loc)
    for command in COMMANDS:
        result = run_cli([*command, *loc])
        # each ran its stages (a usage or input error would keep nothing either way)
        assert result.exit_code in (0, 1), result.output
        assert "Error: " not in result.output or "differs" in result.output, result.output
    assert entries(loc) == []


def test_the_code_fingerprint_follows_every_file(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "data").mkdir(parents=True)
    (package / "a.py").write_text("x = 1\n")
    (package / "data" / "table.json").write_text("{}")
    before = fingerprint(package)
    assert fingerprint(package) == before
    (package / "data" / "table.json").write_text("{} ")
    assert fingerprint(package) != before
    os.utime(package / "a.py", ns=(1, 1))
    changed = fingerprint(package)
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"x")
    assert fingerprint(package) == changed  # bytecode is not code


def boat_pin(root: Path, loc: list[str]) -> Pin:
    return Pin(Project(root=root, cache_dir=cache_of(loc), offline=True), None, None)


def test_an_input_changed_while_computing_is_not_kept(derived: tuple[Path, list[str]]) -> None:
    """The result may have read the new bytes: never kept under the old ones' key, nor when
    the file was put back meanwhile (same bytes, another change time)."""
    root, loc = derived
    forget(loc)
    memo = pin_memo(boat_pin(root, loc), "derive", "params", False)
    assert memo is not None
    overlay = root / "overlays/boat.yaml"
    original = overlay.read_text()
    overlay.write_text(original + "# edited while derive ran\n")
    memo.put([["computed from which bytes?"], []])
    assert not memo.path.exists()
    overlay.write_text(original)  # put back: the same bytes as the key says
    memo.put([["computed from the edit?"], []])
    assert not memo.path.exists()
    again = pin_memo(boat_pin(root, loc), "derive", "params", False)
    assert again is not None and again.path == memo.path  # the same inputs: the same key
    again.put([["computed from these"], []])
    assert again.path.exists()


def test_sources_yaml_counts_as_parsed_not_as_on_disk(derived: tuple[Path, list[str]]) -> None:
    """sources.yaml is parsed when the run starts: a result computed from that config is
    kept under its bytes, never under a file that replaced it before the key was made."""
    root, loc = derived
    forget(loc)
    pin = boat_pin(root, loc)  # parses sources.yaml
    sources = root / "sources.yaml"
    sources.write_text(sources.read_text().replace("categories:", "# edited\ncategories:", 1))
    old = pin_memo(pin, "derive", "params", False)
    new = pin_memo(boat_pin(root, loc), "derive", "params", False)
    assert old is not None and new is not None
    assert old.path != new.path


def link_to_copy(path: Path, folder: Path) -> None:
    """``path`` replaced by a symlink to a copy of it in ``folder``."""
    copy = folder / f"copy-{path.name}"
    copy.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(copy)


@pytest.mark.parametrize(
    ("linked", "command", "refusal"),
    [
        ("overlays/boat.yaml", ["derive", "--check"], "leads outside the project"),
        ("overlays/boat.yaml", ["check"], "leads outside the project"),
        ("derived/boat_sitl.params", ["check"], "is a symlink"),
        ("reports/boat-1.0.md", ["check"], "is a symlink"),
    ],
)
def test_a_link_the_computation_refuses_is_refused_kept_or_not(
    derived: tuple[Path, list[str]],
    tmp_path: Path,
    linked: str,
    command: list[str],
    refusal: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The key reads each file as the computation does (project_path): the same bytes behind
    a symlink out of the project (or any link where paramdiff writes) are no hit."""
    root, loc = derived
    assert run_cli([*command, *loc]).exit_code == 0  # kept for the plain file
    path = root / linked
    link_to_copy(path, tmp_path if "outside" in refusal else path.parent)
    result = run_cli([*command, *loc])
    assert result.exit_code == 2, result.output
    assert refusal in result.output
    assert same(result, computed(command, loc, monkeypatch))


@pytest.mark.parametrize("planted", ["fifo", "directory"])
def test_a_fifo_or_folder_is_not_a_missing_file(
    derived: tuple[Path, list[str]], planted: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, loc = derived
    path = root / "derived/boat_sitl.params"
    path.unlink()
    assert run_cli(["check", *loc]).exit_code == 1  # kept: the file is missing
    os.mkfifo(path) if planted == "fifo" else path.mkdir()
    result = run_cli(["check", *loc])
    assert same(result, computed(["check"], loc, monkeypatch)), result.output
    assert result.exit_code == 2, result.output


def test_package_data_counts_by_its_bytes(tmp_path: Path) -> None:
    """A data file edited to the same size and modification time is another fingerprint
    (a module is judged by size and time, as Python judges its .pyc)."""
    package = tmp_path / "pkg"
    package.mkdir()
    table = package / "types.tsv"
    table.write_text("AP_Int16\t4\n")
    os.utime(table, ns=(10**18, 10**18))
    before = fingerprint(package)
    table.write_text("AP_Int16\t9\n")
    os.utime(table, ns=(10**18, 10**18))
    assert fingerprint(package) != before
