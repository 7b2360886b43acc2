"""The README a newcomer reads, and the docs/ pages it links to, keep their promises: short,
every link lands on a file and heading that exist, and the test command it gives is the one
CI runs (.ci/run)."""

from __future__ import annotations

import re
from pathlib import Path

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
