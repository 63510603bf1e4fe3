"""Codes from the package's own names: theme columns and IPC definition PDF file names.

These spellings exist only inside the package files, so they are read apart from what users
type, with their own expected-form messages.
"""

from __future__ import annotations

import re

from pmgs_core.notation._code import (
    _EXPECTED_PDF_NAME,
    _EXPECTED_THEME_PARTS,
    _PDF_STEM_RE,
    ClassificationCode,
    InvalidCodeError,
)
from pmgs_core.notation._reading import (
    _above_group,
    _group_code,
    _prepare,
)


def fterm_theme_code(group: str, number: str) -> str:
    """Join the theme group and number columns of ``FI/FI_THEME`` into a theme code.

    The columns are validated separately so that a shifted column is reported instead of
    producing a well-formed but unrelated theme.
    """
    original_group, norm_group = _prepare("fterm", group, _EXPECTED_THEME_PARTS)
    original_number, norm_number = _prepare("fterm", number, _EXPECTED_THEME_PARTS)
    if not re.fullmatch(r"[0-9][A-Z]", norm_group):
        raise InvalidCodeError("fterm", original_group, _EXPECTED_THEME_PARTS, "not a theme group")
    if not re.fullmatch(r"[0-9]{3}", norm_number):
        raise InvalidCodeError(
            "fterm", original_number, _EXPECTED_THEME_PARTS, "not a theme number"
        )
    return norm_group + norm_number


def _file_name(path: object) -> object:
    # Callers pass whatever they walked the package with; only the last component counts.
    if isinstance(path, str):
        return re.split(r"[/\\]", path)[-1]
    return path


def ipc_code_from_pdf_name(filename: str) -> ClassificationCode:
    """Recover the IPC code a ``REFERENCE/IPC_TEIGI`` PDF describes from its file name.

    The names are the only link between a definition PDF and its code, and they use their own
    spelling (``-`` for ``/``, ``_`` padding the main group to 4 places). Directory parts and
    the ``.pdf`` suffix (any case) are ignored; padding is accepted only when it pads to
    exactly 4 places, so a damaged name is reported rather than read.
    """
    original, normalized = _prepare("ipc", _file_name(filename), _EXPECTED_PDF_NAME)
    stem = normalized.removesuffix(".PDF")
    match = _PDF_STEM_RE.fullmatch(stem)
    if match is None:
        raise InvalidCodeError("ipc", original, _EXPECTED_PDF_NAME)
    if match["main"] is None:
        return _above_group("ipc", match)
    pad, main = match["pad"], match["main"]
    if pad and len(pad) + len(main) != 4:
        raise InvalidCodeError(
            "ipc", original, _EXPECTED_PDF_NAME, "main group padding is not 4 places"
        )
    try:
        return _group_code("ipc", original, stem[:4], main, match["sub"])
    except InvalidCodeError as error:
        raise InvalidCodeError("ipc", original, _EXPECTED_PDF_NAME, error.reason) from None
