"""Reading a PNG with the standard library alone (zlib): enough to count a screenshot's ink."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def rows(path: Path) -> tuple[int, int, int, list[bytes]]:
    """Width, height, bytes per pixel and the unfiltered rows of an 8-bit RGB or RGBA PNG."""
    data = path.read_bytes()
    assert data.startswith(SIGNATURE), "not a PNG"
    at, idat, header = len(SIGNATURE), [], b""
    while at < len(data):
        (length,), kind = struct.unpack(">I", data[at:at + 4]), data[at + 4:at + 8]
        body = data[at + 8:at + 8 + length]
        at += 12 + length
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat.append(body)
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
    bpp = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(b"".join(idat)), width * bpp
    prior, out = bytes(stride), []
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], raw[start + 1:start + 1 + stride]
        prior = _unfilter(kind, line, prior, bpp)
        out.append(prior)
    return width, height, bpp, out


def _unfilter(kind: int, line: bytes, prior: bytes, bpp: int) -> bytes:
    if kind == 0:
        return line
    if kind in (2, 4) and not any(line):  # up or Paeth with nothing added: the row above
        return prior
    if kind == 2:
        return bytes((a + b) & 0xFF for a, b in zip(line, prior, strict=True))
    row = bytearray(line)
    for i in range(len(row)):
        left = row[i - bpp] if i >= bpp else 0
        if kind == 1:
            row[i] = (row[i] + left) & 0xFF
        elif kind == 3:
            row[i] = (row[i] + ((left + prior[i]) >> 1)) & 0xFF
        else:
            up, corner = prior[i], prior[i - bpp] if i >= bpp else 0
            p = left + up - corner
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
            guess = left if pa <= pb and pa <= pc else up if pb <= pc else corner
            row[i] = (row[i] + guess) & 0xFF
    return bytes(row)





#: 1 for a channel value dark enough to be a line or text (anti-aliased edges aside), else 0.
DARK = bytes(1 if v < 160 else 0 for v in range(256))


def ink(path: Path) -> tuple[int, int, int, int]:
    """A screenshot's width and height, how many of its pixels are dark (by their green
    channel: lines and text, not the pale fills) and the row below its lowest dark pixel."""
    width, height, bpp, lines = rows(path)
    counts = [line[1::bpp].translate(DARK).count(1) for line in lines]
    bottom = next((y + 1 for y in range(height - 1, -1, -1) if counts[y]), 0)
    return width, height, sum(counts), bottom
