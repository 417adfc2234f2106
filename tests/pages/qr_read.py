"""Read the text of a QR code from its modules, for tests: versions 1 to 10, error correction level M,
one byte-mode segment (what api/static/qr.js draws for a link). Only the data codewords are read:
no error is corrected, and the error-correction codewords are not checked.

The reading follows ISO/IEC 18004: skip the function patterns, walk the two-module columns from the
bottom right in a zigzag, undo the mask, take the data codewords back out of their blocks, and read
the segment (mode 0100, an 8-bit length, the bytes) up to the terminator. Checked against segno's codes as well as the page's (tests/pages/test_handover_qr.py).
"""

from __future__ import annotations

ALIGNMENT = {
    1: (),
    2: (6, 18),
    3: (6, 22),
    4: (6, 26),
    5: (6, 30),
    6: (6, 34),
    7: (6, 22, 38),
    8: (6, 24, 42),
    9: (6, 26, 46),
    10: (6, 28, 50),
}
BLOCKS_M = {
    1: [(1, 26, 16)],
    2: [(1, 44, 28)],
    3: [(1, 70, 44)],
    4: [(2, 50, 32)],
    5: [(2, 67, 43)],
    6: [(4, 43, 27)],
    7: [(4, 49, 31)],
    8: [(2, 60, 38), (2, 61, 39)],
    9: [(3, 58, 36), (2, 59, 37)],
    10: [(4, 69, 43), (1, 70, 44)],
}
"""Per version at level M: (blocks, codewords per block, data codewords per block)."""

MASKS = (
    lambda i, j: (i + j) % 2 == 0,
    lambda i, j: i % 2 == 0,
    lambda i, j: j % 3 == 0,
    lambda i, j: (i + j) % 3 == 0,
    lambda i, j: (i // 2 + j // 3) % 2 == 0,
    lambda i, j: (i * j) % 2 + (i * j) % 3 == 0,
    lambda i, j: ((i * j) % 2 + (i * j) % 3) % 2 == 0,
    lambda i, j: ((i + j) % 2 + (i * j) % 3) % 2 == 0,
)


def _function_modules(version: int) -> set[tuple[int, int]]:
    n = 17 + 4 * version
    taken: set[tuple[int, int]] = set()
    for r0, c0 in ((0, 0), (0, n - 8), (n - 8, 0)):  # finders with their separators
        taken |= {(r, c) for r in range(r0, r0 + 8) for c in range(c0, c0 + 8)}
    taken |= {(6, i) for i in range(n)} | {(i, 6) for i in range(n)}  # timing
    centres = ALIGNMENT[version]
    for r in centres:
        for c in centres:
            if (r, c) in ((6, 6), (6, centres[-1]), (centres[-1], 6)):
                continue  # where a finder is
            taken |= {(r + dr, c + dc) for dr in range(-2, 3) for dc in range(-2, 3)}
    taken |= {(8, i) for i in range(9)} | {(i, 8) for i in range(9)}  # format information
    taken |= {(8, n - 1 - i) for i in range(8)} | {(n - 1 - i, 8) for i in range(8)}
    if version >= 7:  # version information
        taken |= {(r, c) for r in range(6) for c in range(n - 11, n - 8)}
        taken |= {(r, c) for r in range(n - 11, n - 8) for c in range(6)}
    return taken


def _codeword_bits(dark: set[tuple[int, int]], version: int, mask: int) -> list[int]:
    n = 17 + 4 * version
    skip = _function_modules(version)
    bits: list[int] = []
    upward = True
    column = n - 1
    while column > 0:
        if column == 6:
            column = 5
        rows = range(n - 1, -1, -1) if upward else range(n)
        for r in rows:
            for c in (column, column - 1):
                if (r, c) not in skip:
                    bits.append(int((r, c) in dark) ^ int(MASKS[mask](r, c)))
        upward = not upward
        column -= 2
    return bits


def _data_codewords(bits: list[int], version: int) -> list[int]:
    words = [int("".join(map(str, bits[i : i + 8])), 2) for i in range(0, len(bits) - 7, 8)]
    sizes = [data for count, _, data in BLOCKS_M[version] for _ in range(count)]
    blocks: list[list[int]] = [[] for _ in sizes]
    at = 0
    for i in range(max(sizes)):
        for b, size in enumerate(sizes):
            if i < size:
                blocks[b].append(words[at])
                at += 1
    return [w for block in blocks for w in block]


def _segment(data: list[int], version: int) -> str | None:
    bits = "".join(f"{w:08b}" for w in data)
    if bits[:4] != "0100":
        return None
    start = 4 + (8 if version <= 9 else 16)  # the length's width grows at version 10
    length = int(bits[4:start], 2)
    end = start + 8 * length
    if end > len(bits):
        return None
    payload = bytes(int(bits[i : i + 8], 2) for i in range(start, end, 8))
    if bits[end : end + 4].strip("0"):  # the terminator; what follows is padding, which readers skip
        return None
    try:
        return payload.decode("utf-8")
    except UnicodeDecodeError:
        return None


def read(dark: set[tuple[int, int]], size: int) -> str | None:
    """The text a QR code of ``size`` × ``size`` modules holds (``dark``: its dark modules as (row,
    column), quiet zone left out), or None when it cannot be read as a level-M byte-mode code."""
    version = (size - 17) // 4
    if version not in BLOCKS_M or 17 + 4 * version != size:
        return None
    for mask in range(8):
        text = _segment(_data_codewords(_codeword_bits(dark, version, mask), version), version)
        if text is not None:
            return text
    return None
