"""Pages as people see them: a screenshot by headless Chromium (Debian's `chromium`; .ci/run installs it) and
the pixels of that PNG, read with the standard library.

The browser is required: without it a test fails and says how to install it, never a silent skip."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest


def browser() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.fail(
            "headless Chromium is needed to look at the page: apt-get install -y chromium (.ci/run installs it)"
        )
    return found


def screenshot(page: Path, out: Path, width: int, height: int) -> Path:
    subprocess.run(
        [
            browser(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--window-size={width},{height}",
            f"--screenshot={out}",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert out.exists(), f"Chromium wrote no screenshot of {page}"
    return out


def pixels(png: bytes) -> tuple[int, int, int, list[bytes]]:
    """(width, height, channels, rows of RGB(A) bytes) of an 8-bit PNG, as Chromium writes it."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    position, data, width = 8, b"", 0
    height = colour_type = 0
    while position < len(png):
        length, kind = struct.unpack(">I4s", png[position : position + 8])
        body = png[position + 8 : position + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour_type = struct.unpack(">IIBB", body[:10])
            assert depth == 8
        elif kind == b"IDAT":
            data += body
        position += 12 + length
    channels = {2: 3, 6: 4}[colour_type]
    raw, stride, rows, previous = zlib.decompress(data), width * channels, [], bytearray(width * channels)
    for y in range(height):  # undo the PNG row filters (None, Sub, Up, Average, Paeth)
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up, corner = previous[x], previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 255
            elif kind == 2:
                line[x] = (line[x] + up) & 255
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                guess = min((abs(p - left), 0, left), (abs(p - up), 1, up), (abs(p - corner), 2, corner))[2]
                line[x] = (line[x] + guess) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def colours_seen(rows: list[bytes], channels: int) -> set[tuple[int, int, int]]:
    return {tuple(row[x : x + 3]) for row in rows for x in range(0, len(row), channels)}  # type: ignore[misc]
