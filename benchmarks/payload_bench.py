"""Benchmark: how many bytes (and estimated tokens) each MCP tool call costs an agent.

Not a test: it measures a fixed set of calls over stdio with a bare JSON-lines client, once
as a client got them before issue 18 (``detail: full`` and the store's page sizes: 50
relations, 20 results per type, 200 segments) and once with the server's defaults (concise,
pages sized for agents), saves its results under ``benchmarks/results/`` and prints the
section they render in docs/benchmarks.md (``--write-docs`` rewrites the document).

* bytes: the JSON-RPC response line as it crosses stdio (structured content and its text
  copy, both);
* tokens: an estimate, stated so it can be checked: one token per 4 ASCII characters plus
  one per non-ASCII character (kanji and kana are about one token each in common BPE
  vocabularies), over the same line;
* p50 of the call's round trip over stdio (bare client, no SDK validation).

Usage::

    uv run --frozen python benchmarks/payload_bench.py [--scale 0.1 | --db FILE] [--calls 30]
        [--write-docs]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.docs import add_arguments, publish
from benchmarks.mcp_roundtrip import RawStdio, build_reference, percentile
from benchmarks.results import finish, stamp

BEFORE_PAGES = {
    "lookup_classification": {"relation_limit": 50},
    "search_pmgs": {"limit": 20},
    "get_pmgs_document": {"segment_limit": 200, "related_classification_limit": 200},
}
"""The page sizes a call without arguments got before issue 18 (the store's defaults)."""


def estimate_tokens(text: str) -> int:
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return (ascii_chars + 3) // 4 + (len(text) - ascii_chars)


def calls(examples: dict[str, str], document_id: str) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        ("lookup IPC G06F3/048", "lookup_classification", {"scheme": "ipc", "code": "G06F3/048"}),
        (
            "lookup F-term theme",
            "lookup_classification",
            {"scheme": "fterm", "code": examples["fterm_large_theme"]},
        ),
        ("search_pmgs, common phrase", "search_pmgs", {"query": examples["common_phrase"]}),
        ("search_pmgs, 2 characters", "search_pmgs", {"query": examples["two_char_word"]}),
        ("get_pmgs_document", "get_pmgs_document", {"document_id": document_id}),
    ]


def measure(
    db: Path, examples: dict[str, str], document_id: str, repeats: int
) -> list[dict[str, Any]]:
    client = RawStdio(db)
    client.initialize()
    rows = []
    try:
        for label, tool, arguments in calls(examples, document_id):
            row: dict[str, Any] = {"label": label}
            for mode, args in (
                ("before", {**arguments, **BEFORE_PAGES[tool], "detail": "full"}),
                ("after", arguments),
            ):
                line = ""
                samples = []
                for _ in range(repeats):
                    started = time.perf_counter()
                    answer = client.call(tool, args)
                    samples.append(time.perf_counter() - started)
                    line = json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
                    assert not answer["result"].get("isError"), answer
                row[mode] = {
                    "bytes": len(line.encode("utf-8")),
                    "tokens": estimate_tokens(line),
                    "p50_ms": percentile(samples, 0.5) * 1000,
                    "text_bytes": len(answer["result"]["content"][0]["text"].encode("utf-8")),
                }
            rows.append(row)
    finally:
        client.close()
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--db", type=Path, help="an existing database built from the generator")
    parser.add_argument("--examples", type=Path, help="its examples (JSON), with --db")
    parser.add_argument("--calls", type=int, default=30)
    add_arguments(parser)
    args = parser.parse_args()
    record = stamp("payload", args.scale)
    with tempfile.TemporaryDirectory(prefix="pmgs-payload-") as tmp:
        if args.db is not None:
            db = args.db
            loaded = json.loads(args.examples.read_text("utf-8")) if args.examples else {}
            # the generator's generated.json holds them under "examples"
            examples = loaded.get("examples", loaded)
            summary = f"database {db.name} ({db.stat().st_size / 1e6:,.0f} MB)"
        else:
            db, examples, summary = build_reference(Path(tmp), args.scale, args.seed)
        from pmgs_core import PMGSStore

        with PMGSStore.open(db) as store:
            document_id = store.list_documents("fterm_explanation", limit=1)["items"][0][
                "document_id"
            ]
        rows = measure(db, examples, document_id, args.calls)
    record.update(database=summary, calls=args.calls, rows=rows)
    publish(finish(record), args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
