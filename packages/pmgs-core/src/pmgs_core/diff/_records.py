"""The record of ``diff_releases`` (``record_type: release_diff``); schema in check.schema.json."""

from __future__ import annotations

from typing import Final, Literal, TypedDict, get_args

from pmgs_core.records import ReleaseRef

__all__ = ["DIFF_SECTIONS", "DiffCount", "DiffItem", "DiffSection", "LinkEnd", "ReleaseDiff"]

DiffSection = Literal[
    "added",
    "removed",
    "retitled",
    "moved",
    "theme_link_added",
    "theme_link_removed",
    "concordance_added",
    "concordance_removed",
]
DIFF_SECTIONS: Final[tuple[DiffSection, ...]] = get_args(DiffSection)


class LinkEnd(TypedDict):
    """The other end of a theme or concordance link."""

    scheme: str
    edition: str | None
    code: str


class DiffItem(TypedDict):
    """One difference. Codes: ``kind`` and titles or parents as they apply; links: ``target``."""

    section: DiffSection
    scheme: str
    edition: str | None
    code: str
    kind: str | None
    old_title: str | None
    new_title: str | None
    old_parent: str | None
    new_parent: str | None
    target: LinkEnd | None


class DiffCount(TypedDict):
    section: DiffSection
    scheme: str
    count: int


class ReleaseDiff(TypedDict):
    """Counts per section and scheme first, then one page of the items in section order."""

    record_type: Literal["release_diff"]
    from_release: ReleaseRef
    to_release: ReleaseRef
    scheme: str | None
    under: str | None
    counts: list[DiffCount]
    total: int
    limit: int
    offset: int
    truncated: bool
    next_offset: int | None
    items: list[DiffItem]
    attribution: str
    content_role: str
    notice: str
