"""``python -m benchmarks``: build a synthetic package and measure it against design.md.

Steps: generate a package with documents at ``--scale`` (1.0 = the real release's row counts,
5,906 PDFs), or reuse the one of the same scale and seed in ``--workdir``; build it with the
real ``pmgs build SRC OUT --json`` in a child process (wall time per phase, peak memory of the
process tree, database size and the size of every table and index); then measure, warm and in
process, lookups, searches, hierarchy pages and a large document; the cold ``pmgs lookup
--json``; MCP over stdio. Results go to ``benchmarks/results/full-<date>-scale-<scale>.json``
(or ``--output-json``). ``--write-docs`` measures nothing: it writes the whole of
docs/benchmarks.md from the saved results of every benchmark (:mod:`benchmarks.docs`).

Usage::

    uv run python -m benchmarks [--scale 1.0] [--seed 0] [--workdir DIR]
        [--output-json PATH] [--no-documents]
    uv run python -m benchmarks --write-docs
    uv run python -m benchmarks --from-json benchmarks/results/FILE.json   # print its section

Run it from the repository root (``-m`` finds ``benchmarks`` in the current directory).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import build_bench, docs, query_bench, report
from benchmarks.results import ROOT, commit, default_path


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--scale", type=float, default=1.0, help="package scale (1.0 = real)")
    parser.add_argument("--seed", type=int, default=0, help="generator and sampling seed")
    parser.add_argument(
        "--workdir",
        type=Path,
        default=None,
        help="keep the package and database here and reuse the package next time "
        "(default: a temporary directory, removed at the end)",
    )
    parser.add_argument("--output-json", type=Path, default=None, help="results file")
    parser.add_argument(
        "--write-docs",
        action="store_true",
        help="measure nothing: write docs/benchmarks.md from the saved results",
    )
    parser.add_argument(
        "--no-documents",
        action="store_true",
        help="generate the package without the XML, HTML and PDF groups",
    )
    parser.add_argument("--calls", type=int, default=200, help="measured calls per query case")
    parser.add_argument("--cold-runs", type=int, default=10, help="cold `pmgs lookup` processes")
    parser.add_argument("--mcp-starts", type=int, default=10, help="MCP server start-ups")
    parser.add_argument("--skip-mcp", action="store_true", help="leave out MCP over stdio")
    parser.add_argument(
        "--reuse-database",
        action="store_true",
        help="with --workdir: measure the database an earlier run built there (and report that "
        "run's build figures) instead of building again",
    )
    parser.add_argument(
        "--from-json",
        type=Path,
        default=None,
        help="measure nothing: print the section of an earlier results file",
    )
    return parser.parse_args(argv)


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def save(results: dict[str, Any], output: Path) -> None:
    """Write the results so far: a stage that fails later does not lose the earlier ones."""
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n", "utf-8")


def run(args: argparse.Namespace, workdir: Path, output: Path) -> dict[str, Any]:
    results: dict[str, Any] = {
        "kind": "full",
        "commit": commit(),
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": report.command_line(),
        "scale": args.scale,
        "seed": args.seed,
        "load_average_start": list(os.getloadavg()),
    }
    with_documents = not args.no_documents
    log(f"package: scale {args.scale}, seed {args.seed}, documents {with_documents}")
    package = build_bench.prepare_package(workdir, args.scale, args.seed, with_documents)
    results["package"] = {
        "path": str(package.path),
        "with_documents": with_documents,
        "generated_seconds": package.generated_seconds,
        "files": package.files,
        "bytes": package.bytes,
        "pdf_files": package.pdf_files,
    }
    flavour = "docs" if with_documents else "nodocs"
    database = workdir / f"db-scale-{args.scale:g}-seed-{args.seed}-{flavour}.sqlite"
    build_record = workdir / "build.json"
    if args.reuse_database and database.is_file() and build_record.is_file():
        log(f"reusing {database} and the build figures of {build_record}")
        results["build"] = json.loads(build_record.read_text("utf-8"))
        results["build"]["reused"] = True
    else:
        log(f"pmgs build → {database}")
        results["build"] = build_bench.run_build(
            package.path, database, workdir / "build.stderr.log"
        )
        results["build"]["finished_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        save(results["build"], build_record)
    log(
        f"built in {results['build']['wall_seconds']:.1f} s, "
        f"peak RSS {results['build']['peak_rss_bytes'] / 2**20:.0f} MiB"
    )
    save(results, output)

    def stage(name: str, measure: Callable[[], None]) -> None:
        """Run one measuring stage; a failure is recorded and the later stages still run."""
        log(name)
        try:
            measure()
        except Exception as error:
            results.setdefault("errors", {})[name] = f"{type(error).__name__}: {error}"
            log(f"{name} failed: {type(error).__name__}: {error}")
        save(results, output)

    def sizes() -> None:
        results["sizes"] = build_bench.object_sizes(database)

    def in_process() -> None:
        results["queries"], results["once_per_store"] = query_bench.in_process(
            database, package.examples, args.seed, args.calls
        )

    def cold() -> None:
        results["cold_cli"] = query_bench.cold_cli(database, args.seed, args.cold_runs)

    def mcp() -> None:
        results["mcp"] = query_bench.mcp_stdio(
            database, package.examples, args.calls, args.mcp_starts
        )

    stage("database sizes", sizes)
    stage("in-process queries", in_process)
    stage("cold pmgs lookup", cold)
    if not args.skip_mcp:
        stage("MCP over stdio", mcp)
    results["machine"] = report.machine()
    results["finished_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    results["targets"] = report.evaluate(results)
    return results


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not 0 < args.scale <= 2 or args.calls < 1 or args.cold_runs < 1 or args.mcp_starts < 1:
        print("scale must be in (0, 2]; counts must be positive", file=sys.stderr)
        return 2
    if args.write_docs:
        return docs.main([])
    if args.from_json is not None:
        results = json.loads(args.from_json.read_text("utf-8"))
        print(report.markdown(results, source=str(args.from_json)))
        return 0
    output = args.output_json or default_path(
        {"kind": "full", "date": time.strftime("%Y-%m-%d", time.gmtime()), "scale": args.scale}
    )
    try:
        if args.workdir is not None:
            args.workdir.mkdir(parents=True, exist_ok=True)
            results = run(args, args.workdir.resolve(), output)
        else:
            with tempfile.TemporaryDirectory(prefix="pmgs-bench-") as tmp:
                results = run(args, Path(tmp), output)
    except build_bench.BuildFailed as error:
        print(f"benchmark stopped: {error}", file=sys.stderr)
        if not args.no_documents:
            print(
                "hint: if a document adapter is not finished yet, --no-documents builds the "
                "package without the XML, HTML and PDF groups",
                file=sys.stderr,
            )
        return 1
    try:
        shown = output.resolve().relative_to(ROOT)
    except ValueError:
        shown = output
    results["json_path"] = str(shown)
    save(results, output)
    print(report.markdown(results, source=str(shown)))
    log(f"results written to {output}; docs/benchmarks.md: python -m benchmarks --write-docs")
    return 1 if results.get("errors") else 0


if __name__ == "__main__":
    raise SystemExit(main())
