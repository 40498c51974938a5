// The alternative `cmpx serve` is measured against (bench/load/run): the official TypeScript MCP
// SDK's Streamable HTTP server (1.x, stateless, JSON responses, a server and transport per
// request as the SDK's stateless example does) with one tool, `base64-encoder`, doing what
// cmpx's does for a string: UTF-8 bytes to standard Base64, as structured content.
//
// usage: node bench/load/node-base64.mjs <node_modules dir>   (prints its URL, like cmpx serve)
import http from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const modules = process.argv[2];
const load = (p) => import(pathToFileURL(join(modules, p)).href);
const { Server } = await load("@modelcontextprotocol/sdk/dist/esm/server/index.js");
const { StreamableHTTPServerTransport } = await load("@modelcontextprotocol/sdk/dist/esm/server/streamableHttp.js");
const { ListToolsRequestSchema, CallToolRequestSchema } = await load("@modelcontextprotocol/sdk/dist/esm/types.js");

const tool = {
  name: "base64-encoder",
  description: "Encode text to Base64",
  inputSchema: { type: "object", properties: { input: { type: "string" } }, required: ["input"] },
};

function mcpServer() {
  const server = new Server({ name: "node-base64", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [tool] }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const input = req.params.arguments?.input;
    if (req.params.name !== tool.name || typeof input !== "string") {
      return { isError: true, content: [{ type: "text", text: "input must be a string" }] };
    }
    const data = { output: Buffer.from(input, "utf8").toString("base64"), mode: "encode", variant: "standard" };
    return { content: [{ type: "text", text: JSON.stringify(data) }], structuredContent: data };
  });
  return server;
}

const httpServer = http.createServer((req, res) => {
  if (req.method !== "POST" || req.url !== "/mcp") {
    res.writeHead(404).end();
    return;
  }
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", async () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400, { "content-type": "application/json" }).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
      return;
    }
    const server = mcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
});
httpServer.listen(0, "127.0.0.1", () => console.log(`http://127.0.0.1:${httpServer.address().port}/`));
