"""A minimal PDF writer for the synthetic ``REFERENCE/IPC_TEIGI`` definitions.

No PDF library is a dependency: the files only have to be valid PDF 1.4 whose text pdfium
extracts exactly as written, so the few objects needed are written by hand (a non-embedded
Japanese CID font, an identity ``/ToUnicode`` map, one Flate stream per page; a page without
text only strokes a line).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Final

from pmgs_core import ClassificationCode

__all__ = ["LINE_CHARS", "ipc_pdf_name", "pdf_document"]

LINE_CHARS: Final = 38
"""Characters per text line (full-width characters at 10.5 pt fill an A4 text block)."""

_FONT: Final = b"HeiseiKakuGo-W5"
_HEADER: Final = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"
_EMPTY_PAGE_OPS: Final = b"0.5 w\n56 56 m\n539 56 l\nS"


def _to_unicode_cmap(characters: Sequence[str]) -> bytes:
    """A ToUnicode CMap mapping each 2-byte code used in the file to itself (``bfchar``).

    Only the characters the file shows are listed, as a subset font's map does in real PDFs:
    a map of the whole BMP would make every extraction parse 65,000 entries, which real files
    never ask of a reader. ``bfchar`` blocks hold at most 100 entries, as the spec asks.
    """
    lines = [
        "/CIDInit /ProcSet findresource begin",
        "12 dict begin",
        "begincmap",
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
        "/CMapName /Adobe-Identity-UCS def",
        "/CMapType 2 def",
        "1 begincodespacerange",
        "<0000> <FFFF>",
        "endcodespacerange",
    ]
    codes = sorted({ord(char) for char in characters})
    for start in range(0, len(codes), 100):
        chunk = codes[start : start + 100]
        lines.append(f"{len(chunk)} beginbfchar")
        lines.extend(f"<{code:04X}> <{code:04X}>" for code in chunk)
        lines.append("endbfchar")
    lines += ["endcmap", "CMap currentdict /CMap defineresource pop", "end", "end"]
    return "\n".join(lines).encode("ascii")


def _stream(data: bytes) -> bytes:
    packed = zlib.compress(data, 6)
    return (
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(packed) + packed + b"\nendstream"
    )


def _text_ops(lines: Sequence[str]) -> bytes:
    ops = [b"BT", b"/F1 10.5 Tf", b"15 TL", b"56 780 Td"]
    for line in lines:
        if any(ord(char) > 0xFFFF for char in line):
            raise ValueError(f"PDF text line outside the Basic Multilingual Plane: {line!r}")
        ops.append(b"<" + line.encode("utf-16-be").hex().upper().encode("ascii") + b"> Tj T*")
    ops.append(b"ET")
    return b"\n".join(ops)


def pdf_document(pages: Sequence[Sequence[str]], *, title: str = "") -> bytes:
    """A complete PDF whose page ``i`` shows the lines ``pages[i]`` (no lines: no text).

    ``title`` goes into the document information dictionary (ASCII only, as real tools write
    it for these files), which is metadata and never part of the extracted page text.
    """
    if not pages:
        raise ValueError("a PDF needs at least one page")
    objects: list[bytes] = [b"", b""]  # 1 catalog, 2 page tree: filled in at the end

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    to_unicode = add(
        _stream(_to_unicode_cmap([char for lines in pages for char in "".join(lines)]))
    )
    descriptor = add(
        b"<< /Type /FontDescriptor /FontName /" + _FONT + b" /Flags 4 "
        b"/FontBBox [-92 -250 1010 922] /ItalicAngle 0 /Ascent 880 /Descent -120 "
        b"/CapHeight 700 /StemV 80 >>"
    )
    cid_font = add(
        b"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /" + _FONT + b" "
        b"/CIDSystemInfo << /Registry (Adobe) /Ordering (Japan1) /Supplement 6 >> "
        b"/FontDescriptor %d 0 R /DW 1000 >>" % descriptor
    )
    font = add(
        b"<< /Type /Font /Subtype /Type0 /BaseFont /" + _FONT + b" /Encoding /UniJIS-UCS2-H "
        b"/DescendantFonts [%d 0 R] /ToUnicode %d 0 R >>" % (cid_font, to_unicode)
    )
    kids: list[int] = []
    for lines in pages:
        content = add(_stream(_text_ops(lines) if lines else _EMPTY_PAGE_OPS))
        kids.append(
            add(
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
                b"/Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>" % (font, content)
            )
        )
    if not title.isascii() or any(char in title for char in "()\\\r\n"):
        raise ValueError(f"PDF title must be plain ASCII: {title!r}")
    info = add(b"<< /Title (%s) /Producer (pmgs synthetic test data) >>" % title.encode("ascii"))
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % kid for kid in kids),
        len(kids),
    )
    out = bytearray(_HEADER)
    offsets: list[int] = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        info,
        xref,
    )
    return bytes(out)


def ipc_pdf_name(code: ClassificationCode, *, padded: bool) -> str:
    """The ``REFERENCE/IPC_TEIGI`` file name of an IPC code (``G06F___3-048.pdf``).

    ``-`` stands for ``/``; ``padded`` pads the main group to 4 places with ``_``, the other
    spelling seen in the real release (``G06F3-048.pdf``). Codes without a group are their
    canonical spelling (``G06F.pdf``).
    """
    if code.main_group is None or code.subgroup is None:
        return f"{code.canonical}.pdf"
    head = code.canonical.split("/", 1)[0][:4]
    main = code.main_group.rjust(4, "_") if padded else code.main_group
    return f"{head}{main}-{code.subgroup}.pdf"
