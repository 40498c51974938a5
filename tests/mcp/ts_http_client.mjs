// Drives `cmpx serve`'s /mcp with the official TypeScript SDK's StreamableHTTPClientTransport
// (run by tests/serve.rs).
//
// usage: node ts_http_client.mjs <node_modules dir> <URL> <v1|v2> <catalogue dir> <tool>...
//   v1: @modelcontextprotocol/sdk 1.x, handshake era (2025-11-25, Mcp-Session-Id)
//   v2: @modelcontextprotocol/client 2.x, pinned to 2026-07-28 (stateless)
// Lists every tool (all pages), then calls each named tool with its definition's example and
// checks the structured result equals the example's output. Prints one JSON summary line;
// exits non-zero with the reasons on stderr.
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";

const [modules, url, flavour, catalogue, ...tools] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(join(modules, p)).href);

let client, transport;
if (flavour === "v1") {
  const { Client } = await load("@modelcontextprotocol/sdk/dist/esm/client/index.js");
  const { StreamableHTTPClientTransport } = await load("@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js");
  client = new Client({ name: "cmpx-test", version: "0" });
  transport = new StreamableHTTPClientTransport(new URL(url));
} else {
  const { Client, StreamableHTTPClientTransport } = await load("@modelcontextprotocol/client/dist/index.mjs");
  client = new Client({ name: "cmpx-test", version: "0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  transport = new StreamableHTTPClientTransport(new URL(url));
}
await client.connect(transport);
const version = client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion ?? null;

function example(tool) {
  for (const category of readdirSync(catalogue)) {
    const path = join(catalogue, category, `${tool}.json`);
    if (existsSync(path)) return JSON.parse(readFileSync(path, "utf8")).example;
  }
  throw new Error(`no definition for ${tool}`);
}

const failures = [];
const listed = [];
let cursor;
do {
  const page = await client.listTools(cursor ? { cursor } : undefined);
  listed.push(...page.tools.map((t) => t.name));
  cursor = page.nextCursor;
} while (cursor);
let called = 0;
for (const tool of tools) {
  const ex = example(tool);
  try {
    const r = await client.callTool({ name: tool, arguments: ex.input });
    if (r.isError) failures.push(`${tool}: isError ${r.content?.[0]?.text?.slice(0, 300)}`);
    else if (!isDeepStrictEqual(r.structuredContent, ex.output))
      failures.push(`${tool}: ${JSON.stringify(r.structuredContent).slice(0, 300)} != ${JSON.stringify(ex.output).slice(0, 300)}`);
    else called++;
  } catch (e) {
    failures.push(`${tool}: threw ${String(e).slice(0, 300)}`);
  }
}
// The session id (1.x) or its absence (2.x, stateless), as the transport saw it.
const session = transport.sessionId ?? null;
console.log(JSON.stringify({ sdk: flavour, protocolVersion: version, session: session !== null, tools: listed.length, unique: new Set(listed).size, called, failures: failures.length }));
try {
  if (flavour === "v1") await transport.terminateSession();
  await client.close();
} catch (e) {
  console.error(`close: ${e}`);
}
if (failures.length) {
  console.error(failures.join("\n"));
  process.exit(1);
}
