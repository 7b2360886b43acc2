"""Files on disk: atomic writes (and, for inputs, bounded reads of regular files)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from .errors import ParamdiffError


def write_atomic(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` via a temp file and rename; never leave half a file.

    Returns False (and touches nothing) when the file already holds exactly these bytes.
    """
    try:
        if path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise ParamdiffError(f"cannot read {path}: {exc.strerror}", "check permissions") from None
    tmp_name = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp_name, path)
        tmp_name = None
    except OSError as exc:
        raise ParamdiffError(
            f"cannot write {path}: {exc.strerror or exc}",
            "make the directory writable or choose another output path",
        ) from None
    finally:
        if tmp_name is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
    return True
