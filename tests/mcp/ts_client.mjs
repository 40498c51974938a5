// Drives `cmpx mcp` with the official TypeScript SDK (run by tests/mcp_sdk.rs).
//
// usage: node ts_client.mjs <node_modules dir> <cmpx binary> <CMP_HOME> <v1|v2> <examples.json>
//   v1: @modelcontextprotocol/sdk 1.x, handshake era (2025-11-25)
//   v2: @modelcontextprotocol/client 2.x, pinned to 2026-07-28
// Lists every tool on one page (--page-size 1000), calls every worked example of every
// catalogue tool ([{tool, input}], written by the test) and checks liveness during a call.
// Prints one JSON summary line; exits non-zero with the reasons on stderr.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [modules, bin, home, flavour, examplesFile] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(join(modules, p)).href);

let client, transport;
const params = { command: bin, args: ["mcp", "--page-size", "1000"], env: { ...process.env, CMP_HOME: home }, stderr: process.env.CMPX_TEST_STDERR ? "inherit" : "ignore" };
if (flavour === "v1") {
  const { Client } = await load("@modelcontextprotocol/sdk/dist/esm/client/index.js");
  const { StdioClientTransport } = await load("@modelcontextprotocol/sdk/dist/esm/client/stdio.js");
  client = new Client({ name: "cmpx-test", version: "0" });
  transport = new StdioClientTransport(params);
} else {
  const { Client } = await load("@modelcontextprotocol/client/dist/index.mjs");
  const { StdioClientTransport } = await load("@modelcontextprotocol/client/dist/stdio.mjs");
  client = new Client({ name: "cmpx-test", version: "0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  transport = new StdioClientTransport(params);
}
await client.connect(transport);
const version = client.getNegotiatedProtocolVersion?.() ?? client.transport?.protocolVersion ?? null;

const failures = [];
const page = await client.listTools();
if (page.nextCursor) failures.push("tools/list with --page-size 1000 has more than one page");
const names = new Set(page.tools.map((t) => t.name));
let calls = 0;
for (const ex of JSON.parse(readFileSync(examplesFile, "utf8"))) {
  if (!names.has(ex.tool)) {
    failures.push(`${ex.tool}: not listed`);
    continue;
  }
  calls++;
  try {
    const r = await client.callTool({ name: ex.tool, arguments: ex.input });
    if (r.isError) failures.push(`${ex.tool} ${JSON.stringify(ex.input).slice(0, 200)}: isError ${r.content?.[0]?.text?.slice(0, 300)}`);
  } catch (e) {
    failures.push(`${ex.tool} ${JSON.stringify(ex.input).slice(0, 200)}: threw ${String(e).slice(0, 300)}`);
  }
}
// Liveness while a call runs: tools/list (2026-07-28 has no ping) answers first.
const order = [];
const slow = client.callTool({ name: "json-formatter", arguments: { input: JSON.stringify(Array.from({ length: 20000 }, (_, i) => ({ i }))) } }).then(() => order.push("call"));
const live = client.listTools().then(() => order.push("list"));
await Promise.all([slow, live]);
const summary = { sdk: flavour, protocolVersion: version, tools: names.size, calls, failures: failures.length, order };
console.log(JSON.stringify(summary));
try {
  await client.close();
} catch (e) {
  console.error(`close: ${e}`);
}
if (failures.length) {
  console.error(failures.join("\n"));
  process.exit(1);
}
