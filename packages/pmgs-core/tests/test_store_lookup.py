"""lookup(): notations, editions, IPC versions, relations paging and the error codes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from pmgs_core import PMGSQueryError, PMGSStore


def _error(call: object) -> PMGSQueryError:
    assert callable(call)
    with pytest.raises(PMGSQueryError) as caught:
        call()
    return caught.value


def test_fi_with_development_code_and_file_symbol_in_three_notations(
    store: PMGSStore, examples: dict[str, str]
) -> None:
    code = examples["fi_with_development_code_and_file_symbol"]  # e.g. A86T1/02,501@A
    head, extension = code.split(",")
    subclass, groups = head[:4], head[4:]
    main, sub = groups.split("/")
    fixed_width = f"{subclass}{main:>4}/{sub:>6}{extension.replace('@', '')}"
    full_width = code.translate({c: c + 0xFEE0 for c in range(0x21, 0x7F)})
    records = [store.lookup("fi", spelling) for spelling in (code, fixed_width, full_width)]
    assert [r["match_status"] for r in records] == ["exact", "normalized_exact", "normalized_exact"]
    assert {r["code"] for r in records} == {code}
    assert [r["query"]["code"] for r in records] == [code, fixed_width, full_width]
    for record in records:
        assert record["scheme"] == "fi"
        assert record["edition"] is None
        assert record["record_status"] == "canonical"
        assert record["texts"], "an FI code with a title must return it"
        assert all(text["language"] == "ja" for text in record["texts"])
        assert record["sources"][0]["file"].startswith("FI/FI/")
        assert record["sources"][0]["attribution"] == examples["copyright"]


def test_english_texts_on_request(store: PMGSStore, examples: dict[str, str]) -> None:
    code = examples["fi_with_development_code_and_file_symbol"]
    record = store.lookup("fi", code, language="en")
    assert record["texts"]
    assert all(text["language"] == "en" for text in record["texts"])


def test_ipc_two_versions_old_expired(store: PMGSStore, examples: dict[str, str]) -> None:
    code = examples["ipc_two_versions_old_expired"]
    current = store.lookup("ipc", code)
    assert current["edition"] == "8U"  # 8U comes first in the edition priority
    assert current["match_status"] == "exact"
    versions = current["available_versions"]
    assert len(versions) == 2
    old, new = versions
    assert old["valid_at_release"] is False
    assert new["valid_at_release"] is True
    assert current["revision"] is not None
    assert current["revision"]["version"] == new["version"]
    # The old version on request: its own revision and texts, flagged as not valid now.
    old_record = store.lookup("ipc", code, edition="8U", version=old["version"])
    assert old_record["match_status"] == "exact"
    assert old_record["revision"] is not None
    assert old_record["revision"]["version"] == old["version"]
    assert old_record["revision"]["valid_at_release"] is False
    # The version may also be written into the code.
    suffixed = store.lookup("ipc", f"{code} ({old['version']})")
    assert suffixed["match_status"] == "normalized_exact"
    assert suffixed["revision"] is not None
    assert suffixed["revision"]["version"] == old["version"]


def test_ipc_version_not_found_lists_versions(store: PMGSStore, examples: dict[str, str]) -> None:
    code = examples["ipc_two_versions_old_expired"]
    record = store.lookup("ipc", code, version="1999.01")
    assert record["match_status"] == "version_not_found"
    assert record["revision"] is None
    assert record["texts"] == []
    assert len(record["available_versions"]) == 2


def test_ipc_without_valid_revision_is_not_valid_at_release(
    store: PMGSStore, examples: dict[str, str]
) -> None:
    for name in ("ipc_no_valid_revision", "ipc_no_valid_revision_two_versions"):
        record = store.lookup("ipc", examples[name], edition="8U")
        assert record["match_status"] == "not_valid_at_release"
        assert record["revision"] is None
        assert record["texts"] == []  # never an older text
        assert record["relations"] == []
        assert record["available_versions"]
        assert not any(v["valid_at_release"] for v in record["available_versions"])


def test_ipc_older_edition_explicitly(store: PMGSStore, ro_conn: sqlite3.Connection) -> None:
    code, _edition = ro_conn.execute(
        "SELECT code, edition FROM concept WHERE scheme = 'ipc' AND edition = '7E' "
        "AND status = 'canonical' AND kind = 'subgroup' LIMIT 1"
    ).fetchone()
    record = store.lookup("ipc", code, edition="7e", language="en")
    assert record["edition"] == "7E"
    assert record["match_status"] == "exact"
    assert record["texts"]


def test_ipc_edition_priority_skips_missing_editions(
    writable_copy: Path, examples: dict[str, str]
) -> None:
    code = examples["ipc_two_versions_old_expired"]
    connection = sqlite3.connect(writable_copy)
    editions = {
        row[0]
        for row in connection.execute(
            "SELECT edition FROM concept WHERE code = ? AND scheme = 'ipc'", (code,)
        )
    }
    assert {"8U", "8B", "7"} <= editions
    connection.execute(
        "UPDATE concept SET code = code || '9' WHERE code = ? AND edition IN ('8U', '8B')",
        (code,),
    )
    connection.commit()
    connection.close()
    with PMGSStore.open(writable_copy) as altered:
        record = altered.lookup("ipc", code)
        assert record["edition"] == "7"
        assert record["match_status"] == "exact"


def test_ipc_canonical_older_edition_beats_a_reference_in_the_first(
    writable_copy: Path, examples: dict[str, str]
) -> None:
    """8U holding the code only as a reference does not hide the canonical 8B record (the
    store asks 8U first and every edition only when 8U has no canonical record)."""
    code = examples["ipc_two_versions_old_expired"]
    with sqlite3.connect(writable_copy) as connection:
        connection.execute(
            "UPDATE concept SET status = 'reference_only' "
            "WHERE scheme = 'ipc' AND code = ? AND edition = '8U'",
            (code,),
        )
    connection.close()
    with PMGSStore.open(writable_copy) as altered:
        record = altered.lookup("ipc", code)
        first = altered.lookup("ipc", code, edition="8U")
    assert (record["edition"], record["record_status"]) == ("8B", "canonical")
    assert (first["edition"], first["record_status"]) == ("8U", "reference_only")


def test_not_found_is_an_empty_record(store: PMGSStore) -> None:
    record = store.lookup("fi", "H99Z999/99")
    assert record["match_status"] == "not_found"
    assert record["code"] == "H99Z999/99"
    assert record["record_status"] is None
    assert record["texts"] == []
    assert record["relations"] == []
    assert record["sources"] == []
    assert store.lookup("ipc", "H99Z999/99")["match_status"] == "not_found"
    assert store.lookup("fterm", "9Z999AA01")["match_status"] == "not_found"


def test_reference_only_code_is_marked(store: PMGSStore, examples: dict[str, str]) -> None:
    record = store.lookup("fterm", examples["fterm_reference_only"])
    assert record["match_status"] == "exact"
    assert record["record_status"] == "reference_only"
    assert record["texts"] == []


def test_fterm_notations(store: PMGSStore, examples: dict[str, str]) -> None:
    term = examples["fterm_term"]
    spaced = f"{term[:5]} {term[5:]}"
    assert store.lookup("fterm", spaced)["code"] == term
    assert store.lookup("F-term", term.lower())["match_status"] == "normalized_exact"
    viewpoint = store.lookup("fterm", examples["fterm_viewpoint"])
    assert viewpoint["kind"] == "viewpoint"


def test_relations_are_paged_without_gaps(store: PMGSStore, ro_conn: sqlite3.Connection) -> None:
    theme = ro_conn.execute(
        "SELECT c.code FROM relation AS r JOIN concept AS c ON c.id = r.to_concept_id "
        "WHERE r.kind = 'theme' GROUP BY c.id ORDER BY count(*) DESC LIMIT 1"
    ).fetchone()[0]
    first = store.lookup("fterm", theme, relation_limit=200)
    count = first["relation_count"]
    assert count > 200, "the generator should give one theme more than 200 FI codes"
    assert first["relations_truncated"] is True
    assert first["next_relation_offset"] == 200
    seen = [(r["kind"], r["direction"], r["target"]["code"]) for r in first["relations"]]
    offset = first["next_relation_offset"]
    while offset is not None:
        page = store.lookup("fterm", theme, relation_limit=200, relation_offset=offset)
        seen += [(r["kind"], r["direction"], r["target"]["code"]) for r in page["relations"]]
        offset = page["next_relation_offset"]
    assert len(seen) == count
    assert len(set(seen)) == count
    assert all(direction == "incoming" for _, direction, _ in seen)


def test_relations_of_fi_code(store: PMGSStore, examples: dict[str, str]) -> None:
    record = store.lookup("fi", examples["fi_with_development_code_and_file_symbol"])
    kinds = {r["kind"] for r in record["relations"] if r["direction"] == "outgoing"}
    assert "parent" in kinds
    parent = next(r for r in record["relations"] if r["kind"] == "parent")
    assert parent["source"]["locator"].startswith("row:")


def test_documents_in_lookup(store: PMGSStore, ro_conn: sqlite3.Connection) -> None:
    code = ro_conn.execute(
        "SELECT c.code FROM document_link AS l JOIN concept AS c ON c.id = l.concept_id "
        "JOIN document AS d ON d.id = l.document_id WHERE d.kind = 'fi_handbook' LIMIT 1"
    ).fetchone()[0]
    record = store.lookup("fi", code)
    assert record["document_count"] >= 1
    assert any(doc["kind"] == "fi_handbook" for doc in record["documents"])


def test_multiple_active_revisions_fail_closed(
    writable_copy: Path, examples: dict[str, str]
) -> None:
    code = examples["ipc_two_versions_old_expired"]
    connection = sqlite3.connect(writable_copy)
    connection.execute(
        "UPDATE revision SET valid_to = NULL WHERE concept_id IN "
        "(SELECT id FROM concept WHERE code = ? AND edition = '8U')",
        (code,),
    )
    parent = connection.execute(
        "SELECT p.code FROM relation AS r JOIN concept AS c ON c.id = r.from_concept_id "
        "JOIN concept AS p ON p.id = r.to_concept_id "
        "WHERE c.code = ? AND c.edition = '8U' AND r.kind = 'parent'",
        (code,),
    ).fetchone()[0]
    connection.commit()
    connection.close()
    with PMGSStore.open(writable_copy) as altered:
        error = _error(lambda: altered.lookup("ipc", code))
        assert error.code == "MULTIPLE_ACTIVE_REVISIONS"
        assert len(error.details["versions"]) == 2  # type: ignore[arg-type]
        # An explicit version is still answerable.
        versions = [
            v["version"]
            for v in altered.lookup("ipc", code, version="2006.01")["available_versions"]
        ]
        assert "2006.01" in versions
        # Hierarchy summaries refuse to pick one as well.
        child_error = _error(lambda: altered.children("ipc", parent, edition="8U", limit=200))
        assert child_error.code == "MULTIPLE_ACTIVE_REVISIONS"


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"scheme": "cpc", "code": "G06F3/048"}, "INVALID_SCHEME"),
        ({"scheme": "fi", "code": "G06F3/04X8"}, "INVALID_CODE"),
        ({"scheme": "fi", "code": ""}, "INVALID_CODE"),
        ({"scheme": "fi", "code": "A86T1/00", "edition": "8U"}, "INVALID_EDITION"),
        ({"scheme": "fterm", "code": "4C083", "edition": "8U"}, "INVALID_EDITION"),
        ({"scheme": "ipc", "code": "A86T1/00", "edition": "9"}, "INVALID_EDITION"),
        ({"scheme": "fi", "code": "A86T1/00", "version": "2006.01"}, "INVALID_VERSION"),
        ({"scheme": "ipc", "code": "A86T1/00", "version": "2006"}, "INVALID_VERSION"),
        ({"scheme": "ipc", "code": "A86T1/00 (2006.01)", "version": "2009.01"}, "INVALID_VERSION"),
        ({"scheme": "fi", "code": "A86T1/00", "language": "de"}, "INVALID_LANGUAGE"),
        ({"scheme": "fi", "code": "A86T1/00", "release": "JPPM1999001"}, "RELEASE_NOT_FOUND"),
        ({"scheme": "fi", "code": "A86T1/00", "relation_limit": 201}, "INVALID_LIMIT"),
        ({"scheme": "fi", "code": "A86T1/00", "relation_limit": 0}, "INVALID_LIMIT"),
        ({"scheme": "fi", "code": "A86T1/00", "relation_limit": True}, "INVALID_LIMIT"),
        ({"scheme": "fi", "code": "A86T1/00", "relation_offset": -1}, "INVALID_OFFSET"),
        ({"scheme": "fi", "code": "A86T1/00", "relation_offset": 2**63}, "INVALID_OFFSET"),
    ],
)
def test_lookup_errors(store: PMGSStore, kwargs: dict[str, object], code: str) -> None:
    error = _error(lambda: store.lookup(**kwargs))  # type: ignore[arg-type]
    assert error.code == code
    assert "SELECT" not in error.message
    assert "/tmp" not in error.message


def test_release_by_id(store: PMGSStore, examples: dict[str, str]) -> None:
    release = store.release_info()["release_id"]
    record = store.lookup("fi", examples["fi_with_file_symbol"], release=release)
    assert record["release"]["release_id"] == release


def test_release_info(store: PMGSStore, examples: dict[str, str]) -> None:
    info = store.release_info()
    assert info["release_id"].startswith("JPPM")
    assert info["attribution"] == examples["copyright"]
    assert info["reference_date"] == "2026-03-31"
    schemes = {c["scheme"] for c in info["classification_counts"]}
    assert schemes == {"fi", "fterm", "ipc"}
    assert _error(lambda: store.release_info("JPPM0000000")).code == "RELEASE_NOT_FOUND"


def test_spellings_other_writers_use_reach_the_same_code(
    store: PMGSStore, examples: dict[str, str], database_path: Path
) -> None:
    """The user-facing cases of issue 13, checked against codes chosen by SQL."""
    # Spaces where a fixed-width listing has ',' and '@' (B60T 8/44 501 B).
    code = examples["fi_with_development_code_and_file_symbol"]  # e.g. A86T1/02,501@A
    head, extension = code.split(",")
    development, symbol = extension.split("@")
    spaced = f"{head[:4]} {head[4:]} {development} {symbol}"
    record = store.lookup("fi", spaced)
    assert (record["code"], record["match_status"]) == (code, "normalized_exact")
    assert record["query"]["code"] == spaced  # the input stays apart from the canonical code
    with sqlite3.connect(f"file:{database_path}?mode=ro", uri=True) as conn:
        subgroup = conn.execute(
            "SELECT code FROM concept WHERE scheme = 'ipc' AND edition = '8U' "
            "AND status = 'canonical' AND kind = 'subgroup' "
            "AND length(code) - instr(code, '/') = 2 ORDER BY code LIMIT 1"
        ).fetchone()[0]
        viewpoint = conn.execute(
            "SELECT code FROM concept WHERE scheme = 'fterm' AND kind = 'viewpoint' "
            "AND status = 'canonical' ORDER BY code LIMIT 1"
        ).fetchone()[0]
    # A subgroup with a trailing zero is the same subgroup (G06F3/050 is G06F3/05).
    trailing = store.lookup("ipc", subgroup + "0")
    assert trailing["code"] == subgroup
    assert trailing["match_status"] in {"normalized_exact", "not_valid_at_release"}
    # An F-term viewpoint typed with number 00, as F-term lists print it.
    heading = store.lookup("fterm", viewpoint + "00")
    assert (heading["code"], heading["kind"]) == (viewpoint, "viewpoint")
    assert heading["match_status"] == "normalized_exact"
