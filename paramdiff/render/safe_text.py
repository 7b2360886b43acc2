"""Text as it leaves paramdiff: control characters made visible, the one function for it.

Anything read from an input — a metadata display name or label, a profile's description, an
overlay's reason, a file name, a model's joint name — can carry ESC (a terminal's colour,
cursor, title or clipboard sequences), other C0 and C1 controls, DEL, bidirectional overrides
(``U+202E`` shows ``exe.txt`` as ``txt.exe``), zero-width and other invisible format
characters, line and paragraph separators, or lone surrogates. ``visible`` writes each of them
as the Python escape of its code point (``\\x1b``, ``\\u202e``, ``\\U000e0001``: the spelling
error lines already use, errors.quote), as literal ASCII text, so it shows and does nothing.
Tab and line feed stay: they are how lines and table columns are written (a value that must
not break a line is flattened where it is placed: markdown cells, derived-file comments,
GitHub annotations).

Every exit goes through it: lines to stdout and stderr (terminal or pipe), every generated
file (the derived file, the report, its SVG, the review, through render/sinks.emit), and the
markdown cells and SVG labels before they are measured or cut. Profile and pin names, which
become file names, are refused at load time instead (config/sources.py, NAME_RE).
"""

from __future__ import annotations

import re

# Unicode categories Cc (controls but TAB and LF), Cf (format: bidi controls, zero-width,
# BOM, tags, ...), Zl and Zp (U+2028/9) and Cs (lone surrogates), as of Unicode 14 (Python
# 3.11's unicodedata; tests/test_safe_text.py compares them), plus Unicode 15's U+13439-F.
UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
    "\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ud800-\udfff\ufeff"
    "\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str) -> str:
    """``text`` with every character UNSAFE names written as its escape (see above)."""
    if _printable(text):  # the common case, at C speed
        return text
    return UNSAFE.sub(_escape, text)


def _printable(text: str) -> bool:
    """Whether ``text`` has no UNSAFE character, told without the pattern: every character it
    names is one ``str.isprintable`` refuses (tests/test_safe_text.py checks all of Unicode),
    and a report's ~150,000 characters of arrows and dashes are scanned in C ~10x faster than
    the pattern's search (1.5 -> 0.13 ms for a 30 kB report)."""
    return text.isprintable() or text.replace("\n", "").replace("\t", "").isprintable()


def has_unsafe(text: str) -> bool:
    """Whether ``visible`` would change ``text``."""
    return not _printable(text) and UNSAFE.search(text) is not None


def visible_lines(lines: list[str]) -> list[str]:
    """``visible`` of each line."""
    return [visible(line) for line in lines]
