"""pmgs-core: the read-only reference store, its schema and the classification code notations.

Everything a user of the store (and the other packages) may use is re-exported here and
listed in ``__all__``; the architecture test refuses imports of anything else, so the modules
behind this file can be reorganised without breaking the other packages (ADR 0001). What only
the builder needs (the schema's DDL, cutting the search index, writing the data directory's
pointer) is in :mod:`pmgs_core.building`, which an import contract opens to pmgs-build alone
(ADR 0030).
"""

import importlib
from typing import TYPE_CHECKING

from pmgs_core.errors import (
    ERROR_CATEGORIES,
    ERROR_CODES,
    ErrorCategory,
    ErrorCode,
    PMGSQueryError,
)
from pmgs_core.notation import (
    ClassificationCode,
    InvalidCodeError,
    InvalidSchemeError,
    Kind,
    Scheme,
    format_fixed_width,
    fterm_theme_code,
    normalize_code,
    parse_code,
)
from pmgs_core.plugins import (
    COMMAND_ENTRY_POINT_GROUP,
    MOUNT_ENTRY_POINT_GROUP,
    CommandMain,
    MountFactory,
    distribution_version,
    mount_factories,
)
from pmgs_core.records import (
    CONTENT_ROLE,
    EVIDENCE_NOTICE,
    MAX_RESPONSE_BYTES,
    RECORD_SCHEMA_NAMES,
    SEARCH_INDEXES,
    SEARCH_MODES,
    Categories,
    ClassificationRecord,
    ClassificationSearchHit,
    ClassificationSearchPage,
    CodeContext,
    CodeRef,
    CollectionCategories,
    CollectionDocument,
    CollectionDocumentList,
    CollectionDocumentPage,
    CollectionDocumentPut,
    CollectionReindexed,
    CollectionSearch,
    CombinedSearchPage,
    DocumentListPage,
    DocumentPage,
    DocumentSearchHit,
    DocumentSearchPage,
    HierarchyPage,
    HierarchySummary,
    MatchStatus,
    QuarantineItem,
    QuarantinePage,
    RelatedDocumentsRecord,
    ReleaseInfo,
    ReleaseRef,
    SchemeMerge,
    SearchIndex,
    SearchMode,
    SourceRef,
    concise_record,
    concise_schema,
    load_schema,
    record_json_schema,
)
from pmgs_core.schema import (
    DOCUMENT_KINDS,
    IPC_EDITIONS,
    RECORD_STATUSES,
    RELATION_KINDS,
    SCHEMA_VERSION,
    SCHEMES,
)
from pmgs_core.store import MAX_LIMIT, CodeMarkers, PMGSStore
from pmgs_core.viewer_paths import code_viewer_path, document_viewer_path

if TYPE_CHECKING:
    from pmgs_core.check import CHECK_STATUSES, MAX_CHECK_CODES, CodeCheckRecord
    from pmgs_core.collection import (
        COLLECTION_FILE,
        COLLECTION_RECORD_NAMES,
        DEFAULT_SETTINGS,
        Collection,
        FolderSync,
        collection_json_schema,
        read_settings,
        text_files,
        vectors_available,
        watch_folders,
        write_settings,
    )
    from pmgs_core.datadir import (
        CurrentPointer,
        ResolvedDatabase,
        default_data_dir,
        read_current_pointer,
        resolve_database,
    )
    from pmgs_core.diff import DIFF_SECTIONS, ReleaseDiff, diff_releases

    __version__: str


_LAZY_EXPORTS: dict[str, str] = {
    name: module
    for module, names in (
        (
            "collection",
            "COLLECTION_FILE COLLECTION_RECORD_NAMES Collection collection_json_schema "
            "DEFAULT_SETTINGS FolderSync read_settings text_files vectors_available "
            "watch_folders write_settings",
        ),
        ("check", "CHECK_STATUSES MAX_CHECK_CODES CodeCheckRecord"),
        ("diff", "DIFF_SECTIONS ReleaseDiff diff_releases"),
        (
            "datadir",
            "CurrentPointer ResolvedDatabase default_data_dir read_current_pointer "
            "resolve_database",
        ),
    )
    for name in names.split()
}
"""Names served from their module on first use (PEP 562), by module: the collection imports
sqlite-utils, whose start-up cost ``pmgs lookup`` must not pay; ``check`` (the formula
reader), ``diff`` and ``datadir`` cost the stdio MCP server tens of milliseconds of its start
that no answer before the first call needs."""


def __getattr__(name: str) -> object:
    """Look the version up only when asked: importlib.metadata costs ~60 ms of cold start,
    and ``pmgs lookup`` must start in 0.3 s. The modules of :data:`_LAZY_EXPORTS` are
    imported on first use for the same reason."""
    module = _LAZY_EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f"pmgs_core.{module}"), name)
        globals()[name] = value
        return value
    if name == "__version__":
        return distribution_version("pmgs-core")
    raise AttributeError(f"module 'pmgs_core' has no attribute {name!r}")


__all__ = [
    "CHECK_STATUSES",
    "COLLECTION_FILE",
    "COLLECTION_RECORD_NAMES",
    "COMMAND_ENTRY_POINT_GROUP",
    "CONTENT_ROLE",
    "DEFAULT_SETTINGS",
    "DIFF_SECTIONS",
    "DOCUMENT_KINDS",
    "ERROR_CATEGORIES",
    "ERROR_CODES",
    "EVIDENCE_NOTICE",
    "IPC_EDITIONS",
    "MAX_CHECK_CODES",
    "MAX_LIMIT",
    "MAX_RESPONSE_BYTES",
    "MOUNT_ENTRY_POINT_GROUP",
    "RECORD_SCHEMA_NAMES",
    "RECORD_STATUSES",
    "RELATION_KINDS",
    "SCHEMA_VERSION",
    "SCHEMES",
    "SEARCH_INDEXES",
    "SEARCH_MODES",
    "Categories",
    "ClassificationCode",
    "ClassificationRecord",
    "ClassificationSearchHit",
    "ClassificationSearchPage",
    "CodeCheckRecord",
    "CodeContext",
    "CodeMarkers",
    "CodeRef",
    "Collection",
    "CollectionCategories",
    "CollectionDocument",
    "CollectionDocumentList",
    "CollectionDocumentPage",
    "CollectionDocumentPut",
    "CollectionReindexed",
    "CollectionSearch",
    "CombinedSearchPage",
    "CommandMain",
    "CurrentPointer",
    "DocumentListPage",
    "DocumentPage",
    "DocumentSearchHit",
    "DocumentSearchPage",
    "ErrorCategory",
    "ErrorCode",
    "FolderSync",
    "HierarchyPage",
    "HierarchySummary",
    "InvalidCodeError",
    "InvalidSchemeError",
    "Kind",
    "MatchStatus",
    "MountFactory",
    "PMGSQueryError",
    "PMGSStore",
    "QuarantineItem",
    "QuarantinePage",
    "RelatedDocumentsRecord",
    "ReleaseDiff",
    "ReleaseInfo",
    "ReleaseRef",
    "ResolvedDatabase",
    "Scheme",
    "SchemeMerge",
    "SearchIndex",
    "SearchMode",
    "SourceRef",
    "__version__",
    "code_viewer_path",
    "collection_json_schema",
    "concise_record",
    "concise_schema",
    "default_data_dir",
    "diff_releases",
    "distribution_version",
    "document_viewer_path",
    "format_fixed_width",
    "fterm_theme_code",
    "load_schema",
    "mount_factories",
    "normalize_code",
    "parse_code",
    "read_current_pointer",
    "read_settings",
    "record_json_schema",
    "resolve_database",
    "text_files",
    "vectors_available",
    "watch_folders",
    "write_settings",
]
