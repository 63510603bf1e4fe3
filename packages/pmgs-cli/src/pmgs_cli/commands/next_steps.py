"""What to try next after an empty or negative answer, from facts only.

Each line states what was searched (release, language, scheme) and, when a fact supports it,
one command that works: a code that exists under another scheme, a Latin query under
``--language ja``. Nothing here guesses a nearby code (the contract forbids guessed
candidates); a code that is not in the release is reported as such, never replaced.
Commands repeat the database options the user gave, so that they can be run as printed.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from pmgs_cli.common import NEGATIVE_MATCH_STATUSES, Query

if TYPE_CHECKING:
    from pmgs_core import (
        ClassificationRecord,
        ClassificationSearchPage,
        CombinedSearchPage,
        DocumentSearchPage,
        HierarchyPage,
    )

__all__ = [
    "code_schemes",
    "command",
    "empty_search",
    "missing_code",
    "no_children",
    "search_notes",
]

SCHEMES: Final = ("fi", "fterm", "ipc")
_NAMES: Final = {"fi": "FI", "fterm": "F-term", "ipc": "IPC"}
_LATIN: Final = re.compile(r"[A-Za-z]")


def command(q: Query, *words: str) -> str:
    """``pmgs WORDS`` with the user's ``--db`` / ``--data-dir``, quoted for a shell."""
    argv = ["pmgs", *words]
    if q.db is not None:
        argv += ["--db", str(q.db)]
    elif q.data_dir is not None:
        argv += ["--data-dir", str(q.data_dir)]
    return shlex.join(argv)


def code_schemes(code: str, exclude: str) -> list[str]:
    """The other schemes whose notation ``code`` is written in (a fact of the notation)."""
    from pmgs_core import InvalidCodeError, parse_code

    found = []
    for scheme in SCHEMES:
        if scheme == exclude:
            continue
        try:
            parse_code(scheme, code)
        except (InvalidCodeError, ValueError):
            continue
        found.append(scheme)
    return found


def _elsewhere(store: Any, q: Query, scheme: str, code: str, release: str) -> list[str]:
    """Lookup commands for the other schemes that hold ``code`` in this release."""
    hints = []
    for other in code_schemes(code, scheme):
        record = store.lookup(other, code, release)
        if record["match_status"] not in NEGATIVE_MATCH_STATUSES:
            hints.append(
                f"{code} is a {other} code in this release: {command(q, 'lookup', other, code)}"
            )
    return hints


def missing_code(
    store: Any,
    q: Query,
    record: ClassificationRecord | HierarchyPage,
    release: str,
) -> list[str]:
    """A negative lookup: what was asked in which release, and another scheme that has it."""
    status = record["match_status"]
    if status not in NEGATIVE_MATCH_STATUSES:
        return []
    rel = record["release"]["release_id"]
    scheme, code = record["scheme"], record["code"]
    name = f"{scheme} {code}" + (f" (IPC {record['edition']})" if record["edition"] else "")
    if status == "not_found":
        lines = [f"{name} is not in release {rel} (not_found: no code is guessed in its place)"]
        lines += _elsewhere(store, q, scheme, code, release)
        return lines
    versions = (
        [v["version"] for v in record["available_versions"]]
        if record["record_type"] == "classification"
        else []
    )
    lines = [f"{name}: {status} in release {rel}"]
    if versions:
        lines.append(
            "versions held: "
            + ", ".join(versions)
            + f"; e.g. {command(q, 'lookup', scheme, code, '--ipc-version', versions[-1])}"
        )
    return lines


def no_children(q: Query, page: HierarchyPage) -> list[str]:
    """An empty children/descendants page of a code that exists: it is a leaf."""
    if page["items"] or page["offset"] or page["match_status"] in NEGATIVE_MATCH_STATUSES:
        return []
    rel = page["release"]["release_id"]
    if page["direction"] == "parents":
        return [f"{page['code']} has no parents in release {rel} (a top level code)"]
    words = ["hierarchy", "parents", page["scheme"], page["code"]]
    if page["edition"]:
        words += ["--edition", page["edition"]]
    return [
        f"{page['code']} has no {page['direction']} in release {rel} (a leaf); "
        f"its parents: {command(q, *words)}"
    ]


def search_notes(q: Query, page: CombinedSearchPage, schemes: Sequence[str]) -> list[str]:
    """What the answer is, before its hits: a code's lookup, the any-word fallback and its
    words (ADR 0033). The other language's count is a next step (:func:`empty_search`)."""
    notes = []
    for match in page.get("code_matches", []):
        words = ["lookup", match["scheme"], match["code"]]
        if match["scheme"] == "ipc" and match["edition"] not in (None, "8U"):
            words += ["--edition", str(match["edition"])]
        notes.append(
            f"{page['query']!r} is the {_NAMES[match['scheme']]} code {match['code']}; "
            f"use lookup: {command(q, *words)}"
            + (f"  (pmgs web → {match['viewer_path']})" if match["viewer_path"] else "")
        )
    fallback = page.get("fallback")
    if fallback is not None:
        notes.append(
            f"no text holds the exact phrase {page['query']!r}; showing texts holding any of "
            f"its words, ranked by relevance: {', '.join(fallback['words'])}"
        )
    return notes


def empty_search(q: Query, page: CombinedSearchPage, schemes: Sequence[str]) -> list[str]:
    """Nothing matched: say where it was searched (and which words, after a fallback); the
    other language's hits, counted, with the command that shows them (a Latin query under
    ja without that count → ``--language en``)."""
    by_type = page["results_by_type"]
    pages: list[ClassificationSearchPage | DocumentSearchPage] = [
        typed for typed in (by_type.get("classification"), by_type.get("document")) if typed
    ]
    if any(p["results"] for p in pages) or any(p["offset"] for p in pages):
        return []
    language = pages[0]["language"] if pages else "ja"
    rel = page["release"]["release_id"]
    where = ", ".join(schemes) if schemes else "fi, fterm, ipc"
    lines = [
        f"no text of release {rel} in language {language} ({where}; "
        f"{', '.join(page['content_types'])}) contains {page['query']!r}"
    ]
    if "fallback" in page:
        words = ", ".join(page["fallback"]["words"])
        lines[0] = (
            f"no text of release {rel} in language {language} ({where}) contains "
            f"{page['query']!r} or any of its words ({words})"
        )
    other = page.get("other_language")
    if other is not None:
        name = {"en": "English", "ja": "Japanese"}[other["language"]]
        more = "+" if other["at_least"] else ""
        argv = ["search", page["query"], "--language", other["language"]]
        for scheme in schemes:
            argv += ["--scheme", scheme]
        lines.append(
            f"the {name} texts hold {other['classification_count']}{more} classification and "
            f"{other['document_count']}{more} document hits: {command(q, *argv)}"
        )
    elif language == "ja" and _LATIN.search(page["query"]) and "code_matches" not in page:
        lines.append(
            "English texts are searched with --language en: "
            + command(q, "search", page["query"], "--language", "en")
        )
    return lines
