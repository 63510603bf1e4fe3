"""The collection's LSA: retraining and hybrid queries on a generated collection (ADR 0026).

    uv run python -m benchmarks.lsa_bench --items 10000 --workdir /tmp/lsa-bench

Fills a collection with ``--items`` short Japanese notes (words drawn with a fixed seed from
topic vocabularies, so bigrams co-occur as in real notes; kept in the work directory), then
times ``lsa_retrain`` and ``search_text`` (hybrid, limit 5) and the vector half alone over
200 two-word queries. Saves its results as ``benchmarks/results/lsa-<date>.json`` and prints
the section they render in docs/benchmarks.md (``--write-docs`` then rewrites the document).
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import time
from pathlib import Path

from benchmarks.docs import add_arguments, publish
from benchmarks.results import finish, stamp
from pmgs_core import Collection
from pmgs_core.collection._vectors import nearest
from pmgs_core.folding import fold_for_search

_STEMS = [
    "電池",
    "負極",
    "正極",
    "結着剤",
    "電解液",
    "集電体",
    "セパレータ",
    "充電",
    "放電",
    "容量",
    "車両",
    "制動",
    "操舵",
    "走行",
    "速度",
    "半導体",
    "基板",
    "露光",
    "洗浄",
    "配線",
    "画像",
    "撮影",
    "画素",
    "圧縮",
    "表示",
    "樹脂",
    "成形",
    "金型",
    "射出",
    "充填",
    "容器",
    "蓋体",
    "密封",
    "飲料",
    "照明",
    "光源",
    "点灯",
    "配光",
    "通信",
    "無線",
    "周波数",
    "基地局",
    "記憶",
    "書込",
    "読出",
    "演算",
    "制御",
    "信号",
    "歯車",
    "減速",
    "動力",
    "伝達",
    "冷却",
    "冷媒",
    "放熱",
    "温度",
    "空調",
    "医薬",
    "錠剤",
    "投与",
    "患者",
    "食品",
    "調味料",
    "加熱",
    "風味",
]


def _fill(path: Path, items: int) -> Collection:
    col = Collection(path)
    have = col.get_item_count()
    rng = random.Random(0)
    topics = [rng.sample(_STEMS, 8) for _ in range(60)]
    for n in range(items):
        words = rng.choice(topics)
        text = "".join(rng.choice(words) + rng.choice("のをにとでがは") for _ in range(6))
        if n >= have:
            col.put_document(text, f"bench/{n:05}.txt")
    return col


def _vector_half(col: Collection, conn: sqlite3.Connection, query: str) -> dict[int, float]:
    space = col._current_space(conn)
    assert space is not None
    return nearest(conn, space, col._current_vectors(conn, space), fold_for_search(query), None)


def _percentiles(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 2),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 2),
        "max_ms": round(ordered[-1] * 1000, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/lsa-bench"))
    parser.add_argument("--rounds", type=int, default=2)
    add_arguments(parser)
    args = parser.parse_args()
    record = stamp("lsa", None)
    args.workdir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    col = _fill(args.workdir / f"c{args.items}.sqlite", args.items)
    filled = time.perf_counter() - started
    trainings = []
    for _ in range(args.rounds):
        started = time.perf_counter()
        record_dimensions = col.lsa_retrain()["dimensions"]
        trainings.append(time.perf_counter() - started)
    rng = random.Random(1)
    queries = [rng.choice(_STEMS) + " " + rng.choice(_STEMS) for _ in range(200)]
    hybrid, vector = [], []
    col.search_text(queries[0])  # warm: the space is loaded once per generation
    for query in queries:
        started = time.perf_counter()
        col.search_text(query, limit=5, min_score=0.3)
        hybrid.append(time.perf_counter() - started)
        started = time.perf_counter()
        col._read(lambda conn, q=query: _vector_half(col, conn, q))
        vector.append(time.perf_counter() - started)
    record.update(
        items=col.get_item_count(),
        fill_s=round(filled, 1),
        dimensions=record_dimensions,
        retrain_s=[round(s, 2) for s in trainings],
        search_text=_percentiles(hybrid),
        vector_half=_percentiles(vector),
    )
    publish(finish(record), args)


if __name__ == "__main__":
    main()
