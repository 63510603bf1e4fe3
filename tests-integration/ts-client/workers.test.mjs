// pmgs-mcp with several worker processes (`--workers 3`), seen by the TypeScript SDK client:
// streamable HTTP is stateless, so concurrent sessions work whichever worker answers each
// request; the legacy SSE transport, whose session lives in one process, is refused with
// 501 SSE_UNAVAILABLE and the fix, never a bare "Could not find session" (issue 21).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { EXAMPLES, startHttpServer } from "./lib/harness.mjs";

const SESSIONS = 6;
const CALLS = 5;
const CALL_OPTIONS = { timeout: 30_000 };

describe("several workers", () => {
  let http;
  before(async () => {
    http = await startHttpServer("--workers", "3");
  });
  after(async () => {
    await http?.stop();
  });

  it("serves concurrent streamable HTTP sessions of the TypeScript SDK", async () => {
    const code = EXAMPLES.fi_with_file_symbol;
    const session = async () => {
      const transport = new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), {
        requestInit: { headers: http.headers },
      });
      const client = new Client({ name: "pmgs-workers", version: "1.0.0" });
      await client.connect(transport, CALL_OPTIONS);
      try {
        const codes = [];
        for (let i = 0; i < CALLS; i++) {
          const result = await client.callTool(
            { name: "lookup_classification", arguments: { scheme: "fi", code } },
            undefined,
            CALL_OPTIONS,
          );
          assert.notEqual(result.isError, true, JSON.stringify(result.content));
          codes.push(result.structuredContent.code);
        }
        return codes;
      } finally {
        await client.close();
      }
    };
    const all = (await Promise.all(Array.from({ length: SESSIONS }, session))).flat();
    assert.equal(all.length, SESSIONS * CALLS);
    assert.equal(new Set(all).size, 1);
  });

  it("refuses SSE with SSE_UNAVAILABLE and the fix", async () => {
    const response = await fetch(`${http.url}/sse`, {
      headers: { ...http.headers, Accept: "text/event-stream" },
    });
    assert.equal(response.status, 501);
    const body = await response.json();
    assert.equal(body.error.code, "SSE_UNAVAILABLE");
    assert.match(body.error.message, /one worker/);
    assert.match(body.error.message, /source-IP affinity/);
  });
});
