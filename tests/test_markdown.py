"""Markdown that fits a pull request: one table writer, no padding, one escaping rule, and
committed reports whose part before the full table stays under 60,000 characters."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import ROOT

from paramdiff.render.texttable import markdown_cell, markdown_table, table

# GitHub's PR comment limit is 65,536 characters; leave room for a header and a link.
REPORT_HEAD_LIMIT = 60_000


def test_markdown_tables_have_no_padding_and_escape_pipes() -> None:
    lines = list(table(["name", "value"], [["A", "1 | 2"], ["LONG_NAME", "x\ny"]], True))
    assert lines == [
        "| name | value |",
        "|---|---|",
        "| A | 1 \\| 2 |",
        "| LONG_NAME | x y |",
    ]
    assert list(markdown_table(["a"], [], empty="Nothing.")) == ["Nothing."]
    assert list(markdown_table(["a|b"], [])) == ["| a\\|b |", "|---|"]
    assert list(markdown_table(["a"], [["x\r\ny"]]))[2] == "| x  y |"  # CR and LF blanked


def test_plain_text_tables_stay_aligned() -> None:
    assert list(table(["name", "v"], [["A", "1"], ["LONG", "22"]], False)) == [
        "name    v",
        "------  ---",
        "A       1",
        "LONG    22",
    ]


@pytest.mark.parametrize("report", sorted((ROOT / "reports").glob("*.md")), ids=lambda p: p.name)
def test_committed_report_head_fits_a_pull_request_comment(report: Path) -> None:
    text = report.read_text(encoding="utf-8")
    head, sep, _ = text.partition("<details>")
    assert sep, f"{report.name} has no <details> full table"
    assert len(head) < REPORT_HEAD_LIMIT, f"{report.name}: {len(head)} characters before <details>"
    rows = [ln for ln in text.splitlines() if ln.startswith("|")]
    separators = [ln for ln in rows if ln.startswith("|-")]
    assert separators and all(set(ln.split("|")[1:-1]) == {"---"} for ln in separators)
    assert not [ln for ln in rows if re.search(r"[^\s|]  +\|", ln)]  # no cell padded with blanks


def test_a_cell_cannot_open_html_but_code_keeps_its_brackets() -> None:
    """GitHub drops what looks like an HTML tag (a `sitl_models (<include>)` cell lost its
    word), and an overlay reason must not open <details> or fake the review's comment marker."""
    assert markdown_cell("sitl_models (<include>)") == "sitl_models (&lt;include>)"
    assert markdown_cell("x </details><!-- paramdiff-review -->") == (
        "x &lt;/details>&lt;!-- paramdiff-review -->"
    )
    assert markdown_cell("set `<offset>-0.5</offset>` in <control>") == (
        "set `<offset>-0.5</offset>` in &lt;control>"
    )
    assert markdown_cell("odd ` tick <b>") == "odd ` tick &lt;b>"
