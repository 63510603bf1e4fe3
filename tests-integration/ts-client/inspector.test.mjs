// pmgs-mcp seen by the MCP Inspector's CLI (a second client implementation): it lists the
// tools, and an error call prints our error object (stable code, message, hint), not a
// schema complaint. The Inspector exits 5 for a result with isError: true.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";

import { ALL_TOOLS } from "./lib/cases.mjs";
import { PYTHON, serverArgs, startHttpServer } from "./lib/harness.mjs";

const INSPECTOR = fileURLToPath(new URL("./node_modules/.bin/mcp-inspector", import.meta.url));
const TOOL_IS_ERROR_EXIT = 5;

async function inspector(...args) {
  // The Inspector gives a server 15 s to connect by default; a loaded machine (the other
  // Node test files run beside this one) can take longer to start Python. The 60 s kill
  // below stays the bound.
  const cli = ["--cli", "--connect-timeout", "55000", ...args];
  const child = spawn(INSPECTOR, cli, { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill(), 60_000);
  const [status] = await once(child, "exit");
  clearTimeout(timer);
  return { status, stdout, stderr };
}

const MALFORMED_CODE = [
  "--method",
  "tools/call",
  "--tool-name",
  "lookup_classification",
  "--tool-arg",
  "scheme=ipc",
  "--tool-arg",
  "code=!!",
];

function checkMalformedCode(run) {
  assert.equal(run.status, TOOL_IS_ERROR_EXIT, run.stdout + run.stderr);
  assert.doesNotMatch(run.stdout + run.stderr, /output schema/i);
  const result = JSON.parse(run.stdout);
  assert.equal(result.isError, true);
  assert.equal(result.structuredContent, undefined);
  const { error } = JSON.parse(result.content[0].text);
  assert.equal(error.code, "INVALID_CODE");
  assert.match(error.message, /not a valid ipc code/);
  assert.ok(error.hint);
  assert.equal(error.details.argument, "code");
}

describe("pmgs-mcp with the MCP Inspector CLI", () => {
  let http;
  before(async () => {
    http = await startHttpServer();
  });
  after(async () => {
    await http?.stop();
  });

  it("lists the tools over stdio", async () => {
    const run = await inspector("--method", "tools/list", "--", PYTHON, ...serverArgs());
    assert.equal(run.status, 0, run.stdout + run.stderr);
    const { tools } = JSON.parse(run.stdout);
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ALL_TOOLS,
    );
    for (const tool of tools) {
      assert.equal(tool.outputSchema.type, "object");
    }
  });

  it("shows INVALID_CODE for a malformed code over stdio", async () => {
    checkMalformedCode(await inspector(...MALFORMED_CODE, "--", PYTHON, ...serverArgs()));
  });

  it("shows INVALID_CODE for a malformed code over streamable HTTP", async () => {
    const run = await inspector(
      ...MALFORMED_CODE,
      "--transport",
      "http",
      "--server-url",
      `${http.url}/mcp`,
      "--header",
      `Authorization: ${http.headers.Authorization}`,
    );
    checkMalformedCode(run);
  });
});
