"""Every query command in Rich and JSON mode, with exit codes and error codes."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pmgs_core import load_schema

Runner = Callable[..., subprocess.CompletedProcess[str]]


def _json(result: Any) -> Any:
    return json.loads(result.stdout)


def _valid(record: Any, name: str) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(record, load_schema(name))


def test_lookup_json_is_the_core_record(
    pmgs: Runner, data_dir: Path, sample_code: tuple[str, str]
) -> None:
    scheme, code = sample_code
    result = pmgs("lookup", scheme, code, "--data-dir", data_dir, "--json")
    assert result.returncode == 0, result.stderr
    record = _json(result)
    assert record["record_type"] == "classification"
    assert record["code"] == code
    assert record["match_status"] == "exact"
    assert record["texts"]
    assert record["texts"][0]["source"]["file"]
    _valid(record, "classification")
    assert result.stderr == ""


def test_lookup_rich_shows_title_parents_and_sources(
    pmgs: Runner, data_dir: Path, sample_code: tuple[str, str]
) -> None:
    scheme, code = sample_code
    result = pmgs("lookup", scheme, code, "--data-dir", data_dir)
    assert result.returncode == 0, result.stderr
    assert code in result.stdout
    assert "parents" in result.stdout
    assert ".csv" in result.stdout  # a source file is cited
    assert "Synthetic" in result.stdout  # attribution


def test_lookup_with_db_and_english(
    pmgs: Runner, database: Path, sample_code: tuple[str, str]
) -> None:
    scheme, code = sample_code
    result = pmgs("lookup", scheme, code, "--db", database, "--language", "en", "--json")
    assert result.returncode == 0, result.stderr
    assert _json(result)["query"]["language"] == "en"


def test_lookup_not_found_exits_1_with_the_record(pmgs: Runner, data_dir: Path) -> None:
    for args in (("--json",), ()):
        result = pmgs("lookup", "fi", "A01B1/00", "--data-dir", data_dir, *args)
        assert result.returncode == 1, result.stderr
        if args:
            record = _json(result)
            assert record["match_status"] == "not_found"
            assert record["record_type"] == "classification"
        else:
            assert "not_found" in result.stdout


@pytest.mark.parametrize(
    ("args", "code", "exit_code"),
    [
        (("lookup", "xx", "A01B"), "INVALID_SCHEME", 2),
        (("lookup", "fi", "G06F3/"), "INVALID_CODE", 2),
        (("lookup", "fi", "A01B1/00", "--relation-offset", "-1"), "INVALID_OFFSET", 2),
        (("lookup", "fi", "A01B1/00", "--edition", "8U"), "INVALID_EDITION", 2),
        (("search", "電池", "--classification-offset", "-5"), "INVALID_OFFSET", 2),
        (("search", "電池", "--limit", "500"), "INVALID_LIMIT", 2),
        (("document", "no-such-document"), "DOCUMENT_NOT_FOUND", 4),
        (("hierarchy", "children", "fi", "A01B", "--offset", "-1"), "INVALID_OFFSET", 2),
        (("lookup", "fi", "A01B1/00", "--release", "JPPM1999001"), "RELEASE_NOT_FOUND", 4),
    ],
)
def test_bad_input_has_a_stable_code_and_exit_code(
    pmgs: Runner, data_dir: Path, args: tuple[str, ...], code: str, exit_code: int
) -> None:
    result = pmgs(*args, "--data-dir", data_dir, "--json")
    assert result.returncode == exit_code, (result.stdout, result.stderr)
    error = _json(result)
    assert error["record_type"] == "error"
    assert error["error"]["code"] == code
    assert error["hint"]
    assert "Traceback" not in result.stderr
    human = pmgs(*args, "--data-dir", data_dir)
    assert human.returncode == exit_code
    assert f"error {code}" in human.stderr
    assert "hint:" in human.stderr
    assert "Traceback" not in human.stderr


def test_non_integer_option_is_a_click_usage_error(pmgs: Runner, data_dir: Path) -> None:
    result = pmgs("lookup", "fi", "A01B", "--relation-limit", "abc", "--data-dir", data_dir)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


def test_missing_database(pmgs: Runner, tmp_path: Path) -> None:
    result = pmgs("lookup", "fi", "A01B", "--data-dir", tmp_path / "empty", "--json")
    assert result.returncode == 3
    assert _json(result)["error"]["code"] == "DATABASE_NOT_FOUND"
    result = pmgs("search", "電池", "--db", tmp_path / "missing.sqlite", "--json")
    assert result.returncode == 3
    assert _json(result)["error"]["code"] == "DATABASE_NOT_FOUND"


def _copy_data_dir(data_dir: Path, target: Path) -> Path:
    shutil.copytree(data_dir, target)
    return target


def test_malformed_pointer(pmgs: Runner, data_dir: Path, tmp_path: Path) -> None:
    root = _copy_data_dir(data_dir, tmp_path / "d")
    (root / "state" / "current.json").write_text("{not json", encoding="utf-8")
    result = pmgs("lookup", "fi", "A01B", "--data-dir", root, "--json")
    assert result.returncode == 3
    assert _json(result)["error"]["code"] == "INVALID_POINTER"
    doctor = pmgs("doctor", "--data-dir", root, "--json", "--no-mcp")
    assert doctor.returncode == 1
    assert _json(doctor)["failure"] == {"code": "INVALID_POINTER", "stage": "pointer"}


def test_pointer_outside_the_root(pmgs: Runner, data_dir: Path, tmp_path: Path) -> None:
    root = _copy_data_dir(data_dir, tmp_path / "d")
    pointer_path = root / "state" / "current.json"
    pointer = json.loads(pointer_path.read_text(encoding="utf-8"))
    pointer["database"] = "../../" + pointer["database"]
    pointer_path.write_text(json.dumps(pointer), encoding="utf-8")
    result = pmgs("lookup", "fi", "A01B", "--data-dir", root, "--json")
    assert result.returncode == 3
    assert _json(result)["error"]["code"] == "INVALID_POINTER"
    assert str(tmp_path) not in result.stdout + result.stderr


def test_search_json_and_rich(pmgs: Runner, data_dir: Path) -> None:
    result = pmgs("search", "電池", "--data-dir", data_dir, "--json", "--limit", "3")
    assert result.returncode == 0, result.stderr
    page = _json(result)
    assert page["record_type"] == "combined_search_page"
    assert (page["search_mode"], page["index"]) == (
        "sqlite_literal_substring_lexical",
        "fts5_bigram",
    )
    _valid(page, "combined_search_page")
    only = pmgs(
        "search",
        "電池",
        "--content-type",
        "document",
        "--document-offset",
        "1",
        "--data-dir",
        data_dir,
        "--json",
    )
    assert only.returncode == 0
    assert list(_json(only)["results_by_type"]) == ["document"]
    assert _json(only)["results_by_type"]["document"]["offset"] == 1
    human = pmgs("search", "電池", "--data-dir", data_dir)
    assert human.returncode == 0
    assert "電池" in human.stdout
    assert "classifications" in human.stdout


def test_search_ranked_json_and_rich(pmgs: Runner, data_dir: Path) -> None:
    args = ("search", "電池 負極 xyzzy", "--rank", "relevance", "--any", "--data-dir", data_dir)
    result = pmgs(*args, "--json", "--min-score", "0.2", "--content-type", "classification")
    assert result.returncode == 0, result.stderr
    page = _json(result)
    _valid(page, "combined_search_page")
    # 電池 has two characters: the contract's literal substring route, ranked by BM25.
    assert (page["search_mode"], page["index"]) == (
        "sqlite_literal_substring_lexical",
        "fts5_bm25",
    )
    hits = page["results_by_type"]["classification"]["results"]
    assert hits, "the sample has classification texts with 電池"
    assert max(hit["score"] for hit in hits) == 1.0
    assert all(hit["score"] >= 0.2 for hit in hits)
    for scheme in ("fi", "fterm", "ipc"):  # schemes are interleaved, each in score order
        scores = [hit["score"] for hit in hits if hit["scheme"] == scheme]
        assert scores == sorted(scores, reverse=True)
    for hit in hits:  # matched_terms are the query terms found in the hit's texts
        assert set(hit["matched_terms"]) <= {"電池", "負極"}
        assert any(term in m["excerpt"] for m in hit["matches"] for term in hit["matched_terms"])
    human = pmgs(*args)
    assert human.returncode == 0, human.stderr
    assert "score" in human.stdout
    assert "1.000" in human.stdout
    bad = pmgs(*args, "--min-score", "2", "--json")
    assert bad.returncode != 0
    assert _json(bad)["error"]["code"] == "INVALID_ARGUMENT"


def test_document_and_hierarchy(pmgs: Runner, data_dir: Path) -> None:
    demo = _json(pmgs("demo", "--data-dir", data_dir, "--json"))
    document_id = demo["document"]["document_id"]
    code = demo["lookup"]["code"]
    scheme = demo["lookup"]["scheme"]
    result = pmgs("document", document_id, "--section", "1", "--data-dir", data_dir, "--json")
    assert result.returncode == 0, result.stderr
    page = _json(result)
    assert page["record_type"] == "document_page"
    assert page["selector"]["section"] == 1
    _valid(page, "document_page")
    human = pmgs("document", document_id, "--data-dir", data_dir)
    assert human.returncode == 0
    assert document_id in human.stdout
    bad = pmgs(
        "document", document_id, "--page", "1", "--section", "1", "--data-dir", data_dir, "--json"
    )
    assert bad.returncode == 2
    assert _json(bad)["error"]["code"] == "INVALID_DOCUMENT_SELECTOR"
    missing = pmgs("document", document_id, "--section", "999", "--data-dir", data_dir, "--json")
    assert missing.returncode == 4
    assert _json(missing)["error"]["code"] == "DOCUMENT_SELECTOR_NOT_FOUND"

    parents = pmgs("hierarchy", "parents", scheme, code, "--data-dir", data_dir, "--json")
    assert parents.returncode == 0, parents.stderr
    assert _json(parents)["record_type"] == "hierarchy_page"
    _valid(_json(parents), "hierarchy_page")
    top = _json(parents)["items"][0]["code"]
    children = pmgs("hierarchy", "children", scheme, top, "--data-dir", data_dir)
    assert children.returncode == 0
    assert "children" in children.stdout
    absent = pmgs("hierarchy", "children", "fi", "A01B1/00", "--data-dir", data_dir, "--json")
    assert absent.returncode == 1
    assert _json(absent)["match_status"] == "not_found"


def test_release_lists_current_and_installed(pmgs: Runner, data_dir: Path) -> None:
    result = pmgs("release", "--data-dir", data_dir, "--json")
    assert result.returncode == 0, result.stderr
    record = _json(result)
    assert record["current"]["record_type"] == "release_info"
    _valid(record["current"], "release_info")
    assert record["installed"]
    assert record["installed"][0]["current"] is True
    assert not any(str(data_dir) in json.dumps(item) for item in record["installed"])
    human = pmgs("release", "--data-dir", data_dir)
    assert human.returncode == 0
    assert "JPPM2026002" in human.stdout


def test_validate(pmgs: Runner, database: Path, tmp_path: Path) -> None:
    result = pmgs("validate", database, "--json")
    assert result.returncode == 0, result.stderr
    report = _json(result)
    assert report["ok"] is True
    figures = {check["name"]: check["figure"] for check in report["checks"]}
    assert {"quick_check", "foreign_key_check", "schema_version", "release_row"} <= set(figures)
    assert {"copyright", "source_file_rows", "table_counts", "ipc_valid_revisions"} <= set(figures)
    assert figures["foreign_key_check"] == "0 violations"
    assert figures["fts_integrity:text_bigram"].endswith(" rows")
    assert all(figures.values())
    human = pmgs("validate", database)
    assert human.returncode == 0
    assert "ok   foreign_key_check: 0 violations" in human.stdout
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database" * 100)
    bad = pmgs("validate", junk, "--json")
    assert bad.returncode == 1
    assert _json(bad)["ok"] is False
    missing = pmgs("validate", tmp_path / "none.sqlite", "--json")
    assert missing.returncode == 3


def test_build(pmgs: Runner, sample_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.sqlite"
    result = pmgs("build", sample_dir, out, "--json")
    assert result.returncode == 0, result.stderr
    assert _json(result)["release"] == "JPPM2026002"
    again = pmgs("build", sample_dir, out, "--json")
    assert again.returncode == 5
    assert _json(again)["error"]["code"] == "BUILD_FAILED"
    human = pmgs("build", sample_dir, tmp_path / "b.sqlite")
    assert human.returncode == 0
    assert "built JPPM2026002" in human.stdout
    timed = pmgs("build", sample_dir, tmp_path / "c.sqlite", "--pdf-timeout", "0.5", "--json")
    assert timed.returncode == 0, timed.stderr
    for bad_limit in ("0", "-1", "soon"):
        refused = pmgs("build", sample_dir, tmp_path / "d.sqlite", "--pdf-timeout", bad_limit)
        assert refused.returncode == 2, (bad_limit, refused.stderr)
        assert not (tmp_path / "d.sqlite").exists()


def test_setup_again_is_already_ready_and_dry_run_writes_nothing(
    pmgs: Runner, data_dir: Path, sample_dir: Path, tmp_path: Path
) -> None:
    pointer = (data_dir / "state" / "current.json").read_bytes()
    result = pmgs("setup", sample_dir, "--data-dir", data_dir, "--json")
    assert result.returncode == 0, result.stderr
    assert _json(result)["status"] == "already_ready"
    assert (data_dir / "state" / "current.json").read_bytes() == pointer

    fresh = tmp_path / "fresh"
    dry = pmgs("setup", sample_dir, "--data-dir", fresh, "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    report = _json(dry)
    assert report["status"] == "dry_run"
    assert report["required_free_bytes"] == 3 * report["source_bytes"] + (1 << 30)
    assert not fresh.exists()
    human = pmgs("setup", sample_dir, "--data-dir", data_dir)
    assert human.returncode == 0
    assert "already_ready" in human.stdout


def test_setup_errors(pmgs: Runner, tmp_path: Path) -> None:
    missing = pmgs("setup", tmp_path / "nope", "--data-dir", tmp_path / "d", "--json")
    assert missing.returncode == 5
    assert _json(missing)["error"]["code"] == "SOURCE_NOT_FOUND"
    empty = tmp_path / "JPPM2026009"
    empty.mkdir()
    bad = pmgs("setup", empty, "--data-dir", tmp_path / "d", "--json")
    assert bad.returncode == 5
    assert _json(bad)["error"]["code"] == "SOURCE_INVALID"
    assert not (tmp_path / "d" / "state" / "current.json").exists()


@pytest.mark.skipif(shutil.which("tar") is None, reason="no tar")
def test_setup_of_a_tar_gz_names_the_command_that_unpacks_it_and_that_works(
    pmgs: Runner, sample_dir: Path, tmp_path: Path
) -> None:
    source = tmp_path / "pmgs.tar.gz"
    with tarfile.open(source, "w:gz") as archive:
        archive.add(sample_dir, arcname=sample_dir.name)
    refused = pmgs("setup", source, "--data-dir", tmp_path / "d", "--json")
    assert refused.returncode == 5
    error = _json(refused)
    assert error["error"]["code"] == "SOURCE_INVALID"
    assert "SOURCE_ARCHIVE_UNSUPPORTED" in error["error"]["message"]
    assert "run the command in the message to unpack it" in error["hint"]
    step = error["error"]["message"].split("Next step: ", 1)[1]
    assert step.startswith("mkdir pmgs && tar -xf pmgs.tar.gz -C pmgs, then run pmgs setup pmgs")
    for command in step.split(", then ")[0].split(" && "):
        subprocess.run(shlex.split(command), cwd=tmp_path, check=True)
    done = pmgs("setup", tmp_path / "pmgs", "--data-dir", tmp_path / "d", "--json")
    assert done.returncode == 0, done.stderr
    assert _json(done)["status"] == "activated"


def test_setup_register_without_agentkit_is_explained(
    pmgs: Runner, data_dir: Path, sample_dir: Path
) -> None:
    result = pmgs("setup", sample_dir, "--data-dir", data_dir, "--client", "none", "--json")
    assert _json(result)["registration"]["status"] == "skipped"


def test_demo_json_and_rich(pmgs: Runner, tmp_path: Path) -> None:
    root = tmp_path / "demo"
    result = pmgs("demo", "--data-dir", root, "--json")
    assert result.returncode == 0, result.stderr
    demo = _json(result)
    assert demo["setup"]["status"] == "activated"
    assert demo["lookup"]["match_status"] == "exact"
    assert demo["search"]["search_mode"] == "sqlite_literal_substring_lexical"
    assert len(demo["search"]["query"]) == 2
    assert demo["hierarchy"]["record_type"] == "hierarchy_page"
    assert demo["document"]["record_type"] == "document_page"
    human = pmgs("demo", "--data-dir", root)
    assert human.returncode == 0, human.stderr
    assert "already_ready" in human.stdout
    assert "pmgs lookup" in human.stdout
