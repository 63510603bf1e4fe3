"""Classification code notations: FI, F-term and IPC, as users type them and as PMGS stores them.

Every lookup in pmgs starts from a code somebody typed, pasted from a PDF or read from a
space-padded CSV cell, and the same code has many spellings (``G06F3/048``, ``G06F 3/048``,
``G06F0003048000``, ``Ｇ０６Ｆ３／０４８``, ``G06F   3/   048    ``). Everything is reduced to one
canonical spelling, the one J-PlatPat shows, so that the store needs exactly one key per code.

The module fails closed. A code that parses into something plausible but wrong (the classic
case is a fixed-width FI cell ``…/    00501B`` read as subgroup ``00501``) silently sends a
user to the wrong place, while an error costs one retry; so every ambiguity raises
:class:`InvalidCodeError` instead of being resolved by a guess. Decisions worth knowing:

* Input is NFKC-normalised so that full-width text pasted from Japanese documents works, but
  only ASCII, full-width ASCII (U+FF01-U+FF5E) and the ideographic / no-break space may occur
  in the input. Other characters that NFKC would fold into digits or slashes (``²``, ``⁄``)
  are rejected rather than trusted.
* A main group is written without leading zeros (``G06F3/048``); zero-padded main groups are
  accepted only inside the WIPO 14-character symbol, where the padding is part of the format.
* A subgroup has 2 to 6 digits and no trailing zero beyond the first two (``/048``, never
  ``/0480``): IPC subgroup digits after the first two are a decimal fraction, so ``/0480``
  would be a second spelling of ``/048`` and the WIPO form could not tell them apart.
* FI broad facets (広域ファセット) are taken to be ``Z`` plus two letters (``ZAA``). All known
  facets have that shape; a facet outside it makes a build fail loudly instead of being
  mistaken for something else. Facet sub-terms are not modelled.
* An FI code with a development code or file symbol keeps the kind of its IPC group part:
  ``B60J5/00,501@B`` is a ``main_group`` and ``G06F3/048,101`` a ``subgroup``, because the
  kind describes the position in the IPC hierarchy; the extension is visible in
  :attr:`ClassificationCode.development_code` and :attr:`ClassificationCode.file_symbol`.
* An IPC indexing code of editions 4 to 7 is written with ``:`` in place of ``/``
  (``A61K 103:00``, ``C11D 1:04``). It has the numbers of a group but is another code, so it
  is kept apart (:attr:`ClassificationCode.indexing`, canonical ``A61K103:00``) and never
  read as, or folded into, ``A61K103/00``. It has no version and no WIPO symbol.
"""

from __future__ import annotations

from pmgs_core.notation._code import (
    FI_FIXED_WIDTH,
    FTERM_FIXED_WIDTH,
    IPC_FIXED_WIDTH,
    MAX_CODE_INPUT_LENGTH,
    ClassificationCode,
    InvalidCodeError,
    InvalidSchemeError,
    Kind,
    Scheme,
)
from pmgs_core.notation._names import (
    fterm_theme_code,
    ipc_code_from_pdf_name,
)
from pmgs_core.notation._reading import (
    format_fixed_width,
    normalize_code,
    parse_code,
    parse_ipc_version,
)

__all__ = [
    "FI_FIXED_WIDTH",
    "FTERM_FIXED_WIDTH",
    "IPC_FIXED_WIDTH",
    "MAX_CODE_INPUT_LENGTH",
    "ClassificationCode",
    "InvalidCodeError",
    "InvalidSchemeError",
    "Kind",
    "Scheme",
    "format_fixed_width",
    "fterm_theme_code",
    "ipc_code_from_pdf_name",
    "normalize_code",
    "parse_code",
    "parse_ipc_version",
]
