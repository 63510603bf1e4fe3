// What the conformance tests share: the server under test (a real `python -m pmgs_mcp`
// process), and a transport wrapper that makes the SDK's client offer a chosen protocol
// version. The Python side (tests-integration/test_ts_client_conformance.py) builds the
// database and passes it in through the environment.

import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { createServer } from "node:net";

/** A required environment variable, or an error naming it (the suite is never skipped). */
export function required(name) {
  const value = process.env[name];
  if (!value) {
    throw new Error(
      `${name} is not set: run this suite through tests-integration/test_ts_client_conformance.py`,
    );
  }
  return value;
}

export const PYTHON = required("PMGS_CONFORMANCE_PYTHON");
export const DB = required("PMGS_CONFORMANCE_DB");
export const EXAMPLES = JSON.parse(required("PMGS_CONFORMANCE_EXAMPLES"));
export const TOKEN = "conformance-token-0123456789";

/** Arguments that start the server under test with every tool. */
export function serverArgs(...extra) {
  return ["-m", "pmgs_mcp", "--db", DB, "--tools", "all", ...extra];
}

async function freePort() {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address();
  server.close();
  await once(server, "close");
  return port;
}

/**
 * True when process `pid` holds the socket listening on `port`. Linux says which socket
 * listens on a port (/proc/net/tcp) and which sockets a process holds (/proc/PID/fd); where
 * it does not, the answer is true. Another test run may take a free port before our server
 * binds it, and its server would then answer our readiness probe (the Python side's
 * pmgs_build.testing.kit.owns_port does the same).
 */
export function ownsPort(pid, port) {
  let table;
  try {
    table = readFileSync("/proc/net/tcp", "utf8");
  } catch {
    return true;
  }
  const listening = new Set();
  for (const line of table.split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length > 9 && fields[3] === "0A" && parseInt(fields[1].split(":")[1], 16) === port) {
      listening.add(`socket:[${fields[9]}]`);
    }
  }
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (listening.has(readlinkSync(`/proc/${pid}/fd/${fd}`))) return true;
    } catch {
      // closed meanwhile
    }
  }
  return false;
}

async function stopChild(child) {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGTERM");
    await once(child, "exit");
  }
}

/**
 * One attempt on one free port: the server, or null when the port turned out to be another
 * process's (bind refused, or a stranger answering).
 */
async function startOnce(extra) {
  const port = await freePort();
  const args = serverArgs("--transport", "http", "--port", String(port), ...extra);
  const child = spawn(PYTHON, args, {
    env: { ...process.env, PMGS_MCP_TOKEN: TOKEN },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      if (/address already in use/i.test(output)) return null;
      throw new Error(`pmgs-mcp exited early (${child.exitCode}): ${output}`);
    }
    let ready = false;
    try {
      ready = (await fetch(`${url}/ready`)).ok;
    } catch {
      // not listening yet
    }
    if (ready) {
      if (ownsPort(child.pid, port)) break;
      await stopChild(child);
      return null;
    }
    if (Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`pmgs-mcp did not become healthy: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    headers: { Authorization: `Bearer ${TOKEN}` },
    stderr: () => output,
    stop: () => stopChild(child),
  };
}

/**
 * Start `pmgs-mcp --transport http` (plus `extra` options) with a bearer token and wait until
 * it (and no other process) answers /ready (the database is open and verified); a port lost
 * to another process is given up and another tried.
 * @returns {Promise<{url: string, headers: Record<string, string>, stop: () => Promise<void>, stderr: () => string}>}
 */
export async function startHttpServer(...extra) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const server = await startOnce(extra);
    if (server !== null) return server;
  }
  throw new Error("no free port could be kept in 5 attempts");
}

/**
 * A transport that makes the client's `initialize` offer `version` instead of the SDK's
 * latest, and records the version the server answered with. Everything else passes through,
 * so the client's own checks (protocol version, output-schema validation) run unchanged.
 */
export class OfferVersionTransport {
  constructor(inner, version) {
    this.inner = inner;
    this.version = version;
    this.negotiated = undefined;
    this.initializeId = undefined;
    inner.onmessage = (message, extra) => {
      if (message.id !== undefined && message.id === this.initializeId && message.result) {
        this.negotiated = message.result.protocolVersion;
      }
      this.onmessage?.(message, extra);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
  }

  start() {
    return this.inner.start();
  }

  send(message, options) {
    if (message.method === "initialize") {
      this.initializeId = message.id;
      message = { ...message, params: { ...message.params, protocolVersion: this.version } };
    }
    return this.inner.send(message, options);
  }

  close() {
    return this.inner.close();
  }

  get sessionId() {
    return this.inner.sessionId;
  }

  setProtocolVersion(version) {
    this.inner.setProtocolVersion?.(version);
  }
}
