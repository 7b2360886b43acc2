"""GitHub Actions workflow commands: ``::error file=F,line=N,title=T::message``.

Escaping follows @actions/core (actions/toolkit, packages/core/src/command.ts, escapeData and
escapeProperty), which the runner undoes (actions/runner, src/Runner.Common/ActionCommand.cs):
in the message ``%``, CR and LF are percent-encoded; in a property value ``:`` and ``,`` are
too, since they separate the command's parts.
"""

from __future__ import annotations


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(
    message: str,
    *,
    file: str | None = None,
    line: int | None = None,
    title: str | None = None,
    level: str = "error",
) -> str:
    """One workflow command line; GitHub shows it on ``file`` at ``line`` in the pull request."""
    props = []
    if file:
        props.append(f"file={escape_property(file)}")
        if line:
            props.append(f"line={line}")
    if title:
        props.append(f"title={escape_property(title)}")
    head = f"::{level} {','.join(props)}" if props else f"::{level}"
    return f"{head}::{escape_data(message)}"
