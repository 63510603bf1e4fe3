"""Server time of the viewer's pages (pmgs-web, issue 30), per page kind.

    uv run python -m benchmarks.web_bench --scale 0.05
    uv run python -m benchmarks.web_bench --db path/to/built.sqlite --scale 1.0 --write-docs

The viewer runs in this process as its ASGI application; a middleware takes the time from
the request's arrival to the last byte of the answer, so the figure is the server's time
(store queries, template rendering), not the client's. Pages are drawn from the built
database with a seeded random choice: codes of each scheme, themes (and the largest theme's
grid on its own), documents, search words, and the fixed pages. Every address is requested
once to warm up, then ``--rounds`` times. Target (issue 30): p95 ≤ 30 ms for every page kind
at scale 1.0; the HTML of a code page ≤ 100 KB. Results go to
``benchmarks/results/web-<date>-scale-<scale>.json``; ``--write-docs`` then rewrites
docs/benchmarks.md from the saved results.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import time
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from benchmarks.build_bench import prepare_package
from benchmarks.docs import add_arguments, publish
from benchmarks.query_bench import summarize
from benchmarks.results import finish, stamp

TARGET_P95_MS = 30.0
TARGET_CODE_PAGE_BYTES = 100 * 1024

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
ASGI = Callable[
    [Scope, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]], Awaitable[None]
]


class Timer:
    """ASGI middleware: the time of each request until its last body message is sent."""

    def __init__(self, app: ASGI) -> None:
        self.app = app
        self.last: float = 0.0

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        started = time.perf_counter()

        async def timed_send(message: Message) -> None:
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                self.last = time.perf_counter() - started

        await self.app(scope, receive, timed_send)


def _code_path(scheme: str, code: str, edition: str) -> str:
    tail = f"?edition={edition}" if scheme == "ipc" else ""
    return f"/{scheme}/{quote(code, safe='/@,')}{tail}"


def addresses(db: Path, seed: int, count: int) -> dict[str, list[str]]:
    """The sampled addresses of each page kind (read with SQL, as the other benchmarks do)."""
    rng = random.Random(seed)
    conn = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True)
    try:

        def sample(sql: str) -> list[tuple[Any, ...]]:
            rows = conn.execute(sql).fetchall()
            return rng.sample(rows, min(count, len(rows)))

        pages: dict[str, list[str]] = {"home": ["/"], "releases": ["/releases"]}
        pages["quarantine"] = ["/quarantine"]
        for scheme in ("fi", "fterm", "ipc"):
            rows = sample(
                f"SELECT code, edition FROM concept WHERE scheme = '{scheme}' "
                "AND status = 'canonical'"
            )
            pages[f"code_{scheme}"] = [_code_path(scheme, c, e) for c, e in rows]
        # J-PlatPat's group list and same-level view of FI subgroups (issue 40), and IPC
        # codes of the older editions (no versions table).
        subgroups = sample(
            "SELECT code FROM concept WHERE scheme = 'fi' AND kind = 'subgroup' "
            "AND status = 'canonical'"
        )
        pages["code_fi_group"] = [_code_path("fi", c, "") + "?view=group" for (c,) in subgroups]
        pages["code_fi_same"] = [_code_path("fi", c, "") + "?view=same" for (c,) in subgroups]
        older = sample(
            "SELECT code, edition FROM concept WHERE scheme = 'ipc' AND edition != '8U' "
            "AND status = 'canonical'"
        )
        pages["code_ipc_older_edition"] = [_code_path("ipc", c, e) for c, e in older]
        themes = sample("SELECT code FROM concept WHERE scheme = 'fterm' AND kind = 'theme'")
        pages["theme_grid"] = [f"/theme/{t}" for (t,) in themes]
        largest = conn.execute(
            "SELECT substr(code, 1, 5), count(*) FROM concept WHERE scheme = 'fterm' "
            "GROUP BY 1 ORDER BY 2 DESC LIMIT 1"
        ).fetchone()
        pages["theme_grid_largest"] = [f"/theme/{largest[0]}"]
        documents = sample("SELECT document_key FROM document")
        pages["document"] = [f"/document/{quote(d, safe=':')}" for (d,) in documents]
        bodies = sample("SELECT body FROM text WHERE language = 'ja' AND length(body) > 8")
        words = ["制御", "制御するもの", "装置"]
        for (body,) in bodies:
            start = rng.randrange(0, max(1, len(body) - 4))
            words.append(body[start : start + rng.choice((2, 3, 4))])
        pages["search"] = [f"/search?q={quote(w)}" for w in words[:count]]
        pages["search_relevance_any"] = [
            f"/search?q={quote(w)}&order=relevance&match=any" for w in words[:count]
        ]
        return pages
    finally:
        conn.close()


def measure(db: Path, pages: dict[str, list[str]], rounds: int) -> dict[str, Any]:
    from starlette.testclient import TestClient

    from pmgs_web import create_app
    from pmgs_web.releases import StoreSet

    stores = StoreSet.open(db)
    timer = Timer(create_app(stores))
    results: dict[str, Any] = {}
    code_page_bytes = 0
    try:
        with TestClient(timer) as client:
            for kind, paths in pages.items():
                for path in paths:  # warm-up, and every address must answer 200
                    answer = client.get(path)
                    if answer.status_code != 200:
                        raise RuntimeError(f"{path}: HTTP {answer.status_code}")
                    if kind.startswith("code_"):
                        code_page_bytes = max(code_page_bytes, len(answer.content))
                samples: list[float] = []
                for _ in range(rounds):
                    for path in paths:
                        client.get(path)
                        samples.append(timer.last)
                results[kind] = {"addresses": len(paths), **summarize(samples)}
                if kind.startswith("search"):
                    results[kind]["store"] = _store_search_times(stores, paths, rounds)
    finally:
        stores.close()
    return {"pages": results, "max_code_page_bytes": code_page_bytes}


def _store_search_times(stores: Any, paths: list[str], rounds: int) -> dict[str, float | int]:
    """The same searches as bare ``search_pmgs`` calls: what the page adds is the rest."""
    from urllib.parse import parse_qs, urlsplit

    samples: list[float] = []
    for _ in range(rounds):
        for path in paths:
            query = parse_qs(urlsplit(path).query)
            started = time.perf_counter()
            stores.current.search_pmgs(
                query["q"][0],
                limit=20,
                order=query.get("order", ["index"])[0],
                match=query.get("match", ["all"])[0],
            )
            samples.append(time.perf_counter() - started)
    return summarize(samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/pmgs-web-bench"))
    parser.add_argument("--db", type=Path, default=None, help="an already built database")
    parser.add_argument("--addresses", type=int, default=30, help="addresses per page kind")
    parser.add_argument("--rounds", type=int, default=5, help="timed passes over them")
    add_arguments(parser)
    args = parser.parse_args(argv)
    command = "uv run python -m benchmarks.web_bench " + " ".join(
        argv if argv is not None else sys.argv[1:]
    )
    record = stamp("web", args.scale, command)
    db = args.db
    if db is None:
        from pmgs_build import build_database

        args.workdir.mkdir(parents=True, exist_ok=True)
        package = prepare_package(args.workdir, args.scale, args.seed, True)
        db = args.workdir / f"db-scale-{args.scale:g}-seed-{args.seed}.sqlite"
        if not db.is_file():
            build_database(package.path, db)
    with db.open("rb") as handle:  # warm the OS cache, as the query benchmark does
        while handle.read(1 << 22):
            pass
    pages = addresses(db, args.seed, args.addresses)
    measured = measure(db, pages, args.rounds)
    publish(finish({**record, "seed": args.seed, **measured}), args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
