"""A minimal PNG encoder (8-bit RGB, no interlace) built on ``zlib`` and ``struct`` only.

``rimworld/take_screenshot`` writes what :meth:`World.render_rgb` draws; a real mod would read
the frame buffer instead. The output is a valid PNG any viewer opens.
"""

from __future__ import annotations

import struct
import zlib

__all__ = ["PNG_SIGNATURE", "encode_png", "png_size"]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def encode_png(width: int, height: int, rgb: bytes) -> bytes:
    """Encode ``width * height`` RGB pixels (rows top to bottom) as a PNG file."""
    if width < 1 or height < 1:
        raise ValueError(f"a PNG needs at least one pixel, got {width}x{height}")
    stride = width * 3
    if len(rgb) != stride * height:
        raise ValueError(f"expected {stride * height} bytes of RGB for {width}x{height}")
    # filter type 0 (None) before every row
    raw = b"".join(b"\x00" + rgb[row * stride : (row + 1) * stride] for row in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        PNG_SIGNATURE
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(raw, 9))
        + _chunk(b"IEND", b"")
    )


def png_size(data: bytes) -> tuple[int, int]:
    """``(width, height)`` from a PNG's IHDR chunk; :class:`ValueError` if it is no PNG."""
    if not data.startswith(PNG_SIGNATURE) or data[12:16] != b"IHDR":
        raise ValueError("not a PNG file (bad signature or first chunk is not IHDR)")
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)
