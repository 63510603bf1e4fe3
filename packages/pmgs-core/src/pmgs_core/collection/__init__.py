"""The user's writable collection, beside the read-only release (ADR 0016): its reads, its
writes and their TypedDict records.

Imported lazily by :mod:`pmgs_core` (``pmgs_core.Collection``): sqlite-utils, which creates
its tables, costs start-up time that ``pmgs lookup`` must not pay.
"""

from pmgs_core.collection._collection import (
    COLLECTION_FILE,
    MAX_COLLECTION_ITEMS,
    SOURCE,
    Collection,
)
from pmgs_core.collection._folders import (
    FolderSync,
    apply_changes,
    sync_folder,
    text_files,
    watched_path,
)
from pmgs_core.collection._limits import (
    CHUNK_CHARS,
    MAX_CATEGORY_CHARS,
    MAX_CONTENT_CHARS,
    MAX_ITEM_CHARS,
    MAX_PATH_CHARS,
    MAX_QUERY_CHARS,
)
from pmgs_core.collection._schema import COLLECTION_SCHEMA_VERSION
from pmgs_core.collection._settings import (
    DEFAULTS as DEFAULT_SETTINGS,
)
from pmgs_core.collection._settings import (
    SETTINGS_FILE,
    CollectionSettings,
    MonitorPath,
    check_settings,
    read_settings,
    write_settings,
)
from pmgs_core.collection._shapes import COLLECTION_RECORD_NAMES, collection_json_schema
from pmgs_core.collection._vectors import MIN_TRAIN_ITEMS
from pmgs_core.collection._vectors import available as vectors_available
from pmgs_core.collection._watch import watch_folders

__all__ = [
    "CHUNK_CHARS",
    "COLLECTION_FILE",
    "COLLECTION_RECORD_NAMES",
    "COLLECTION_SCHEMA_VERSION",
    "DEFAULT_SETTINGS",
    "MAX_CATEGORY_CHARS",
    "MAX_COLLECTION_ITEMS",
    "MAX_CONTENT_CHARS",
    "MAX_ITEM_CHARS",
    "MAX_PATH_CHARS",
    "MAX_QUERY_CHARS",
    "MIN_TRAIN_ITEMS",
    "SETTINGS_FILE",
    "SOURCE",
    "Collection",
    "CollectionSettings",
    "FolderSync",
    "MonitorPath",
    "apply_changes",
    "check_settings",
    "collection_json_schema",
    "read_settings",
    "sync_folder",
    "text_files",
    "vectors_available",
    "watch_folders",
    "watched_path",
    "write_settings",
]
