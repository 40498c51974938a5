"""The stdio bridge for tests/btcp.rs: the official MCP Python SDK runs
`cmpx mcp --btcp-server URL --btcp-session ID` over stdio while a reference BTCPClient holds
that session on `cmpx serve` at URL.

usage: bridge.py <cmpx binary> <CMP_HOME> <server URL> <session> <auto|legacy>
Lists the browser tools beside the catalogue, calls greet, asks for dom:write through
`__btcp_request_capabilities` (the server needs the person; the bridge asks this client one
question, accepted, and the server grants it to the session), calls paint (dom:write) without
a new question, sees the list change when the browser registers again, then has dom:read denied with `cmpx policy deny` and finds greet
refused without a question. Prints one JSON summary; exits non-zero with the reason otherwise."""

import asyncio
import json
import os
import subprocess
import sys

from mcp import Client, StdioServerParameters

BIN, HOME, URL, SESSION, ERA = sys.argv[1:6]
ASKED = []


async def on_elicit(context, params):
    ASKED.append(params.message)
    import mcp_types as types
    return types.ElicitResult(action="accept", content={"confirm": True})


def text(result):
    return "".join(getattr(b, "text", "") for b in result.content)


def is_error(result):
    return bool(getattr(result, "is_error", False))


async def names(c):
    out, cursor = [], None
    while True:
        page = await c.list_tools(cursor=cursor)
        out += [t.name for t in page.tools]
        cursor = getattr(page, "next_cursor", None)
        if not cursor:
            return out


async def main():
    changed = asyncio.Event()

    async def handler(message):
        root = getattr(message, "root", message)
        if getattr(root, "method", "") == "notifications/tools/list_changed":
            changed.set()

    params = StdioServerParameters(command=BIN, args=[
        "mcp", "--btcp-server", URL, "--btcp-session", SESSION], env=dict(os.environ, CMP_HOME=HOME))
    kw = dict(elicitation_callback=on_elicit, message_handler=handler)
    client = Client(params, mode="legacy", **kw) if ERA == "legacy" else Client(params, **kw)
    summary = {}
    async with client as c:
        listed = await names(c)
        for want in ("greet", "paint", "json-formatter", "__btcp_request_capabilities"):
            if want not in listed:
                sys.exit(f"FAILED: {want} is not listed: {listed[-5:]}")
        summary["tools"] = len(listed)
        greeted = await c.call_tool("greet", {"name": "cmpx"})
        if is_error(greeted):
            sys.exit(f"FAILED: greet answered {greeted}")
        summary["greet"] = text(greeted)
        summary["askedBeforeRequest"] = len(ASKED)
        granted = await c.call_tool("__btcp_request_capabilities", {"capabilities": ["dom:read", "dom:write"]})
        summary["request"] = json.loads(text(granted))
        summary["question"] = ASKED == [
            f"cmpx will run: grant dom:write to the browser tools of BTCP session {SESSION} until it ends. Proceed?"]
        painted = await c.call_tool("paint", {"color": "red"})
        if is_error(painted):
            sys.exit(f"FAILED: paint answered {painted}")
        summary["paint"] = text(painted)
        summary["askedAtPaint"] = len(ASKED) - 1
        await asyncio.wait_for(changed.wait(), 15)
        summary["listChanged"] = True
        summary["paintAfterChange"] = "paint" in await names(c)
        subprocess.run([BIN, "policy", "deny", "dom:read"], check=True, capture_output=True,
                       env=dict(os.environ, CMP_HOME=HOME))
        asked = len(ASKED)
        denied = await c.call_tool("greet", {"name": "cmpx"})
        summary["denied"] = is_error(denied) and "UNAUTHORIZED" in text(denied) and len(ASKED) == asked
        summary["protocolVersion"] = c.protocol_version
    print(json.dumps(summary))


asyncio.run(main())
