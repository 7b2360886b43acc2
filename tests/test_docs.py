"""The README a newcomer reads, and the docs/ pages it links to, keep their promises: short,
every link lands on a file and heading that exist, and the test command it gives is the one
CI runs (.ci/run)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import copy_project, run_cli

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README, ROOT / "SECURITY.md", *sorted((ROOT / "docs").glob("*.md"))]
# [text](target): a target without a scheme is a file of this repository (maybe with #anchor)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces become hyphens."""
    found = set()
    for line in page.read_text().splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def test_the_readme_is_short() -> None:
    assert len(README.read_text().splitlines()) <= 250


def test_every_link_between_the_pages_lands() -> None:
    broken = []
    for page in PAGES:
        for target in LINK.findall(page.read_text()):
            if re.match(r"[a-z]+:", target):
                continue  # https://, mailto: — outside the repository
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists():
                broken.append(f"{page.name}: {target} (no such file)")
            elif anchor and anchor not in anchors(linked):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert broken == []


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {(README.parent / t).resolve() for t in LINK.findall(README.read_text())}
    assert [p.name for p in PAGES[2:] if p.resolve() not in linked] == []


def test_ci_runs_the_readmes_test_command() -> None:
    ci = (ROOT / ".ci/run").read_text().splitlines()[-1]
    commands = [line.strip() for line in README.read_text().splitlines() if "pytest" in line]
    assert ci in commands, ci


def test_the_benchmark_block_is_in_the_performance_page() -> None:
    """bench/run.py --write-docs rewrites the text between these markers, and only there."""
    page = (ROOT / "docs/performance.md").read_text()
    assert page.count("<!-- bench:start -->") == 1 and page.count("<!-- bench:end -->") == 1
    assert page.index("<!-- bench:start -->") < page.index("<!-- bench:end -->")
    assert "<!-- bench:" not in README.read_text()


# ------------------------------------------------ "Move a pin, add a role", run as written (#31)


def readme_section(title: str) -> str:
    text = README.read_text()
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def fenced(section: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", section, flags=re.S)


def merged(into: dict[str, Any], keys: dict[str, Any]) -> None:
    """The snippet's keys changed in place, as the README tells the reader to."""
    for key, value in keys.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            merged(into[key], value)
        else:
            into[key] = value


def test_the_move_a_pin_section_runs_as_written(
    upstream: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    section = readme_section("Move a pin, add a role")
    [snippet] = fenced(section, "yaml")
    [commands] = fenced(section, "sh")
    project = copy_project(tmp_path / "project")
    config = yaml.safe_load((project / "sources.yaml").read_text())
    merged(config, yaml.safe_load(snippet))
    (project / "sources.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    monkeypatch.chdir(project)
    monkeypatch.setenv("PARAMDIFF_MIRROR", str(upstream))
    monkeypatch.setenv("PARAMDIFF_CACHE", str(tmp_path / "cache"))
    ran = []
    for line in commands.splitlines():
        command, _, comment = line.partition("  # ")
        words = shlex.split(command)
        assert words[0] == "paramdiff", line
        result = run_cli(words[1:])
        expected = 1 if comment.startswith("fails") else 0
        assert result.exit_code == expected, f"{line}\n{result.output}"
        ran.append(words[1])
    assert ran == ["fetch", "check", "derive", "report", "check"]
    lock = (project / "sources.lock").read_text()
    assert "5e5a0e07eafcbdd12cf74df7dab5e108d11af875" in lock
    assert "hardware_4_5" in lock and "ArduRover/4.5/Navigator/BlueBoat120.params" in lock
    derived = (project / "derived/blueboat_sitl.params").read_text()
    assert "commit 5e5a0e07eafcbdd12cf74df7dab5e108d11af875" in derived
