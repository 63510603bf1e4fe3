"""Foreign-looking packages build and answer exactly like the package they were rewritten from.

Each variant (``pmgs_testkit.VARIANT_KINDS``) is a copy of one generated package written
the way another writer of the PMGS format could have written it. A build that refuses it, drops
a row, loses a relation or answers a lookup differently is a parser that only reads our own
generator's output: the failure issue 13 is about. Per variant: the build succeeds, the
expected warnings are recorded, the quarantine holds exactly the expected rows, the table
counts that carry meaning equal the base's, and a few hundred lookups answer the same on the
fields that carry meaning (source paths, locators and hashes legitimately differ).
"""

from __future__ import annotations

import shutil
import sqlite3
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pmgs_build import BuildError, BuildReport, build_database
from pmgs_core import PMGSStore
from pmgs_testkit import VARIANT_KINDS, Variant, generate_package, make_variant
from pmgs_testkit.kit import tree_sha256

SEED = 13
SCALE = 0.001
DROPPED_DOCUMENTS = {"FTERM/FTERM_KAISETSU_E": ("fterm_explanation", "en")}
"""Documents a dropped group takes with it: (kind, language)."""

Query = tuple[str, str, str | None, str | None]
"""(scheme, code, edition, version) as passed to ``PMGSStore.lookup``."""


def _connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def _sample_queries(conn: sqlite3.Connection) -> list[Query]:
    """A few hundred lookups over every scheme, edition, kind and status, chosen by SQL so
    that they follow the package rather than a list of codes written here."""
    queries: list[Query] = []

    def every(sql: str, step: int, *params: object) -> list[tuple[Any, ...]]:
        return conn.execute(sql, params).fetchall()[::step]

    for (code,) in every(
        "SELECT code FROM concept WHERE scheme = 'fi' ORDER BY status, kind, id", 5
    ):
        queries.append(("fi", code, None, None))
    for (code,) in every("SELECT code FROM concept WHERE scheme = 'fterm' ORDER BY kind, id", 13):
        queries.append(("fterm", code, None, None))
    for (code,) in every(
        "SELECT code FROM concept WHERE scheme = 'fterm' "
        "AND (kind <> 'term' OR status <> 'canonical') ORDER BY id",
        1,
    ):
        queries.append(("fterm", code, None, None))
    for edition, step in (("4", 7), ("5", 11), ("6", 5), ("7", 5), ("7E", 11), ("8B", 5)):
        for (code,) in every(
            "SELECT code FROM concept WHERE scheme = 'ipc' AND edition = ? ORDER BY id",
            step,
            edition,
        ):
            queries.append(("ipc", code, edition, None))
    for (code,) in every(
        "SELECT code FROM concept WHERE scheme = 'ipc' AND edition = '8U' ORDER BY id", 2
    ):
        queries.append(("ipc", code, "8U", None))
    # Every version of the codes that have several (and of those without a valid one).
    for code, version in conn.execute(
        "SELECT c.code, r.version FROM revision AS r JOIN concept AS c ON c.id = r.concept_id "
        "WHERE c.scheme = 'ipc' AND c.edition = '8U' AND c.id IN (SELECT concept_id FROM "
        "revision GROUP BY concept_id HAVING COUNT(*) > 1 OR MAX(valid_to) IS NOT NULL) "
        "ORDER BY c.id, r.version"
    ):
        queries.append(("ipc", code, "8U", version))
        queries.append(("ipc", code, "8U", None))
    return list(dict.fromkeys(queries))


def _meaning(record: Any, dropped: set[tuple[str, str]], marker: str = "") -> dict[str, Any]:
    """The fields of a lookup record that carry meaning (no source paths, locators, hashes,
    sequences: a rewritten file legitimately moves rows). Relations to concepts the variant
    added (their code holds ``marker``) are the variant's and left out."""
    revision = record["revision"]
    relations = [r for r in record["relations"] if not (marker and marker in r["target"]["code"])]
    return {
        "status": (record["match_status"], record["record_status"], record["kind"]),
        "code": (record["scheme"], record["edition"], record["code"]),
        "revision": None
        if revision is None
        else {k: revision[k] for k in ("version", "valid_from", "valid_to", "valid_at_release")}
        | {"level": revision["level"]},
        "versions": record["available_versions"],
        "texts": sorted(
            (t["language"], t["text_type"], t["line"], t["body"].replace("\r\n", "\n"))
            for t in record["texts"]
        ),
        "relations": sorted(
            (
                r["kind"],
                r["direction"],
                tuple(r["target"].values()),
                r["from_version"] or "",
                r["to_version"] or "",
            )
            for r in relations
        ),
        "relation_count": record["relation_count"] - len(record["relations"]) + len(relations),
        "documents": sorted(
            (d["document_id"], d["kind"], d["language"] or "", d["role"])
            for d in record["documents"]
            if (d["kind"], d["language"]) not in dropped
        ),
    }


def _properties(record: Any) -> Counter[tuple[str, str]]:
    return Counter((p["name"], p["value"]) for p in record["properties"])


def _counts(
    conn: sqlite3.Connection, dropped: set[tuple[str, str]], marker: str = ""
) -> dict[str, Counter[Any]]:
    """Table counts that a lost row, relation or document would change; concepts whose code
    holds ``marker`` (a variant's additions) and all that hangs on them are left out."""

    def kept(alias: str) -> str:
        # Marker is the registry's plain data (a fixed character), bound as a parameter.
        return f"(:marker = '' OR instr({alias}.code, :marker) = 0)"

    def tally(sql: str) -> Counter[Any]:
        rows = conn.execute(sql, {"marker": marker})
        return Counter({tuple(row[:-1]): row[-1] for row in rows})

    # Quarantined raw text may be kept as evidence documents; it is counted on its own.
    documents = tally(
        "SELECT d.kind, COALESCE(d.language, ''), COUNT(*) FROM document AS d "
        "WHERE d.kind <> 'quarantine' GROUP BY d.kind, d.language"
    )
    segments = tally(
        "SELECT d.kind, COALESCE(d.language, ''), COUNT(*) FROM document_text AS t "
        "JOIN document AS d ON d.id = t.document_id WHERE d.kind <> 'quarantine' "
        "GROUP BY d.kind, d.language"
    )
    for kind, language in dropped:
        documents.pop((kind, language), None)
        segments.pop((kind, language), None)
    return {
        "concepts": tally(
            "SELECT scheme, edition, kind, status, COUNT(*) FROM concept AS c "
            f"WHERE {kept('c')} GROUP BY 1, 2, 3, 4"
        ),
        "revisions": tally(
            "SELECT COUNT(*) FROM revision AS r JOIN concept AS c ON c.id = r.concept_id "
            f"WHERE {kept('c')}"
        ),
        "relations": tally(
            "SELECT r.kind, COUNT(*) FROM relation AS r "
            "JOIN concept AS f ON f.id = r.from_concept_id "
            f"JOIN concept AS t ON t.id = r.to_concept_id WHERE {kept('f')} AND {kept('t')} "
            "GROUP BY r.kind"
        ),
        "texts": tally(
            "SELECT t.language, SUM(LENGTH(REPLACE(t.body, char(13), ''))), COUNT(*) "
            "FROM text AS t JOIN revision AS r ON r.id = t.revision_id "
            f"JOIN concept AS c ON c.id = r.concept_id WHERE {kept('c')} GROUP BY t.language"
        ),
        "documents": documents,
        "document_segments": segments,
    }


@dataclass
class Base:
    """One generated package, its database, and the answers every variant must repeat."""

    package: Path
    database: Path
    queries: list[Query] = field(default_factory=list)
    _answers: dict[Query, Any] | None = None

    def answers(self) -> dict[Query, Any]:
        """The base's records, looked up once for all variants."""
        if self._answers is None:
            with PMGSStore.open(self.database) as store:
                self._answers = {query: _lookup(store, query) for query in self.queries}
        return self._answers


def _lookup(store: PMGSStore, query: Query) -> Any:
    scheme, code, edition, version = query
    return store.lookup(scheme, code, edition=edition, version=version, relation_limit=200)


class Bases:
    """The two base packages (CSV only, and with documents), each generated and built once."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory
        self._bases: dict[bool, Base] = {}

    def get(self, with_documents: bool) -> Base:
        if with_documents not in self._bases:
            parent = self._directory / ("documents" if with_documents else "csv")
            package = generate_package(
                parent, scale=SCALE, seed=SEED, with_documents=with_documents
            ).path
            database = parent / "base.sqlite"
            build_database(package, database)
            with _connect(database) as conn:
                queries = _sample_queries(conn)
            base = Base(package, database)
            with PMGSStore.open(database) as store:
                # Pages longer than one relation page could reorder; keep whole records only.
                base.queries = [q for q in queries if not _lookup(store, q)["relations_truncated"]]
            self._bases[with_documents] = base
        return self._bases[with_documents]


@dataclass
class Outcome:
    """One variant applied to a copy of its base, and its build (or why it failed)."""

    kind: str
    variant: Variant
    base: Base
    package: Path
    returned: list[Path]
    manifest_before: dict[str, str]
    manifest_after: dict[str, str]
    database: Path | None
    error: BuildError | None
    report: BuildReport | None = None

    def built(self) -> Path:
        if self.database is None:
            pytest.skip(f"{self.kind} did not build (see test_variant_builds)")
        return self.database


@pytest.fixture(scope="module")
def bases(tmp_path_factory: pytest.TempPathFactory) -> Bases:
    return Bases(tmp_path_factory.mktemp("variant-bases"))


@pytest.fixture(scope="module", params=sorted(VARIANT_KINDS))
def outcome(
    request: pytest.FixtureRequest, bases: Bases, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Outcome]:
    kind: str = request.param
    variant = VARIANT_KINDS[kind]
    base = bases.get(variant.needs_documents)
    directory = tmp_path_factory.mktemp(kind)
    package = directory / base.package.name
    shutil.copytree(base.package, package)
    before = tree_sha256(package)
    returned = make_variant(package, kind)
    after = tree_sha256(package)
    output = directory / "variant.sqlite"
    database: Path | None = output
    error: BuildError | None = None
    report: BuildReport | None = None
    source = package / variant.source.format(name=package.name)
    release = package.name if variant.needs_release else None
    try:
        report = build_database(source, output, release=release)
    except BuildError as failure:
        database, error = None, failure
    yield Outcome(kind, variant, base, package, returned, before, after, database, error, report)
    shutil.rmtree(directory, ignore_errors=True)


def test_registry_has_enough_distinct_variants() -> None:
    assert len(VARIANT_KINDS) >= 25
    assert len({v.description for v in VARIANT_KINDS.values()}) == len(VARIANT_KINDS)
    assert all(v.quarantined >= 0 for v in VARIANT_KINDS.values())


def test_unknown_variant_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown variant"):
        make_variant(tmp_path, "no_such_variant")


def test_variant_changes_files(outcome: Outcome) -> None:
    before, after = outcome.manifest_before, outcome.manifest_after
    differing = {
        name for name in before.keys() | after.keys() if before.get(name) != after.get(name)
    }
    assert differing, f"{outcome.kind} changed no file"
    assert outcome.returned, f"{outcome.kind} reported no changed path"
    # Every returned file really changed, appeared or disappeared (directories: renamed).
    reported = {
        path.relative_to(outcome.package).as_posix()
        for path in outcome.returned
        if not path.is_dir()
    }
    assert reported <= differing, sorted(reported - differing)[:5]


def test_variant_builds(outcome: Outcome) -> None:
    if outcome.error is not None:
        pytest.fail(f"{outcome.kind}: BuildError {outcome.error.code}: {outcome.error}")


def test_expected_warnings_are_recorded(outcome: Outcome) -> None:
    with _connect(outcome.built()) as conn:
        codes = {code for (code,) in conn.execute("SELECT DISTINCT code FROM build_issue")}
        errors = conn.execute("SELECT COUNT(*) FROM build_issue WHERE severity = 'error'")
        assert errors.fetchone()[0] == 0
    assert outcome.variant.warnings <= codes, sorted(outcome.variant.warnings - codes)


def test_table_counts_equal_the_base(outcome: Outcome) -> None:
    dropped = {DROPPED_DOCUMENTS[group] for group in outcome.variant.dropped_groups}
    marker = outcome.variant.extra_code_marker
    with _connect(outcome.base.database) as conn:
        expected = _counts(conn, dropped, marker)
    with _connect(outcome.built()) as conn:
        found = _counts(conn, dropped, marker)
    with PMGSStore.open(outcome.built()) as store:
        for scheme, code in outcome.variant.extra_concepts:
            record = store.lookup(scheme, code)
            assert (record["match_status"], record["record_status"]) == ("exact", "canonical")
            edition = record["edition"] or ""
            found["concepts"][(scheme, edition, record["kind"], "canonical")] -= 1
            found["revisions"][()] -= 1  # an FI or F-term concept has exactly one revision
    found["concepts"] = +found["concepts"]  # drop the zero entries left by the subtraction
    differing = {
        name: (
            sorted((expected[name] - found[name]).items()),
            sorted((found[name] - expected[name]).items()),
        )
        for name in expected
        if found[name] != expected[name]
    }
    assert not differing, f"(lost, gained) per table: {differing}"


def _concept_keys(database: Path) -> set[tuple[str, str, str]]:
    with _connect(database) as conn:
        return set(conn.execute("SELECT scheme, edition, code FROM concept"))


def test_marked_additions_are_all_the_variant_adds(outcome: Outcome) -> None:
    """A variant adds exactly its ``extra_concepts``; one with an ``extra_code_marker`` adds
    concepts, each marked, each answered."""
    marker = outcome.variant.extra_code_marker
    added = _concept_keys(outcome.built()) - _concept_keys(outcome.base.database)
    if not marker:
        assert {(scheme, code) for scheme, _, code in added} == set(outcome.variant.extra_concepts)
        return
    assert added, f"{outcome.kind} added no concept"
    assert all(marker in code for _, _, code in added), sorted(added)[:5]
    assert not any(marker in code for _, _, code in _concept_keys(outcome.base.database))
    # More additions per data group than ADR 0009's budget, max(2, 1 %), would let through
    # if they were unreadable: the build succeeds only by reading them.
    with _connect(outcome.built()) as conn:
        records = dict(
            conn.execute("SELECT data_group, SUM(record_count) FROM source_file GROUP BY 1")
        )
    per_group = Counter(f"IPC/IPC{edition}_TEXT" for _, edition, _ in added)
    for group, count in per_group.items():
        assert count > max(2, records[group] * 0.01), (group, count, records[group])
    with PMGSStore.open(outcome.built()) as store:
        for scheme, edition, code in sorted(added):
            language = "en" if edition == "7E" else "ja"
            record = store.lookup(scheme, code, edition=edition or None, language=language)
            assert (record["match_status"], record["record_status"]) == ("exact", "canonical")
            assert record["texts"], code


def test_lookups_answer_like_the_base(outcome: Outcome) -> None:
    dropped = {DROPPED_DOCUMENTS[group] for group in outcome.variant.dropped_groups}
    marker = outcome.variant.extra_code_marker
    expected = outcome.base.answers()
    assert len(expected) > 100
    differences: list[str] = []
    with PMGSStore.open(outcome.built()) as store:
        for query, want in expected.items():
            got = _lookup(store, query)
            if _meaning(got, dropped, marker) != _meaning(want, dropped, marker):
                differences.append(
                    f"{query}: "
                    f"{_diff(_meaning(want, dropped, marker), _meaning(got, dropped, marker))}"
                )
            elif missing := _properties(want) - _properties(got):
                differences.append(f"{query}: properties lost {sorted(missing)}")
    assert not differences, f"{len(differences)} lookups differ, e.g. " + "; ".join(differences[:3])


def _diff(want: dict[str, Any], got: dict[str, Any]) -> str:
    """What changed, short: for lists the items lost and gained, not both whole lists."""
    parts = []
    for key, value in want.items():
        if value == got[key]:
            continue
        if isinstance(value, list) and isinstance(got[key], list):
            lost = [item for item in value if item not in got[key]]
            gained = [item for item in got[key] if item not in value]
            parts.append(f"{key} lost {lost[:2]} ({len(lost)}) gained {gained[:2]} ({len(gained)})")
        else:
            parts.append(f"{key}: {value!r} -> {got[key]!r}")
    return "; ".join(parts)


def test_quarantine_holds_exactly_the_expected_rows(outcome: Outcome) -> None:
    with _connect(outcome.built()) as conn:
        count = conn.execute("SELECT COUNT(*) FROM quarantine").fetchone()[0]
    assert count == outcome.variant.quarantined


def test_what_was_ignored_is_reported(outcome: Outcome) -> None:
    """The report lists exactly what the container held besides the release (ADR 0019),
    and the release id and manifest are the base's, wherever the release sat."""
    outcome.built()
    assert outcome.report is not None
    name = outcome.package.name
    expected = sorted(p.format(name=name) for p in outcome.variant.ignored)
    assert list(outcome.report.ignored) == expected
    assert outcome.report.release == name
    moved = outcome.variant.source or outcome.variant.ignored or outcome.report.release_path
    if moved:  # a container variant: the release's files are the base's, byte for byte
        sql = "SELECT source_manifest_sha256 FROM release"
        with _connect(outcome.base.database) as base, _connect(outcome.built()) as built:
            assert built.execute(sql).fetchone() == base.execute(sql).fetchone()
