"""Decoding helpers shared by the container (ZIP member names) and the parsers (file text)."""

from __future__ import annotations

from typing import Final

__all__ = ["decode_cp932", "decode_utf8"]

_CP932_UNDEFINED: Final = frozenset("\x80\uf8f0\uf8f1\uf8f2\uf8f3")
"""What Python's CP932 codec makes of the bytes Windows-31J leaves undefined (0x80, 0xA0,
0xFD-0xFF): text holding them is not CP932 either."""


def decode_cp932(data: bytes) -> str | None:
    """``data`` as CP932 (the Windows superset of Shift_JIS), or None when it is not."""
    try:
        text = data.decode("cp932", "strict")
    except UnicodeDecodeError:
        return None
    return None if not _CP932_UNDEFINED.isdisjoint(text) else text


def decode_utf8(data: bytes) -> str | None:
    """``data`` as strict UTF-8, or None when it is not."""
    try:
        return data.decode("utf-8", "strict")
    except UnicodeDecodeError:
        return None
