"""``pmgs doctor``: prove that the installed reference answers, end to end.

Pointer, schema, database hash, sample lookups and searches, a real stdio MCP session, then
the hash and pointer again (nothing written, no switch meanwhile). The report holds no
absolute paths, query text or retrieved text. Checks: ``docs/cli.md`` (ADR 0003).
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import Any, Final

import click

from pmgs_cli.common import emit_json, handle_errors
from pmgs_cli.exits import EXIT_NEGATIVE, EXIT_OK

__all__ = ["EXPECTED_TOOLS", "doctor"]

EXPECTED_TOOLS: Final = {
    "lookup_classification": "classification",
    "search_pmgs": "combined_search_page",
    "get_pmgs_document": "document_page",
}
"""The contract's tools and the record type each must return."""


def _finite_timeout(_ctx: click.Context, _param: click.Parameter, value: float) -> float:
    """FloatRange lets NaN through (every comparison with NaN is false); refuse it here."""
    if not math.isfinite(value):
        raise click.BadParameter("must be a finite number of seconds")
    return value


class _Failed(Exception):
    def __init__(self, code: str, stage: str) -> None:
        super().__init__(code)
        self.code = code
        self.stage = stage


def _mcp_available() -> bool:
    from importlib.metadata import entry_points

    from pmgs_core import COMMAND_ENTRY_POINT_GROUP

    return any(ep.name == "mcp" for ep in entry_points(group=COMMAND_ENTRY_POINT_GROUP))


def _mcp_stage(
    server_args: list[str], samples: Any, timeout_seconds: float, report: dict[str, Any]
) -> None:
    from pmgs_cli.mcp_probe import McpProbeError, McpSession

    command = [sys.executable, "-m", "pmgs_cli", "mcp", *server_args]
    started = time.monotonic()
    mcp: dict[str, Any] = {"status": "failed", "tools": [], "calls": []}
    report["mcp"] = mcp
    try:
        with McpSession(command, timeout_seconds) as session:
            session.initialize()
            listing = session.request("tools_list", "tools/list", {})
            tools = {t.get("name"): t for t in listing.get("tools", []) if isinstance(t, dict)}
            mcp["tools"] = sorted(str(name) for name in tools)
            for name in EXPECTED_TOOLS:
                tool = tools.get(name)
                annotations = (tool or {}).get("annotations") or {}
                if tool is None or annotations.get("readOnlyHint") is not True:
                    raise McpProbeError("MCP_CONTRACT_FAILED", "tools_list", "tool missing")
            calls = {
                "lookup_classification": {"scheme": samples.scheme, "code": samples.code},
                "search_pmgs": {"query": samples.term3, "limit": 5},
            }
            if samples.document_id is not None:
                calls["get_pmgs_document"] = {
                    "document_id": samples.document_id,
                    "segment_limit": 5,
                }
            for name, arguments in calls.items():
                result = session.request(
                    f"call:{name}", "tools/call", {"name": name, "arguments": arguments}
                )
                content = result.get("structuredContent")
                ok = (
                    not result.get("isError")
                    and isinstance(content, dict)
                    and content.get("record_type") == EXPECTED_TOOLS[name]
                    and _sources_resolve(content)
                )
                mcp["calls"].append({"tool": name, "status": "ok" if ok else "failed"})
                if not ok:
                    raise McpProbeError("MCP_CONTRACT_FAILED", f"call:{name}", "bad tool result")
            session.stage = "shutdown"
    except McpProbeError as exc:
        mcp["seconds"] = round(time.monotonic() - started, 3)
        raise _Failed(exc.code, exc.stage) from None
    mcp["status"] = "ok"
    mcp["seconds"] = round(time.monotonic() - started, 3)


def _sources_resolve(record: dict[str, Any]) -> bool:
    """The concise answer (the MCP default) is citable: it has its ``files`` table and every
    ``source`` names a key of it with a locator."""
    files = record.get("files")
    if not isinstance(files, dict):
        return False

    def walk(value: Any) -> bool:
        if isinstance(value, list):
            return all(walk(item) for item in value)
        if not isinstance(value, dict):
            return True
        source = value.get("source")
        if isinstance(source, dict) and (
            source.get("file") not in files or not isinstance(source.get("locator"), str)
        ):
            return False
        return all(walk(item) for key, item in value.items() if key != "files")

    return walk(record)


def mcp_check_database(database: Path, timeout_seconds: float = 30.0) -> dict[str, Any]:
    """Doctor's MCP stage against one database file, for ``pmgs setup`` before promotion.

    A real server is started on the staged file and asked the same sample queries as the
    self-check, so a release is never activated that the MCP surface cannot answer from.
    Returns the stage report; ``status`` is ``ok`` or ``failed`` (with ``code`` and
    ``stage``). Skipped (``status: skipped``) when no MCP provider is installed.
    """
    from pmgs_build import choose_samples
    from pmgs_core import PMGSQueryError, PMGSStore

    if not _mcp_available():
        return {"status": "skipped", "reason": "no MCP provider installed"}
    try:
        with PMGSStore.open(database) as store:
            samples = choose_samples(store)
    except PMGSQueryError as exc:
        return {"status": "failed", "code": "SAMPLE_SELECTION_FAILED", "stage": exc.code}
    report: dict[str, Any] = {}
    try:
        _mcp_stage(["--db", str(database)], samples, timeout_seconds, report)
    except _Failed as exc:
        return {**report.get("mcp", {}), "status": "failed", "code": exc.code, "stage": exc.stage}
    result: dict[str, Any] = report["mcp"]
    return result


def _run(
    db: Path | None, data_dir: Path | None, timeout_seconds: float, mcp: bool
) -> dict[str, Any]:
    from pmgs_build import choose_samples, file_sha256, run_self_check
    from pmgs_core import PMGSQueryError, PMGSStore, read_current_pointer, resolve_database

    report: dict[str, Any] = {
        "record_type": "doctor_report",
        "status": "failed",
        "database": None,
        "checks": [],
        "samples": None,
        "mcp": {"status": "skipped"},
        "failure": None,
    }
    checks: list[dict[str, Any]] = report["checks"]

    def check(name: str, status: str, detail: str = "") -> None:
        checks.append({"name": name, "status": status, "detail": detail})

    stage = "pointer"
    try:
        try:
            resolved = resolve_database(db, data_dir=data_dir)
        except PMGSQueryError as exc:
            check("pointer", "failed", exc.code)
            raise _Failed(exc.code, stage) from None
        report["database"] = resolved.path.name
        report["origin"] = resolved.origin
        check("pointer", "ok" if resolved.pointer is not None else "skipped", resolved.origin)

        stage = "schema"
        try:
            store = PMGSStore.open(db, data_dir=data_dir)
        except PMGSQueryError as exc:
            check("schema", "failed", exc.code)
            raise _Failed(exc.code, stage) from None
        with store:
            info = store.release_info()
            report["release"] = info["release_id"]
            report["schema_version"] = info["schema_version"]
            check("schema", "ok", f"schema {info['schema_version']}")

            stage = "database_hash"
            before = file_sha256(resolved.path)
            report["database_sha256"] = before
            if resolved.pointer is not None:
                if before != resolved.pointer.database_sha256:
                    check("database_hash", "failed", "differs from state/current.json")
                    raise _Failed("DATABASE_HASH_MISMATCH", stage)
                check("database_hash", "ok", "matches state/current.json")
            else:
                check("database_hash", "skipped", "no pointer to compare with")

            stage = "samples"
            try:
                samples = choose_samples(store)
            except PMGSQueryError:
                check("samples", "failed", "no sample could be chosen")
                raise _Failed("SAMPLE_SELECTION_FAILED", stage) from None
            try:
                report["samples"] = run_self_check(store, samples)
            except PMGSQueryError as exc:
                check("samples", "failed", exc.code)
                raise _Failed("SAMPLE_QUERY_FAILED", stage) from None
            check("samples", "ok", "lookup, 3- and 2-character search, document")

        stage = "mcp"
        if not mcp:
            check("mcp", "skipped", "--no-mcp")
        elif not _mcp_available():
            check("mcp", "skipped", "no MCP provider installed (install pmgs-mcp)")
            report["mcp"] = {"status": "skipped", "reason": "no MCP provider installed"}
        else:
            if resolved.root is not None and resolved.pointer is not None:
                server_args = ["--data-dir", str(resolved.root)]
            else:
                server_args = ["--db", str(resolved.path)]
            try:
                _mcp_stage(server_args, samples, timeout_seconds, report)
            except _Failed:
                check("mcp", "failed", "see failure")
                raise
            check("mcp", "ok", "initialize, tools/list, three tool calls")

        stage = "database_hash_after"
        if file_sha256(resolved.path) != before:
            check("database_unchanged", "failed", "the file changed during the diagnosis")
            raise _Failed("DATABASE_CHANGED", stage)
        check("database_unchanged", "ok")
        if resolved.root is not None and resolved.pointer is not None:
            stage = "pointer_after"
            try:
                again = read_current_pointer(resolved.root)
            except PMGSQueryError:
                again = None
            if again != resolved.pointer:
                check("pointer_unchanged", "failed", "state/current.json changed")
                raise _Failed("POINTER_CHANGED", stage)
            check("pointer_unchanged", "ok")
    except _Failed as failure:
        report["failure"] = {"code": failure.code, "stage": failure.stage}
        return report
    report["status"] = "ok"
    return report


@click.command()
@click.option("--db", type=click.Path(path_type=Path, dir_okay=False), default=None)
@click.option("--data-dir", type=click.Path(path_type=Path, file_okay=False), default=None)
@click.option(
    "--timeout-seconds",
    type=click.FloatRange(min=0, min_open=True, max=3600),
    default=30.0,
    show_default=True,
    callback=_finite_timeout,
    help="Bound of the whole MCP stdio session (finite, positive).",
)
@click.option("--mcp/--no-mcp", default=True, show_default=True, help="Run the MCP stage.")
@click.option("--json", "as_json", is_flag=True)
@click.option("--debug", is_flag=True)
@handle_errors
def doctor(
    db: Path | None,
    data_dir: Path | None,
    timeout_seconds: float,
    mcp: bool,
    as_json: bool,
    debug: bool,
) -> None:
    """Check pointer, schema, hash, sample queries and a real MCP stdio session.

    Exit 0 when every check passes, 1 otherwise (failure.code and failure.stage say where).
    """
    report = _run(db, data_dir, timeout_seconds, mcp)
    if as_json:
        emit_json(report)
    else:
        from rich.table import Table

        from pmgs_cli.render import stdout as console  # a closed pipe ends it quietly

        table = Table(title=f"pmgs doctor — {report['status']}")
        for column in ("check", "status", "detail"):
            table.add_column(column)
        style = {"ok": "green", "failed": "red", "skipped": "yellow"}
        for item in report["checks"]:
            table.add_row(
                item["name"],
                f"[{style.get(item['status'], '')}]{item['status']}[/]",
                item["detail"],
            )
        console.print(table)
        if report["failure"]:
            console.print(
                f"[red]failure {report['failure']['code']} at {report['failure']['stage']}[/red]"
            )
    sys.exit(EXIT_OK if report["status"] == "ok" else EXIT_NEGATIVE)
