-- wrk script: the same MCP tools/call to cmpx serve's /mcp, in its stateless era (2026-07-28:
-- version and capabilities in _meta, the routing headers mirrored), answered as JSON.
wrk.method = "POST"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"base64-encoder","arguments":{"input":"hello world"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Mcp-Name"] = "base64-encoder"
dofile(os.getenv("LOAD_DIR") .. "/report.lua")
