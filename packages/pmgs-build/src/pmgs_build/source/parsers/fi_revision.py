"""``FI/FI_KAISEI_DOC/<subclass>.xml``: the FI revision (改正) documents, one per subclass.

The files are untrusted input handed to an XML parser, so the parser is locked down: no DTD
is loaded, no entity is resolved, nothing is fetched, and libxml2 never recovers from an
error. A file that declares a DOCTYPE or an entity is refused before it reaches the parser
at all; the package's files have none, and a half-read document would be worse than none.

Decoding is done here rather than by libxml2 so that "strict Shift_JIS" means the same on
every platform (Python's JIS X 0208 codec, not whatever iconv the system has). One real file
holds CP932-only characters; it is read as CP932 only when the declared encoding fails and
CP932 gives a well-formed document, and that is recorded as a warning.

Each ``<infor>`` becomes one segment whose body is one readable line (format in
docs/database.md), so that the store can show and search it without the XSL stylesheet.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Final

from lxml import etree  # type: ignore[import-untyped]  # lxml ships no stubs

from pmgs_build.build_issues import IssueCode
from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.base import BuildContext, Code, DocumentState, FileResult

__all__ = ["fi_revision_body", "parse_fi_revision"]

_DECLARED_ENCODING: Final = re.compile(
    rb"""\A<\?xml\s[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']"""
)
_UTF8_BOM: Final = b"\xef\xbb\xbf"
_REFUSED_MARKUP: Final = (b"<!DOCTYPE", b"<!ENTITY")
_SHIFT_JIS: Final = "shift_jis"
_CP932: Final = "cp932"
_CP932_UNDEFINED: Final = frozenset("\x80\uf8f0\uf8f1\uf8f2\uf8f3")
"""What Python's CP932 codec makes of the single bytes 0x80, 0xA0 and 0xFD-0xFF, which
Windows-31J leaves undefined: accepting them would let any byte soup count as "CP932"."""

_ROOT: Final = "data"
_ENTRY: Final = "infor"
_CODE: Final = "FI"
_FIELDS: Final = ("title", "oldtitle", "newtitle", "trans", "date")
_LABELS: Final = {
    "title": "名称",
    "oldtitle": "旧名称",
    "newtitle": "新名称",
    "trans": "移行先",
    "date": "日付",
}
_SEPARATOR: Final = " / "
_DATE: Final = re.compile(r"\A([0-9]{4})([0-9]{2})([0-9]{2})\Z")
_AMENDED_COUNTER: Final = "fi_revision_amended_to"


def _parser() -> etree.XMLParser:
    """A fresh strict parser (lxml parsers keep state and are not shared between threads).

    The text handed to it is UTF-8 that this module decoded, whatever the file declares.
    """
    return etree.XMLParser(
        encoding="utf-8",
        resolve_entities=False,
        no_network=True,
        recover=False,
        load_dtd=False,
        huge_tree=False,
    )


class _Refused(Exception):
    """A file this module will not read, with the issue code that says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _strict_parse(text: str) -> etree._Element:
    root = etree.fromstring(text.encode("utf-8"), _parser())
    docinfo = root.getroottree().docinfo
    if docinfo.doctype or docinfo.internalDTD is not None:  # the byte scan should have caught it
        raise _Refused(IssueCode.XML_DOCTYPE_REFUSED, "the file declares a DOCTYPE")
    return root


def _syntax(error: etree.XMLSyntaxError) -> str:
    line, column = error.position
    return f"line {line}, column {column}: {error.msg}"


def _declared_codec(data: bytes) -> str:
    """The Python codec of the file's declared encoding (XML's default: UTF-8)."""
    if data.startswith(_UTF8_BOM):
        return "utf-8-sig"
    match = _DECLARED_ENCODING.match(data[:512])
    if match is None:
        return "utf-8"
    name = match.group(1).decode("ascii")
    try:
        return codecs.lookup(name).name
    except LookupError:
        raise _Refused(IssueCode.XML_ENCODING, f"unknown declared encoding {name!r}") from None


def _read_document(data: bytes) -> tuple[etree._Element, bool]:
    """The parsed root and whether the CP932 fallback was needed."""
    for marker in _REFUSED_MARKUP:
        if marker in data:
            raise _Refused(
                IssueCode.XML_DOCTYPE_REFUSED,
                f"the file contains {marker.decode()!r}; DTDs and entities are never read",
            )
    codec = _declared_codec(data)
    try:
        text = data.decode(codec)
    except UnicodeDecodeError as error:
        if codec != _SHIFT_JIS:
            raise _Refused(
                IssueCode.XML_ENCODING,
                f"not valid {codec} at byte {error.start}: {error.reason}",
            ) from None
        strict_failure = f"not valid Shift_JIS at byte {error.start}"
    else:
        try:
            return _strict_parse(text), False
        except etree.XMLSyntaxError as syntax:
            raise _Refused(IssueCode.XML_MALFORMED, f"not well-formed: {_syntax(syntax)}") from None
    try:
        fallback = data.decode(_CP932)
    except UnicodeDecodeError as error:
        raise _Refused(
            IssueCode.XML_ENCODING,
            f"{strict_failure}, nor valid CP932 at byte {error.start}: {error.reason}",
        ) from None
    if not _CP932_UNDEFINED.isdisjoint(fallback):
        raise _Refused(
            IssueCode.XML_ENCODING, f"{strict_failure}, and holds bytes CP932 leaves undefined"
        )
    try:
        return _strict_parse(fallback), True
    except etree.XMLSyntaxError as syntax:
        raise _Refused(
            IssueCode.XML_ENCODING,
            f"{strict_failure}, and as CP932 it is not well-formed: {_syntax(syntax)}",
        ) from None


def _text(element: etree._Element) -> str:
    return "".join(element.itertext()).strip()


def _iso_date(value: str) -> str:
    match = _DATE.match(value)
    return f"{match[1]}-{match[2]}-{match[3]}" if match else value


def fi_revision_body(fields: dict[str, str]) -> str:
    """The segment body: ``label: value`` for each non-empty field, in :data:`_FIELDS` order.

    ``date`` ``YYYYMMDD`` is written ``YYYY-MM-DD``; any other date text is kept verbatim.
    """
    parts = []
    for name in _FIELDS:
        value = fields.get(name, "")
        if value:
            shown = _iso_date(value) if name == "date" else value
            parts.append(f"{_LABELS[name]}: {shown}")
    return _SEPARATOR.join(parts)


@dataclass(frozen=True, slots=True)
class _Entry:
    code: Code
    attr: str | None
    fields: dict[str, str]


def _entry(
    ctx: BuildContext, source: SourceFile, element: etree._Element, locator: str
) -> _Entry | None:
    """One ``<infor>``, checked: exactly one ``<FI>``, each other field at most once."""

    def invalid(message: str) -> None:
        ctx.log.error(IssueCode.XML_STRUCTURE_INVALID, message, source.path, locator)

    code_elements: list[etree._Element] = []
    fields: dict[str, str] = {}
    for child in element:
        if not isinstance(child.tag, str):
            continue  # comments and processing instructions carry no data
        if child.tag == _CODE:
            code_elements.append(child)
        elif child.tag in _FIELDS and child.tag not in fields:
            fields[child.tag] = _text(child)
        else:
            invalid(f"unexpected <{child.tag}> in <{_ENTRY}>")
            return None
    if len(code_elements) != 1:
        invalid(f"<{_ENTRY}> has {len(code_elements)} <{_CODE}> elements, not exactly one")
        return None
    code_text = _text(code_elements[0])
    if not code_text:
        invalid(f"<{_CODE}> is empty")
        return None
    code = ctx.code("fi", code_text, source, locator)
    if code is None:
        return None
    attr = (code_elements[0].get("attr") or "").strip() or None
    return _Entry(code, attr, fields)


def _subclass(ctx: BuildContext, source: SourceFile, root: etree._Element) -> str | None:
    """The ``trg`` subclass, checked against the root element and the file name."""
    stem = PurePosixPath(source.path).stem

    def invalid(message: str) -> None:
        ctx.log.error(IssueCode.XML_STRUCTURE_INVALID, message, source.path, "element:data")

    if root.tag != _ROOT:
        invalid(f"root element is <{root.tag}>, not <{_ROOT}>")
        return None
    trg = (root.get("trg") or "").strip()
    if not trg:
        invalid(f"<{_ROOT}> has no trg attribute")
        return None
    if trg.upper() != stem.upper():  # a tool may have changed the case: b60j.xml is B60J
        invalid(f"trg {trg!r} is not the file's subclass {stem!r}")
        return None
    code = ctx.code("fi", trg, source, "element:data")
    if code is None:
        return None
    if code.kind != "subclass" or code.canonical != trg:
        invalid(f"trg {trg!r} is not an FI subclass")
        return None
    if trg in ctx.state.fi_revision_subclasses:
        invalid(f"a second revision file for subclass {trg}")
        return None
    return trg


def _store_entry(
    ctx: BuildContext, source: SourceFile, document: DocumentState, entry: _Entry, locator: str
) -> None:
    code = entry.code
    concept_id = ctx.registry.reference(
        "fi", "", code.canonical, code.kind, source_file_id=source.id, locator=locator
    )
    ctx.add_segment(
        document,
        code.canonical,
        entry.attr,
        fi_revision_body(entry.fields),
        source=source,
        locator=locator,
    )
    ctx.add_link(document, concept_id, "subject", source, locator)
    trans = entry.fields.get("trans", "")
    if not trans:
        return
    target = ctx.code("fi", trans, source, locator)
    if target is None:
        return
    target_id = ctx.registry.reference(
        "fi", "", target.canonical, target.kind, source_file_id=source.id, locator=locator
    )
    ctx.add_relation(
        "amended_to",
        concept_id,
        target_id,
        ctx.next_in(_AMENDED_COUNTER),
        source=source,
        locator=locator,
    )


def parse_fi_revision(ctx: BuildContext, source: SourceFile) -> FileResult:
    """Read one revision XML into its ``fi_revision:{subclass}`` document."""
    try:
        root, fallback = _read_document(ctx.read_bytes(source))
    except _Refused as refused:
        ctx.log.error(refused.code, refused.message, source.path)
        return FileResult()
    if fallback:
        ctx.log.warning(
            IssueCode.XML_CP932_FALLBACK,
            "declared Shift_JIS but holds CP932-only characters; read as CP932",
            source.path,
        )
    subclass = _subclass(ctx, source, root)
    if subclass is None:
        return FileResult()
    ctx.state.fi_revision_subclasses.add(subclass)
    document = ctx.document(
        f"fi_revision:{subclass}",
        "fi_revision",
        "ja",
        f"FI改正情報 {subclass}",
        source=source,
        locator="element:data",
    )
    records = 0
    for child in root:
        if not isinstance(child.tag, str):
            continue
        if child.tag != _ENTRY:
            ctx.log.error(
                IssueCode.XML_STRUCTURE_INVALID,
                f"unexpected <{child.tag}> in <{_ROOT}>",
                source.path,
                "element:data",
            )
            continue
        records += 1
        locator = f"element:{_ENTRY}[{records}]"
        entry = _entry(ctx, source, child, locator)
        if entry is not None:
            _store_entry(ctx, source, document, entry, locator)
    return FileResult(records)
