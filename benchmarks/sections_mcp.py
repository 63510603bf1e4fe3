"""docs/benchmarks.md's sections for the MCP server: round trips, payload, issue 33's round.

Renderers only (no measuring, no heavy imports), so the document can be written from the saved
results without the MCP SDK or a database; the scripts that measure import their tables from
here to print them.
"""

from __future__ import annotations

from benchmarks.results import Result
from benchmarks.sections import Check, Section, check_rows, join, measured_line, verdict

REFERENCE = "pmgs-reference 0.5.2"
WIRE_GOALS: tuple[tuple[str, str, float], ...] = (
    ("lookup", "≤ 3 KB", 3072),
    ("search", "≤ 8 KB", 8192),
    ("get", "≤ 6 KB", 6144),
)
"""Issue 18's and 33's goals for an answer on the wire, by the call's first word."""
CALL_GOALS: tuple[tuple[str, str, float], ...] = (
    ("lookup", "≤ 1.5 ms", 1.5),
    ("search", "≤ 3 ms", 3),
)
"""Issue 33's goals for an MCP call's p50 over stdio, by the call's first word."""


def _goal(label: str, goals: tuple[tuple[str, str, float], ...]) -> tuple[str, float] | None:
    word = label.split(maxsplit=1)[0].split("_", maxsplit=1)[0].lower()
    return next(((text, limit) for name, text, limit in goals if word == name), None)


# --- MCP round trip (benchmarks/mcp_roundtrip.py) ---------------------------------------------


def mcp_roundtrip(result: Result) -> Section:
    d = result.data
    labels: list[str] = d["labels"]
    starts = ["| client | median | min |", "|---|---|---|"]
    starts += [
        f"| {name} | {row['median_s']:.2f} s | {row['min_s']:.2f} s |"
        for name, row in d["starts"].items()
    ]
    calls = [
        "| transport / client | " + " | ".join(labels) + " |",
        "|---" * (len(labels) + 1) + "|",
    ]
    for name, row in d["rows"].items():
        cells = [f"{row[label]['p50_ms']:.1f} / {row[label]['p95_ms']:.1f}" for label in labels]
        calls.append(f"| {name} | " + " | ".join(cells) + " |")
    checks = [
        Check(
            f"MCP stdio start → initialized, {name}, median",
            "≤ 0.6 s",
            row["median_s"],
            0.6,
            "s",
            key,
        )
        for name, row in d["starts"].items()
        for key in [{"bare JSON-lines client": "mcp_start_bare"}.get(name, "")]
        if "no server" not in name
    ]
    bare = d["rows"].get("stdio, bare client", {})
    checks += [
        Check(
            f"MCP stdio tool call, {label}, bare client, p50",
            "p50 ≤ 8 ms",
            bare[label]["p50_ms"],
            8,
            "ms",
            f"mcp_call:{label}",
        )
        for label in labels
        if label in bare
    ]
    markdown = join(
        "## MCP round trip (`benchmarks/mcp_roundtrip.py`)",
        "Start-up and tool-call round trips of `pmgs mcp` over stdio, streamable HTTP and SSE, "
        "with the SDK's `Client` (which validates every result against the tool's output "
        "schema, as SDK clients do) and with bare clients that only parse JSON (stdio: JSON "
        "lines over the pipes; HTTP: plain POSTs on one keep-alive connection).",
        measured_line(result) + f" Database: {d['database']}.",
        "Start → initialized over stdio (target ≤ 0.6 s):",
        starts,
        f"Tool-call round trip, p50 / p95 in ms over {d['calls']} calls after one warm-up "
        "(target p50 ≤ 8 ms):",
        calls,
        check_rows(checks),
        "How to read: start-up is bounded below by importing the MCP SDK (the `import mcp` "
        "row), which a server built on the SDK cannot skip. The bare rows are the server's own "
        "cost plus the transport; the gap to the SDK rows is spent in the client.",
    )
    return Section(markdown, checks)


# --- payload (benchmarks/payload_bench.py) ------------------------------------------------------


def payload(result: Result) -> Section:
    d = result.data
    table = [
        "| call | before bytes | after bytes | before text | after text | before tokens "
        "| after tokens | before p50 | after p50 | goal (after bytes) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    checks = []
    for row in d["rows"]:
        b, a = row["before"], row["after"]
        goal = _goal(row["label"], WIRE_GOALS)
        judged = ""
        if goal is not None:
            check = Check(f"{row['label']} on the wire", goal[0], a["bytes"], goal[1], "B")
            checks.append(check)
            judged = f"{goal[0]} ({verdict(check.met)})"
        table.append(
            f"| {row['label']} | {b['bytes']:,} | {a['bytes']:,} | {b['text_bytes']:,} | "
            f"{a['text_bytes']:,} | {b['tokens']:,} | {a['tokens']:,} | "
            f"{b['p50_ms']:.1f} ms | {a['p50_ms']:.1f} ms | {judged} |"
        )
    markdown = join(
        "## Payload per tool call (`benchmarks/payload_bench.py`, issue 18)",
        "How many bytes (and estimated tokens) an MCP answer costs an agent. Bytes: the whole "
        "JSON-RPC response line (structured content and its text copy); text: the text copy "
        "alone; tokens: ASCII characters / 4 + one per non-ASCII character. Before: "
        "`detail: full` with the store's page sizes; after: the server's defaults. p50 over "
        "stdio with a bare client.",
        measured_line(result) + f" Database: {d['database']}; {d['calls']} calls each.",
        table,
    )
    return Section(markdown, checks)


# --- round three (benchmarks/round_three.py) ----------------------------------------------------


def round_three(result: Result) -> Section:
    d = result.data
    floor = d["floor_ms"]
    table = ["| figure | before | after | goal | |", "|---|---:|---:|---|---|"]
    checks: list[Check] = []

    def row(figure: str, before: str, after: str, check: Check | None) -> None:
        if check is not None:
            checks.append(check)
        goal = "" if check is None else check.target
        table.append(
            f"| {figure} | {before} | {after} | {goal} | "
            f"{'' if check is None else verdict(check.met)} |"
        )

    row("`import mcp.server.lowlevel` (floor)", f"{floor:.0f} ms", f"{floor:.0f} ms", None)
    b, a = d["start_ms"]["before"], d["start_ms"]["after"]
    start = Check("stdio start → initialized", "≤ floor + 100 ms", a, floor + 100, "ms")
    row("stdio start → initialized", f"{b:.0f} ms", f"{a:.0f} ms", start)
    for scheme, a in d["lookup_ms"]["after"].items():
        b = d["lookup_ms"]["before"][scheme]
        figure = f"lookup in process, {scheme} p50"
        row(figure, f"{b:.3f} ms", f"{a:.3f} ms", Check(figure, "≤ 0.15 ms", a, 0.15, "ms"))
    for label, a_row in d["calls"]["after"].items():
        b_row = d["calls"]["before"][label]
        goal = _goal(label, CALL_GOALS)
        figure = f"MCP {label} p50"
        check = None if goal is None else Check(figure, goal[0], a_row["p50_ms"], goal[1], "ms")
        row(figure, f"{b_row['p50_ms']:.2f} ms", f"{a_row['p50_ms']:.2f} ms", check)
        size = _goal(label, WIRE_GOALS)
        figure = f"MCP {label} on the wire (of which text copy)"
        check = None if size is None else Check(figure, size[0], a_row["bytes"], size[1], "B")
        row(
            figure,
            f"{b_row['bytes']:,} B ({b_row['text_bytes']:,})",
            f"{a_row['bytes']:,} B ({a_row['text_bytes']:,})",
            check,
        )
    counts = d["counts"]
    markdown = join(
        "## This tree against an earlier commit (`benchmarks/round_three.py`, issue 33)",
        "Both trees measured in the same run, interleaved (before: the exported tree of "
        f"{d['baseline']}; after: this tree): stdio start → initialized against the SDK's import "
        "floor, MCP call p50 over stdio with a bare JSON-lines client and the answer's size on "
        "the wire (structured content and text both), in-process `lookup` p50. Medians of "
        f"{counts['starts']} starts, {counts['calls']} calls per tool and side, "
        f"{counts['lookups']} lookups per scheme. {d.get('label', '')}".rstrip(),
        measured_line(result),
        table,
    )
    return Section(markdown, checks)
