"""What the document adapters share: a document per code and language, and the concepts a
document names.

A concept a document names may be absent from the code tables (a handbook of a code
``FI/FI`` does not define, an explanation of an unknown theme): it is reserved and becomes a
reference-only concept, as every other reference does.
"""

from __future__ import annotations

from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.base import BuildContext, DocumentState

__all__ = ["code_document", "name_concept"]


def code_document(
    ctx: BuildContext,
    kind: str,
    language: str,
    code: str,
    titles: dict[str, str],
    source: SourceFile,
    locator: str,
) -> DocumentState:
    """The document ``{kind}:{language}:{code}``, titled ``titles[language]`` with ``{code}``
    filled in, inserted on first use (the title is formatted only then: every row of a
    document asks for it)."""
    key = f"{kind}:{language}:{code}"
    known = ctx.state.documents.get(key)
    if known is not None:
        return known
    title = titles[language].format(code=code)
    return ctx.document(key, kind, language, title, source=source, locator=locator)


def name_concept(
    ctx: BuildContext,
    document: DocumentState,
    role: str,
    concept_key: tuple[str, str, str],
    source: SourceFile,
    locator: str,
) -> int:
    """Link ``document`` as ``role`` (``subject``, ``mentions``) to the concept of
    ``concept_key`` = (scheme, canonical code, kind), reserving the concept when no code
    table defines it; its id."""
    scheme, code, kind = concept_key
    concept = ctx.registry.reference(
        scheme, "", code, kind, source_file_id=source.id, locator=locator
    )
    ctx.add_link(document, concept, role, source, locator)
    return concept
