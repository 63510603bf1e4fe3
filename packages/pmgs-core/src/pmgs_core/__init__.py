"""pmgs-core: the read-only reference store, its schema and the classification code notations.

Everything other packages may use is re-exported here and listed in ``__all__``; the
architecture test refuses imports of anything else, so the modules behind this file can be
reorganised without breaking the other packages.
"""

from importlib.metadata import PackageNotFoundError, version

from pmgs_core.notation import (
    ClassificationCode,
    InvalidCodeError,
    InvalidSchemeError,
    Kind,
    Scheme,
    format_fixed_width,
    fterm_theme_code,
    ipc_code_from_pdf_name,
    normalize_code,
    parse_code,
    parse_ipc_version,
)
from pmgs_core.plugins import COMMAND_ENTRY_POINT_GROUP, CommandMain
from pmgs_core.schema import (
    DOCUMENT_KINDS,
    IPC_EDITIONS,
    RECORD_STATUSES,
    RELATION_KINDS,
    SCHEMA_VERSION,
    SCHEMES,
    TABLES,
    bigram_token,
    bigram_tokens,
    create_indexes,
    create_schema,
    fold_for_search,
    rebuild_search_indexes,
)

try:
    __version__ = version("pmgs-core")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "COMMAND_ENTRY_POINT_GROUP",
    "DOCUMENT_KINDS",
    "IPC_EDITIONS",
    "RECORD_STATUSES",
    "RELATION_KINDS",
    "SCHEMA_VERSION",
    "SCHEMES",
    "TABLES",
    "bigram_token",
    "bigram_tokens",
    "create_indexes",
    "create_schema",
    "fold_for_search",
    "rebuild_search_indexes",
    "ClassificationCode",
    "CommandMain",
    "InvalidCodeError",
    "InvalidSchemeError",
    "Kind",
    "Scheme",
    "__version__",
    "format_fixed_width",
    "fterm_theme_code",
    "ipc_code_from_pdf_name",
    "normalize_code",
    "parse_code",
    "parse_ipc_version",
]
