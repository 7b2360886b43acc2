"""The suite's own rules. The test command runs every test once: the integration tests (those
that read ../shared/upstream) unmeasured, the rest under coverage. That holds only while a
test reaches the mirror through the `upstream` fixture, which marks it `integration`
(conftest.py); one that called helpers.shared_mirror itself would be measured (a coverage
figure no machine without ../shared reproduces) and, under --without-mirror, skipped."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
GATEWAYS = {"conftest.py", "helpers.py", "test_suite.py"}  # the mirror's path, its fixture, this


def test_only_the_upstream_fixture_reaches_the_mirror() -> None:
    reaching = re.compile(r"\bshared_mirror\b|\bSHARED_MIRROR\b")
    found = [
        f"{path.name}:{number}"
        for path in sorted(TESTS.glob("*.py"))
        if path.name not in GATEWAYS
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if reaching.search(line)
    ]
    assert found == []


def test_a_test_using_the_mirror_is_marked_integration(
    request: pytest.FixtureRequest, upstream: Path
) -> None:
    assert request.node.get_closest_marker("integration") is not None


def test_a_test_without_it_is_not(request: pytest.FixtureRequest) -> None:
    assert request.node.get_closest_marker("integration") is None
