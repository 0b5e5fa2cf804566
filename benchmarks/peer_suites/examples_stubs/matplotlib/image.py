"""image of the matplotlib stand-in: ``imsave`` is a no-op, ``imread``
decodes 8-bit, non-interlaced PNG files into float32 arrays in [0, 1]
(matplotlib's result for PNG), with zlib and NumPy only."""
import struct
import zlib

import numpy as np

from matplotlib import STUB

_CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # PNG colour type -> samples per pixel


def imsave(*args, **kwargs):
    pass


def _unfilter(data, height, width, channels):
    """Undo PNG's per-row filters (none, sub, up, average, Paeth)."""
    stride = width * channels
    rows = np.zeros((height, stride), dtype=np.int64)
    previous = np.zeros(stride, dtype=np.int64)
    pos = 0
    for y in range(height):
        kind = data[pos]
        line = np.frombuffer(data, dtype=np.uint8, count=stride, offset=pos + 1).astype(np.int64)
        pos += stride + 1
        out = np.zeros(stride, dtype=np.int64)
        for x in range(stride):
            left = out[x - channels] if x >= channels else 0
            up = previous[x]
            upper_left = previous[x - channels] if x >= channels else 0
            if kind == 0:
                guess = 0
            elif kind == 1:
                guess = left
            elif kind == 2:
                guess = up
            elif kind == 3:
                guess = (left + up) // 2
            else:
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                guess = left if pa <= pb and pa <= pc else (up if pb <= pc else upper_left)
            out[x] = (line[x] + guess) & 0xFF
        rows[y] = previous = out
    return rows.reshape(height, width, channels)


def imread(path, *args, **kwargs):
    with open(path, "rb") as handle:
        blob = handle.read()
    if blob[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: the matplotlib stand-in reads PNG files only")
    pos, chunks, header = 8, [], None
    while pos < len(blob):
        length, kind = struct.unpack(">I4s", blob[pos:pos + 8])
        body = blob[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or interlace or colour not in _CHANNELS:
        raise ValueError(f"{path}: the matplotlib stand-in reads 8-bit non-interlaced PNG only")
    pixels = _unfilter(zlib.decompress(b"".join(chunks)), height, width, _CHANNELS[colour])
    image = (pixels / 255.0).astype(np.float32)
    return image[:, :, 0] if image.shape[2] == 1 else image


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return STUB
