"""Targets, the JSON result and the Markdown section of the full benchmark.

The targets are docs/design.md's ("Targets"); they are set for a scale 1.0 package on a
2-core machine, so a run at another scale compares against them for orientation only, and the
section says so. Each target row carries a ``key`` so that docs/benchmarks.md can put the
newest figure of each target, from whichever benchmark measured it last, in one table.
"""

from __future__ import annotations

import os
import platform
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GIB = 1024**3


@dataclass(frozen=True)
class Target:
    """One figure of design.md: where it is in the results and what it must not exceed."""

    figure: str
    target: str
    limit: float
    unit: str  # "s", "ms", "bytes"


def machine() -> dict[str, Any]:
    model = ""
    memory = 0
    try:
        for line in Path("/proc/cpuinfo").read_text("utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text("utf-8").splitlines():
            if line.startswith("MemTotal:"):
                memory = int(line.split()[1]) * 1024
                break
    except OSError:
        pass
    return {
        "cpus": os.cpu_count(),
        "cpu_model": model or platform.processor() or platform.machine(),
        "ram_bytes": memory,
        "system": f"{platform.system()} {platform.release()} {platform.machine()}",
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "load_average": list(os.getloadavg()),
    }


def evaluate(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Every design.md target with the measured value and met/missed."""
    rows: list[dict[str, Any]] = []

    def add(
        figure: str, target: str, value: float | None, limit: float, unit: str, key: str = ""
    ) -> None:
        rows.append(
            {
                "key": key or figure,
                "figure": figure,
                "target": target,
                "measured": value,
                "unit": unit,
                "limit": limit,
                "met": None if value is None else value <= limit,
            }
        )

    build = results.get("build") or {}
    add(
        "full build, wall time of `pmgs build`",
        "≤ 300 s",
        build.get("wall_seconds"),
        300,
        "s",
        "build",
    )
    add(
        "peak memory of the build (RSS summed over the process tree)",
        "≤ 1.5 GiB",
        build.get("peak_rss_bytes"),
        1.5 * GIB,
        "bytes",
        "build_memory",
    )
    add("database size", "≤ 1.35 GB", build.get("database_bytes"), 1.35e9, "bytes", "database")
    queries = results.get("queries") or {}

    def query(key: str, stat: str, target: str, limit: float) -> None:
        if key in queries:
            entry = queries[key]
            add(f"{entry['label']}, {stat[:3]}", target, entry[stat], limit, "ms", key)

    for key in ("lookup_fi", "lookup_fterm", "lookup_ipc", "lookup_ipc_version"):
        query(key, "p50_ms", "p50 ≤ 1 ms", 1)
    query("search_rare", "p50_ms", "p50 ≤ 10 ms", 10)
    query("search_common", "p95_ms", "p95 ≤ 30 ms", 30)
    query("search_2char", "p95_ms", "p95 ≤ 50 ms", 50)
    query("hierarchy_theme", "p50_ms", "p50 ≤ 5 ms", 5)
    query("hierarchy_children", "p50_ms", "p50 ≤ 5 ms", 5)
    cold = results.get("cold_cli")
    if cold:
        add(
            "`pmgs lookup … --json`, cold process, median",
            "≤ 0.3 s",
            cold["median_s"],
            0.3,
            "s",
            "cold_cli",
        )
    mcp = results.get("mcp")
    if mcp:
        add(
            "MCP stdio start → initialized, bare client, median",
            "≤ 0.6 s",
            mcp["start_bare"]["median_s"],
            0.6,
            "s",
            "mcp_start_bare",
        )
        add(
            "MCP stdio start → initialized, SDK client, median",
            "≤ 0.6 s",
            mcp["start_sdk"]["median_s"],
            0.6,
            "s",
            "mcp_start_sdk",
        )
        # The bare client's round trip is the server's cost plus the pipe; an SDK client adds
        # its own parsing and schema validation (shown in the MCP table, not judged here).
        for label, entry in mcp["calls_bare"].items():
            add(
                f"MCP stdio tool call, {label}, bare client, p50",
                "p50 ≤ 8 ms",
                entry["p50_ms"],
                8,
                "ms",
                f"mcp_call:{label}",
            )
    return rows


# --- Markdown ----------------------------------------------------------------------------------


def _value(value: float | None, unit: str) -> str:
    if value is None:
        return "not measured"
    if unit == "bytes":
        if value >= GIB:
            return f"{value / GIB:.2f} GiB ({value / 1e9:.3f} GB)"
        return f"{value / 1e6:.1f} MB"
    if unit == "s":
        return f"{value:.2f} s" if value < 10 else f"{value:.0f} s"
    return f"{value:.2f} ms" if value < 10 else f"{value:.1f} ms"


def _mb(value: float) -> str:
    return f"{value / 1e6:,.1f}"


def _size_groups(sizes: dict[str, Any]) -> list[tuple[str, int, int, int]]:
    """(table, table bytes, index bytes, full-text bytes) per table, largest first."""
    objects = sizes.get("objects", [])
    virtual = {
        obj["name"].rsplit("_", 1)[0]
        for obj in objects
        if obj["name"].endswith(("_data", "_idx", "_config", "_docsize", "_content"))
    }
    groups: dict[str, list[int]] = {}
    for obj in objects:
        name, table = obj["name"], obj["table"]
        owner = name.rsplit("_", 1)[0] if name.rsplit("_", 1)[0] in virtual else table
        slot = groups.setdefault(owner, [0, 0, 0])
        if owner in virtual:
            slot[2] += obj["bytes"]
        elif obj["type"] == "index" or name.startswith("sqlite_autoindex"):
            slot[1] += obj["bytes"]
        else:
            slot[0] += obj["bytes"]
    ordered = sorted(groups.items(), key=lambda item: -sum(item[1]))
    return [(name, *values) for name, values in ordered]  # type: ignore[misc]


def verdict(met: bool | None) -> str:
    return "—" if met is None else ("met" if met else "**missed**")


def target_table(rows: list[dict[str, Any]]) -> list[str]:
    """design.md's targets with this run's figures, and the misses listed under the table."""
    lines = [
        "### Targets (docs/design.md)",
        "",
        "| figure | target | measured | |",
        "|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['figure']} | {row['target']} | {_value(row['measured'], row['unit'])} "
            f"| {verdict(row['met'])} |"
        )
    missed = [row for row in rows if row["met"] is False]
    lines += ["", f"Targets missed in this run: {len(missed)} of {len(rows)}.", ""]
    return lines


def markdown(results: dict[str, Any], *, source: str = "", targets: bool = True) -> str:
    """The full benchmark's section. ``targets=False`` leaves the targets table out (the
    document has one for every benchmark at its top); ``source`` names the results file."""
    m = results["machine"]
    package = results["package"]
    build = results.get("build") or {}
    scale = results["scale"]
    lines = [
        "## Full benchmark (`python -m benchmarks`)",
        "",
        "A synthetic package built by the real `pmgs build` in a child process (wall time per "
        "phase, peak memory of the process tree, the database's size by table), then, warm "
        "and in process, lookups, searches, hierarchy pages and a large document; a cold "
        "`pmgs lookup --json` process; MCP over stdio.",
        "",
        f"Measured on {results['date']} (UTC) at commit "
        f"{results.get('commit') or 'not recorded'} with `{results['command']}`.",
        f"Machine: {m['cpus']} CPUs ({m['cpu_model']}), {m['ram_bytes'] / GIB:.1f} GiB RAM, "
        f"{m['system']}, Python {m['python']}, SQLite {m['sqlite']}; load average "
        f"{results['load_average_start'][0]:.1f} at the start and "
        f"{m['load_average'][0]:.1f} at the end (the machine is shared).",
        f"Package: synthetic, scale {scale}, seed {results['seed']}, "
        + ("with" if package["with_documents"] else "**without**")
        + f" the document groups: {package['files']:,} files, {_mb(package['bytes'])} MB, "
        f"{package['pdf_files']:,} PDFs; "
        + (
            f"generated in {package['generated_seconds']:.0f} s."
            if package["generated_seconds"] is not None
            else "reused from the work directory."
        ),
        f"Results: `{source or results.get('json_path', '')}`.",
        "",
    ]
    if scale != 1.0:
        lines += [
            f"**This run is at scale {scale}, not 1.0**: design.md's targets are set for the "
            "full scale, so met/missed is for orientation only.",
            "",
        ]
    errors = results.get("errors") or {}
    if errors:
        lines += ["**Stages that failed in this run** (their figures are missing below):", ""]
        lines += [f"- {name}: `{message[:300]}`" for name, message in errors.items()]
        lines += [""]
    if targets:
        lines += target_table(evaluate(results))
    stopped = [
        entry
        for entry in (results.get("queries") or {}).values()
        if "stopped after" in entry["detail"]
    ]
    if stopped:
        lines += ["**Other problems seen in this run** (no design.md figure of their own):", ""]
        lines += [
            f"- {entry['label']}: p50 {entry['p50_ms']:,.0f} ms over {entry['calls']} calls; the "
            "case was stopped by its time budget. Paging must not read every match first "
            "(design.md), and this query does."
            for entry in stopped
        ]
        lines += [""]

    if build:
        lines += [
            "### Build",
            "",
            (
                "Build figures of an earlier run on the same package "
                f"({build.get('finished_utc', '?')}); the queries below were measured on "
                "the database it built. "
                if build.get("reused")
                else ""
            )
            + f"`{' '.join(build['command'])}`: {build['wall_seconds']:.1f} s wall "
            f"(the builder reports {build['reported_seconds']} s); peak memory "
            f"{_value(build['peak_rss_bytes'], 'bytes')} RSS summed over up to "
            f"{build['max_processes']} processes "
            f"({_value(build['peak_pss_bytes'], 'bytes')} PSS, which counts pages shared with "
            f"forked workers once; largest single process "
            f"{_value(build['peak_single_process_rss_bytes'], 'bytes')}), sampled every 0.1 s; "
            f"database {_value(build['database_bytes'], 'bytes')}.",
            "",
            "| phase | seconds | share |",
            "|---|---|---|",
        ]
        total = sum(build["phase_seconds"].values()) or 1.0
        for phase, seconds in build["phase_seconds"].items():
            lines.append(f"| {phase} | {seconds:.1f} | {seconds / total:.0%} |")
        counts = build.get("table_counts", {})
        lines += [
            "",
            "Rows: "
            + ", ".join(f"{name} {count:,}" for name, count in counts.items() if count)
            + ".",
            "",
        ]
    sizes = results.get("sizes")
    if sizes:
        lines += ["### Database size by table", ""]
        if sizes["method"] != "dbstat":
            lines += [
                f"Per-object sizes are not available: {sizes['method']}. The file has "
                f"{sizes['page_count']:,} pages of {sizes['page_size']} bytes.",
                "",
            ]
        else:
            lines += [
                f"From SQLite's `dbstat` (pages of {sizes['page_size']:,} bytes, "
                f"{sizes['freelist_pages']:,} free). Full-text = the FTS5 shadow tables of the "
                "virtual table named.",
                "",
                "| table | data MB | indexes MB | full-text MB | total MB |",
                "|---|---|---|---|---|",
            ]
            for name, data, index, fts in _size_groups(sizes):
                lines.append(
                    f"| {name} | {_mb(data)} | {_mb(index)} | {_mb(fts)} | "
                    f"{_mb(data + index + fts)} |"
                )
            lines += [
                "",
                "Largest single objects: "
                + ", ".join(
                    f"`{obj['name']}` {_mb(obj['bytes'])} MB" for obj in sizes["objects"][:8]
                )
                + ".",
                "",
            ]
    queries = results.get("queries")
    if queries:
        lines += [
            "### In process, warm (`pmgs_core.PMGSStore`)",
            "",
            "The database file is read once first (OS cache warm), each case is called once "
            "to warm up, then measured; queries are drawn from the database with the seed.",
            "",
            "| call | calls | p50 ms | p95 ms | max ms | queries |",
            "|---|---|---|---|---|---|",
        ]
        for entry in queries.values():
            lines.append(
                f"| {entry['label']} | {entry['calls']} | {entry['p50_ms']:.2f} | "
                f"{entry['p95_ms']:.2f} | {entry['max_ms']:.1f} | {entry['detail']} |"
            )
        once = results.get("once_per_store") or {}
        if once:
            lines += [
                "",
                "First call on a fresh store of the aggregates it computes once and caches: "
                + ", ".join(f"`{name}` {ms:.1f} ms" for name, ms in once.items())
                + ".",
            ]
        lines.append("")
    cold = results.get("cold_cli")
    if cold:
        lines += [
            "### Cold process",
            "",
            f"`{cold['command']}` as a fresh process, {cold['runs']} runs over FI, F-term and "
            f"IPC codes: median {cold['median_s']:.3f} s (min {cold['min_s']:.3f}, max "
            f"{cold['max_s']:.3f}); the interpreter alone (`python -c pass`) takes "
            f"{cold['python_startup_median_s']:.3f} s.",
            "",
        ]
    mcp = results.get("mcp")
    if mcp:
        labels = list(mcp["calls_bare"])
        lines += [
            "### MCP over stdio",
            "",
            "Measured with the functions of `benchmarks/mcp_roundtrip.py` (HTTP and SSE: its "
            f"own section). Start → initialized, median of {mcp['start_bare']['runs']}: "
            f"bare JSON-lines client {mcp['start_bare']['median_s']:.2f} s, SDK `Client` "
            f"{mcp['start_sdk']['median_s']:.2f} s.",
            "",
            "Tool-call round trip, p50 / p95 ms:",
            "",
            "| client | " + " | ".join(labels) + " |",
            "|---" * (len(labels) + 1) + "|",
        ]
        for client in ("bare", "sdk"):
            cells = [
                f"{mcp[f'calls_{client}'][label]['p50_ms']:.1f} / "
                f"{mcp[f'calls_{client}'][label]['p95_ms']:.1f}"
                for label in labels
            ]
            name = "bare JSON-lines" if client == "bare" else "SDK `Client`"
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        sdk = [entry["p50_ms"] for entry in mcp["calls_sdk"].values()]
        over = sum(1 for value in sdk if value > 8)
        lines += [
            "",
            "design.md's target is judged on the bare client: its round trip is the server's cost "
            "plus the pipe. With the SDK client, which parses every result with pydantic and "
            "validates it against the tool's output schema, p50 is "
            f"{min(sdk):.1f}–{max(sdk):.1f} ms"
            + (
                f", above the 8 ms target for {over} of {len(sdk)} tools; that difference is "
                "spent in the client, not in pmgs-mcp."
                if over
                else ", within the 8 ms target."
            ),
            "",
        ]
    return "\n".join(lines)


def command_line() -> str:
    return "uv run python -m benchmarks " + " ".join(sys.argv[1:])
