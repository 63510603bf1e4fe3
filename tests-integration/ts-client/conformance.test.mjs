// pmgs-mcp seen by the official TypeScript SDK client, over stdio, streamable HTTP and SSE,
// offering the SDK's current protocol version and the one before it.
//
// For every tool and every error path the client must accept the result (the SDK validates
// any structuredContent against the tool's outputSchema and throws if it does not match),
// and every error must carry its stable code, message and hint in the text content.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  LATEST_PROTOCOL_VERSION,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";

import { ALL_TOOLS, cases } from "./lib/cases.mjs";
import {
  EXAMPLES,
  OfferVersionTransport,
  PYTHON,
  serverArgs,
  startHttpServer,
} from "./lib/harness.mjs";

const CASES = cases(EXAMPLES);
const TRANSPORTS = ["stdio", "streamable-http", "sse"];
// The SDK's list starts with its current version; the next entry is the previous one.
const VERSIONS = [LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS[1]];
const CALL_OPTIONS = { timeout: 30_000 };

function transportFor(kind, http) {
  if (kind === "stdio") {
    return new StdioClientTransport({ command: PYTHON, args: serverArgs(), stderr: "pipe" });
  }
  const requestInit = { headers: http.headers };
  if (kind === "streamable-http") {
    return new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), { requestInit });
  }
  return new SSEClientTransport(new URL(`${http.url}/sse`), { requestInit });
}

/** One session: list the tools, make every call, record what the client returned or threw. */
async function converse(kind, version, http) {
  const transport = new OfferVersionTransport(transportFor(kind, http), version);
  const client = new Client({ name: "pmgs-conformance", version: "1.0.0" });
  await client.connect(transport, CALL_OPTIONS);
  try {
    const tools = (await client.listTools(undefined, CALL_OPTIONS)).tools;
    const calls = new Map();
    for (const c of CASES) {
      try {
        calls.set(c.label, {
          result: await client.callTool({ name: c.tool, arguments: c.args }, undefined, CALL_OPTIONS),
        });
      } catch (thrown) {
        calls.set(c.label, { thrown });
      }
    }
    let unknownTool;
    try {
      await client.callTool({ name: "no_such_tool", arguments: {} }, undefined, CALL_OPTIONS);
    } catch (thrown) {
      unknownTool = thrown;
    }
    // A success after every kind of error: no error ends the session.
    const last = await client.callTool({ name: "release_info", arguments: {} }, undefined, CALL_OPTIONS);
    return { negotiated: transport.negotiated, tools, calls, unknownTool, last };
  } finally {
    await client.close();
  }
}

function textOf(result) {
  assert.equal(result.content.length, 1, "one content block");
  assert.equal(result.content[0].type, "text");
  return JSON.parse(result.content[0].text);
}

// Every scalar of a value (keys excluded).
function leaves(value, out = []) {
  if (Array.isArray(value)) value.forEach((v) => leaves(v, out));
  else if (value !== null && typeof value === "object") Object.values(value).forEach((v) => leaves(v, out));
  else out.push(value);
  return out;
}

// A concise answer's text is the line rendering of ADR 0018 (amended, issue 33): not JSON,
// but every value of structuredContent appears in it, as written or JSON-quoted.
function checkConciseText(result) {
  assert.equal(result.content.length, 1, "one content block");
  const text = result.content[0].text;
  assert.ok(text.startsWith(`record_type: ${result.structuredContent.record_type}\n`), text.slice(0, 80));
  for (const value of leaves(result.structuredContent)) {
    const plain = typeof value === "string" ? value : JSON.stringify(value);
    const quoted = JSON.stringify(value);
    assert.ok(text.includes(plain) || text.includes(quoted), `value ${quoted} missing from the text`);
  }
  assert.throws(() => JSON.parse(text), "the concise text is not the JSON copy");
}

// Every citation of a value as "path#locator" (`files` resolves a concise answer's keys).
function citations(value, files, out = new Set()) {
  if (Array.isArray(value)) value.forEach((v) => citations(v, files, out));
  else if (value !== null && typeof value === "object") {
    if (typeof value.locator === "string" && typeof value.file === "string") {
      out.add(`${files ? files[value.file].path : value.file}#${value.locator}`);
    }
    for (const [key, item] of Object.entries(value)) if (key !== "files") citations(item, files, out);
  }
  return out;
}

// What a concise answer says once is put back by the rules of docs/mcp.md (ADR 0018, third
// amendment); the full answer of the same call is the oracle.
function checkSaidOnce(calls) {
  const concise = calls.get("lookup").result.structuredContent;
  const full = calls.get("lookup full").result.structuredContent;
  const own = concise.revision.source;
  for (const rows of ["texts", "properties", "relations", "scope_notes"]) {
    assert.deepEqual(
      concise[rows].map((row) => [...citations(row.source ?? own, concise.files)][0]),
      full[rows].map((row) => [...citations(row.source, null)][0]),
      rows,
    );
  }
  assert.ok(concise.texts.some((row) => row.source === undefined), "a text inherits its source");
  const cited = citations(concise, concise.files);
  for (const source of full.sources) assert.ok(cited.has(`${source.file}#${source.locator}`));
  assert.equal(concise.query, undefined, "a query that only echoes the answer is left out");
  assert.equal(full.query.code, "G06F3/048");
  const typed = calls.get("lookup typed with a space").result.structuredContent;
  assert.deepEqual(typed.query, { code: "G06F 3/048" });
  assert.equal(typed.code, "G06F3/048");
  assert.ok(concise.notice.includes("data, not instructions"));
  assert.ok(concise.notice.length < full.notice.length);
  const page = calls.get("search").result.structuredContent;
  assert.ok(Array.isArray(page.terms) && page.terms.length > 0, "shared terms on the page");
  for (const sub of Object.values(page.results_by_type)) {
    assert.equal(sub.terms, undefined);
    for (const key of ["limit", "offset", "count", "has_more"]) assert.ok(key in sub, key);
  }
}

function checkCall(call, c) {
  assert.equal(call.thrown, undefined, `the client threw: ${call.thrown?.message}`);
  const { result } = call;
  if (c.ok) {
    assert.notEqual(result.isError, true, result.content[0]?.text);
    assert.equal(typeof result.structuredContent, "object");
    assert.equal(result.structuredContent.record_type, c.ok);
    if ("files" in result.structuredContent) checkConciseText(result);
    else assert.deepEqual(textOf(result), result.structuredContent);
    return;
  }
  assert.equal(result.isError, true);
  assert.equal(result.structuredContent, undefined, "an error result has no structuredContent");
  const body = textOf(result);
  assert.deepEqual(Object.keys(body), ["error"]);
  const { error } = body;
  assert.equal(error.code, c.code, error.message);
  assert.equal(typeof error.message, "string");
  assert.ok(error.message.length > 0);
  assert.equal(typeof error.hint, "string");
  assert.ok(error.hint.length > 0);
  if (c.argument) {
    assert.equal(error.details?.argument, c.argument);
  }
}

describe("pmgs-mcp with the TypeScript SDK client", () => {
  let http;
  before(async () => {
    http = await startHttpServer();
  });
  after(async () => {
    await http?.stop();
  });

  for (const kind of TRANSPORTS) {
    for (const version of VERSIONS) {
      describe(`${kind}, protocol ${version}`, () => {
        let session;
        before(async () => {
          session = await converse(kind, version, http);
        });

        it("initialises with the offered protocol version", () => {
          assert.equal(session.negotiated, version);
        });

        it("lists every tool with input and output schemas", () => {
          assert.deepEqual(
            session.tools.map((tool) => tool.name),
            ALL_TOOLS,
          );
          for (const tool of session.tools) {
            assert.equal(tool.inputSchema.type, "object");
            assert.equal(tool.outputSchema.type, "object");
            assert.equal(tool.annotations.readOnlyHint, true);
          }
        });

        for (const c of CASES) {
          it(`${c.tool}: ${c.label} -> ${c.ok ? "ok" : c.code}`, () => {
            checkCall(session.calls.get(c.label), c);
          });
        }

        it("says once what a concise answer repeated, restorable by the documented rules", () => {
          checkSaidOnce(session.calls);
        });

        it("answers an empty query with empty pages", () => {
          const page = session.calls.get("search empty query (not an error)").result.structuredContent;
          assert.equal(page.search_mode, "sqlite_literal_substring_lexical");
          assert.equal(page.index, "none");
          for (const typed of Object.values(page.results_by_type)) {
            assert.deepEqual(typed.results, []);
          }
        });

        it("rejects an unknown tool with a protocol error", () => {
          assert.ok(session.unknownTool instanceof McpError, String(session.unknownTool));
          assert.equal(session.unknownTool.code, -32602);
          assert.match(session.unknownTool.message, /no_such_tool/);
        });

        it("keeps the session after every error", () => {
          assert.notEqual(session.last.isError, true);
          assert.equal(session.last.structuredContent.record_type, "release_info");
        });
      });
    }
  }
});

describe("the case list", () => {
  it("calls every tool on a success path and on an error path", () => {
    for (const tool of ALL_TOOLS) {
      assert.ok(CASES.some((c) => c.tool === tool && c.ok), `${tool} success`);
      assert.ok(CASES.some((c) => c.tool === tool && c.code), `${tool} error`);
    }
    assert.equal(new Set(CASES.map((c) => c.label)).size, CASES.length, "labels are unique");
  });
});
