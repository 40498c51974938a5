-- wrk script: an MCP tools/call of base64-encoder as the TypeScript SDK 1.x server takes it
-- (handshake-era version header, stateless, JSON answer).
wrk.method = "POST"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"base64-encoder","arguments":{"input":"hello world"}}}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
dofile(os.getenv("LOAD_DIR") .. "/report.lua")
