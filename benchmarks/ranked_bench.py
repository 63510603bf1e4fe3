"""Relevance-ranked search: latency and retrieval quality on a generated package (issue 14).

    uv run python -m benchmarks.ranked_bench --scale 0.1
    uv run python -m benchmarks.ranked_bench --db path/to/built.sqlite --scale 1.0 --write-docs

Results go to ``benchmarks/results/ranked-<date>-scale-<scale>.json``; ``--write-docs`` then
rewrites docs/benchmarks.md from the saved results.

Latency: ``search_pmgs(order="relevance", match="any", limit=20)`` (both content types, the
heaviest ranked call) for short queries (≤ 40 characters: 1-4 words drawn from the texts, and
very common words) and long ones (≤ 400 characters: several text lines pasted as terms).

Quality: for sampled canonical FI and F-term codes, a query is made of the words of the code's
own texts (title and further lines), shuffled, about a third dropped, and one or two words of
another code added. The target is a hit that belongs to that code (``strict``); since the
synthetic vocabulary is small (40 nouns, 8 heads), many codes have texts identical to the
target's, so a second figure counts a hit whose best line holds at least as many of the
query's words as the target's lines do (``equivalent``: lexically as close to the query; the
added words of another code often form, with one of the target's words, a title of other
codes that is as close to the query as the target's own).
Recall@1, recall@10 and MRR are reported for relevance order and for index order (match
"all" as the contract's default, and match "any" ordered by package position).

The words of a Japanese text are its runs between particles and punctuation (の, を, に, と,
、, 。 …; the phrase 制御するもの kept whole) and the synthetic mark is dropped, which is how
the generator builds its texts. At least two thirds of a code's words are kept.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.build_bench import prepare_package
from benchmarks.docs import add_arguments, publish
from benchmarks.query_bench import summarize
from benchmarks.results import finish, stamp
from pmgs_core import PMGSStore
from pmgs_core.building import fold_for_search

_NOISE = re.compile(r"合成データ：|を用いた|に関する|との|を含む|説明")
_WORD = re.compile(r"制御するもの|[^のをにとはがでや、。：・「」\s]+")
COMMON_QUERIES = ("電池", "制御するもの", "装置 方法", "合成データ", "電池 装置 制御")


def words(text: str) -> list[str]:
    """The runs of a text between particles and punctuation, 2 characters or more."""
    return [part for part in _WORD.findall(_NOISE.sub(" ", text)) if len(part) >= 2]


def _code_texts(store: PMGSStore, rng: random.Random, count: int) -> list[tuple[int, list[str]]]:
    """(concept id, its ja lines) for ``count`` sampled canonical FI / F-term codes."""
    conn = store._connection()
    ids = [
        row[0]
        for row in conn.execute(
            "SELECT id FROM concept WHERE status = 'canonical' AND scheme IN ('fi', 'fterm')"
        )
    ]
    chosen = rng.sample(ids, min(count, len(ids)))
    out = []
    for concept in chosen:
        lines = [
            str(row[0])
            for row in conn.execute(
                "SELECT t.body FROM text AS t JOIN revision AS r ON r.id = t.revision_id "
                "WHERE r.concept_id = ? AND t.language = 'ja' ORDER BY t.line LIMIT 4",
                (concept,),
            )
        ]
        if lines and words(" ".join(lines)):
            out.append((concept, lines))
    return out


def _quality_query(rng: random.Random, lines: list[str], other: list[str]) -> str:
    own = list(dict.fromkeys(w for line in lines for w in words(line)))
    rng.shuffle(own)
    # About a third dropped, but never below two thirds of the words (at least one).
    keep = max(1, -(-2 * len(own) // 3))
    kept = [w for w in own if rng.random() >= 0.33]
    kept += [w for w in own if w not in kept][: max(0, keep - len(kept))]
    noise = rng.sample(other, min(len(other), rng.choice((1, 2))))
    query = kept + noise
    rng.shuffle(query)
    return " ".join(query[:16])


def _rank_of(
    hits: list[dict[str, Any]], concept_code: tuple[str, str], query: str, lines: list[str]
) -> tuple[int | None, int | None]:
    """The 1-based position of the target code (strict) and of the first hit that is
    lexically as close to the query: its best line holds at least as many of the query's
    terms as the target's lines do (a lexical ranker has no reason to prefer the target)."""
    terms = [fold_for_search(term) for term in query.split()]
    target_text = fold_for_search(" ".join(lines))
    wanted = sum(1 for term in terms if term in target_text)
    strict = equivalent = None
    for position, hit in enumerate(hits, 1):
        own = (hit["scheme"], hit["code"]) == concept_code
        if strict is None and own:
            strict = position
        best = fold_for_search(hit["matches"][0]["excerpt"])
        if equivalent is None and (own or sum(1 for t in terms if t in best) >= wanted):
            equivalent = position
    return strict, equivalent


def quality(store: PMGSStore, seed: int, count: int) -> dict[str, Any]:
    rng = random.Random(seed)
    sampled = _code_texts(store, rng, count)
    conn = store._connection()
    figures: dict[str, dict[str, list[int | None]]] = {}
    modes = {
        "relevance_any": {"order": "relevance", "match": "any"},
        "index_all": {"order": "index", "match": "all"},
        "index_any": {"order": "index", "match": "any"},
    }
    for index, (concept, lines) in enumerate(sampled):
        scheme, code = conn.execute(
            "SELECT scheme, code FROM concept WHERE id = ?", (concept,)
        ).fetchone()
        other_lines = sampled[(index + 1) % len(sampled)][1]
        query = _quality_query(rng, lines, words(" ".join(other_lines)))
        for name, kwargs in modes.items():
            page = store.search(query, limit=10, **kwargs)  # type: ignore[arg-type]
            strict, equivalent = _rank_of(page["results"], (scheme, code), query, lines)
            figures.setdefault(name, {"strict": [], "equivalent": []})
            figures[name]["strict"].append(strict)
            figures[name]["equivalent"].append(equivalent)
    out: dict[str, Any] = {"queries": len(sampled)}
    for name, kinds in figures.items():
        out[name] = {}
        for kind, ranks in kinds.items():
            total = len(ranks)
            out[name][kind] = {
                "recall_at_1": sum(1 for r in ranks if r == 1) / total,
                "recall_at_10": sum(1 for r in ranks if r is not None) / total,
                "mrr": sum(1 / r for r in ranks if r is not None) / total,
            }
    return out


def latency_queries(store: PMGSStore, seed: int, count: int) -> dict[str, list[str]]:
    rng = random.Random(seed + 1)
    sampled = _code_texts(store, rng, count * 2)
    pool = [w for _, lines in sampled for line in lines for w in words(line)]
    short = list(COMMON_QUERIES)
    while len(short) < count:
        query = " ".join(rng.sample(pool, rng.choice((1, 2, 3, 4))))
        if len(query) <= 40:
            short.append(query)
    long = []
    lines = [line for _, group in sampled for line in group]
    while len(long) < count:
        picked = rng.sample(lines, rng.choice((3, 6, 10, 16)))
        query = " ".join(line.replace(" ", "")[:60] for line in picked)
        long.append(query[:400].strip())
    return {"short": short[:count], "long": long}


def latency(store: PMGSStore, queries: dict[str, list[str]], rounds: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for label, group in queries.items():
        for query in group:  # warm-up
            store.search_pmgs(query, order="relevance", match="any", limit=20)
        samples: list[float] = []
        capped = 0
        for _ in range(rounds):
            for query in group:
                started = time.perf_counter()
                page = store.search_pmgs(query, order="relevance", match="any", limit=20)
                samples.append(time.perf_counter() - started)
                capped += any(
                    typed.get("candidates_capped") for typed in page["results_by_type"].values()
                )
        out[label] = {
            **summarize(samples),
            "queries": len(group),
            "max_chars": max(len(q) for q in group),
            "capped_share": capped / len(samples),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/pmgs-ranked-bench"))
    parser.add_argument("--db", type=Path, default=None, help="an already built database")
    parser.add_argument("--queries", type=int, default=100, help="queries per latency group")
    parser.add_argument("--rounds", type=int, default=3, help="timed passes over the queries")
    parser.add_argument("--quality-queries", type=int, default=500)
    add_arguments(parser)
    parser.add_argument("--quality-only", action="store_true", help="skip the latency runs")
    args = parser.parse_args(argv)
    command = "uv run python -m benchmarks.ranked_bench " + " ".join(
        argv if argv is not None else sys.argv[1:]
    )
    record = stamp("ranked", args.scale, command)
    db = args.db
    if db is None:
        from pmgs_build import build_database

        args.workdir.mkdir(parents=True, exist_ok=True)
        package = prepare_package(args.workdir, args.scale, args.seed, True)
        db = args.workdir / f"db-scale-{args.scale:g}-seed-{args.seed}.sqlite"
        if not db.is_file():
            build_database(package.path, db)
    with PMGSStore.open(db) as store:
        with db.open("rb") as handle:  # warm the OS cache, as the query benchmark does
            while handle.read(1 << 22):
                pass
        queries = latency_queries(store, args.seed, args.queries)
        results: dict[str, Any] = {
            **record,
            "seed": args.seed,
            "latency": {} if args.quality_only else latency(store, queries, args.rounds),
            "quality": quality(store, args.seed, args.quality_queries),
            "queries": queries,
        }
    publish(finish(results), args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
