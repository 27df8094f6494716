"""Writing output files so that a reader never sees half of one."""

from __future__ import annotations

import os
import tempfile

from kgroup.inspectors.errors import InputError


def output_folder(path: str, field: str | None = None) -> str:
    """The folder an output file goes into; bad input when it does not exist, or when `path` is a folder
    (checked before anything is written, so a run with two outputs never writes one of them)."""
    if os.path.isdir(path):
        raise InputError(f"{path!r}: is a directory; name a file", field=field)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise InputError(f"{path!r}: the folder {folder} does not exist", field=field)
    return folder


def _umask() -> int:
    """The process umask (read by setting it, so set it straight back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomically(path: str, text: str, field: str | None = None) -> None:
    """Write next to `path`, then rename over it: the file is either absent, the old one, or complete."""
    folder = output_folder(path, field)
    temporary = None
    try:
        handle, temporary = tempfile.mkstemp(prefix=".kgroup-", dir=folder)
        # mkstemp makes the file 0600; a file the user asked for gets what their umask gives, as `>` would
        os.fchmod(handle, 0o666 & ~_umask())
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException as exc:
        # nothing half-written stays behind, whatever stopped the write (text no encoding holds, Ctrl-C)
        if temporary is not None and os.path.exists(temporary):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise InputError(f"{path!r}: cannot write it: {exc.strerror}", field=field) from None
        raise
