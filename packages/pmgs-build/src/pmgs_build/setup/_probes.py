"""The questions setup asks a staged database before it may become the current one.

The self-check picks a classification, two search terms and a document from the database
itself (:func:`choose_samples`) and asks them through :class:`pmgs_core.PMGSStore`, the
same way a user would (:func:`run_self_check`); ``pmgs doctor`` asks the same questions of
an installed database. The doctor probe runs the caller's check. Both report counts and
hashes only, never source text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pmgs_build.setup._report import SetupError
from pmgs_build.source.inventory import Inventory
from pmgs_core import PMGSQueryError, PMGSStore

__all__ = ["SampleQueries", "choose_samples", "run_doctor", "run_self_check", "self_check"]


@dataclass(frozen=True, slots=True)
class SampleQueries:
    """Queries chosen deterministically from a database, for self-checks and ``pmgs doctor``.

    The values are source text and codes: reports must show their hashes only.
    """

    scheme: str
    code: str
    term3: str
    term2: str
    document_id: str | None

    def hashes(self) -> dict[str, str]:
        """SHA-256 of each query value, the only form a report may show."""

        def h(value: str | None) -> str | None:
            return None if value is None else hashlib.sha256(value.encode("utf-8")).hexdigest()

        return {
            key: digest
            for key, digest in (
                ("lookup", h(f"{self.scheme}:{self.code}")),
                ("search3", h(self.term3)),
                ("search2", h(self.term2)),
                ("document", h(self.document_id)),
            )
            if digest is not None
        }


def _terms_of(body: str) -> tuple[str, str] | None:
    """The first 3- and 2-character runs of non-space characters of a text line."""
    for start in range(len(body)):
        chunk = body[start : start + 3]
        if len(chunk) == 3 and not any(c.isspace() for c in chunk):
            return chunk, chunk[:2]
    return None


def choose_samples(store: PMGSStore) -> SampleQueries:
    """Pick a classification, two search terms and a document from the database itself.

    Deterministic (first document in the store's stable order, its subject classification,
    that classification's first text line), so two runs on one database ask the same
    questions. Raises ``PMGSQueryError("DATABASE_INVALID")`` when nothing can be chosen.
    """
    candidates: list[tuple[str, str, str | None]] = []
    listing = store.list_documents(limit=5)
    for item in listing["items"]:
        page = store.get_document(item["document_id"], segment_limit=1)
        for related in page["related_classifications"]:
            candidates.append((related["scheme"], related["code"], item["document_id"]))
            break
    categories = store.categories()
    for theme in categories["themes"][:5]:
        candidates.append(("fterm", theme["theme"], None))
    for scheme, code, document_id in candidates:
        record = store.lookup(scheme, code)
        if record["match_status"] not in {"exact", "normalized_exact"}:
            continue
        for text in record["texts"]:
            terms = _terms_of(text["body"])
            if terms is not None:
                return SampleQueries(scheme, record["code"], terms[0], terms[1], document_id)
    raise PMGSQueryError("DATABASE_INVALID", "no sample query could be chosen from the database")


def run_self_check(store: PMGSStore, samples: SampleQueries) -> dict[str, Any]:
    """Ask the sample questions; raise ``PMGSQueryError`` on an answer that cannot be right.

    Returns counts and hashes only.
    """
    record = store.lookup(samples.scheme, samples.code)
    if record["match_status"] not in {"exact", "normalized_exact"} or not record["texts"]:
        raise PMGSQueryError("DATABASE_INVALID", "the sample classification did not resolve")
    search3 = store.search(samples.term3, limit=5)
    search2 = store.search(samples.term2, limit=5)
    if search3["count"] < 1 or search2["count"] < 1:
        raise PMGSQueryError("DATABASE_INVALID", "a sample search found nothing")
    document_segments = 0
    if samples.document_id is not None:
        page = store.get_document(samples.document_id, segment_limit=5)
        document_segments = len(page["segments"])
        if document_segments < 1:
            raise PMGSQueryError("DATABASE_INVALID", "the sample document has no text")
    return {
        "query_sha256": samples.hashes(),
        "lookup_texts": len(record["texts"]),
        "search3_hits": search3["count"],
        "search3_mode": search3["search_mode"],
        "search2_hits": search2["count"],
        "search2_mode": search2["search_mode"],
        "document_segments": document_segments,
    }


def self_check(database: Path, inventory: Inventory) -> dict[str, Any]:
    """The self-check stage: the staged database names this source and answers its sample
    questions; any wrong answer becomes ``SELF_CHECK_FAILED``."""
    try:
        with PMGSStore.open(database) as store:
            info = store.release_info()
            if (
                info["release_id"] != inventory.release_id
                or info["source_manifest_sha256"] != inventory.manifest_sha256
            ):
                raise PMGSQueryError("DATABASE_INVALID", "the database names another source")
            return run_self_check(store, choose_samples(store))
    except PMGSQueryError as exc:
        raise SetupError(
            "SELF_CHECK_FAILED",
            "the new database did not answer its self-check queries",
            stage="self_check",
            details={"error": exc.code},
        ) from None


def run_doctor(doctor: Callable[[Path], dict[str, Any]], database: Path) -> dict[str, Any]:
    """The doctor stage: the caller's own check of the staged database (an MCP session, from
    ``pmgs setup``); whatever it raises or reports other than ok stops the setup."""
    try:
        report = doctor(database)
    except Exception as exc:  # the caller's check must not leave a half-done setup
        raise SetupError(
            "DOCTOR_FAILED",
            "the doctor check of the new database raised an error",
            stage="doctor",
            details={"error": type(exc).__name__},
        ) from None
    if report.get("status") not in {"ok", "skipped"}:
        raise SetupError(
            "DOCTOR_FAILED",
            "the new database failed its doctor check",
            stage="doctor",
            details={"doctor": report},
        )
    return report
