"""An MCP agent for tests/btcp.rs: the official MCP Python SDK against `cmpx serve`'s /mcp,
with the BTCP-Session header naming a browser's session.

usage: agent.py <server URL> <session with tools> <session without> <cmpx binary> [consent legacy|auto]
Without `consent`: lists the tools of the first session (catalogue + browser), calls greet, finds paint refused,
grants dom:write with `cmpx policy grant`, calls paint, sees the list change when the browser
registers again (it does after painting), checks that a POST claiming the session without
being its browser is refused, then checks the second session sees neither browser tool.
With `consent` (in that era of the SDK): with storage:local:write denied by `cmpx policy deny`,
asks for dom:read, dom:write and storage:local:write through `__btcp_request_capabilities`
and accepts the one question; calls paint (dom:write) without a new question; then, in the
second session, asks for dom:write again and declines. Prints one JSON summary; exits non-zero
with the reason on any failure."""

import asyncio
import json
import subprocess
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

URL, WITH, WITHOUT, CMPX = sys.argv[1:5]
MODE = sys.argv[5] if len(sys.argv) > 5 else "basic"
ERA = sys.argv[6] if len(sys.argv) > 6 else "legacy"


def client(session, handler=None, elicit=None):
    http = create_mcp_http_client(headers={"BTCP-Session": session})
    return Client(streamable_http_client(URL + "/mcp", http_client=http), mode=ERA, message_handler=handler,
                  elicitation_callback=elicit)


async def names(c):
    out, cursor = [], None
    while True:
        page = await c.list_tools(cursor=cursor)
        out += [t.name for t in page.tools]
        cursor = getattr(page, "next_cursor", None)
        if not cursor:
            return out


def text(result):
    return "".join(getattr(b, "text", "") for b in result.content)


def is_error(result):
    return bool(getattr(result, "is_error", False))


async def main():
    changed = asyncio.Event()

    async def handler(message):
        root = getattr(message, "root", message)
        if getattr(root, "method", "") == "notifications/tools/list_changed":
            changed.set()

    summary = {}
    async with client(WITH, handler) as c:
        listed = await names(c)
        for want in ("greet", "paint", "json-formatter", "__btcp_request_capabilities"):
            if want not in listed:
                sys.exit(f"FAILED: {want} is not listed: {listed[-5:]}")
        summary["tools"] = len(listed)
        greeted = await c.call_tool("greet", {"name": "cmpx"})
        # A page may add what only it knows after the greeting (tests/btcp_browser.rs).
        if is_error(greeted) or not text(greeted).startswith("Hello, cmpx!"):
            sys.exit(f"FAILED: greet answered {greeted}")
        summary["greet"] = text(greeted)
        refused = await c.call_tool("paint", {"color": "red"})
        if not is_error(refused) or "UNAUTHORIZED" not in text(refused):
            sys.exit(f"FAILED: paint ran without dom:write: {refused}")
        asked = await c.call_tool("__btcp_request_capabilities", {"capabilities": ["dom:read", "dom:write"]})
        summary["request"] = json.loads(text(asked))
        subprocess.run([CMPX, "policy", "grant", "dom:write"], check=True, capture_output=True)
        painted = await c.call_tool("paint", {"color": "red"})
        if is_error(painted) or text(painted) != "painted the page red":
            sys.exit(f"FAILED: paint after the grant answered {painted}")
        summary["paint"] = text(painted)
        # The browser registers again after painting (a page navigated): the agent is told.
        await asyncio.wait_for(changed.wait(), 10)
        summary["listChanged"] = True
        if "paint" in await names(c):
            sys.exit("FAILED: paint is still listed after it was unregistered")
        # Knowing the session id is not owning it: a POST from elsewhere cannot register.
        async with httpx2.AsyncClient() as http:
            r = await http.post(URL + "/btcp/message", headers={"X-Session-ID": WITH}, json={
                "jsonrpc": "2.0", "id": "forged", "method": "tools/register", "params": {"tools": [
                    {"name": "paint", "description": "Harmless", "inputSchema": {"type": "object"}}]}})
            summary["impostor"] = r.status_code
        if "paint" in await names(c):
            sys.exit("FAILED: the impostor registered paint")
    async with client(WITHOUT) as other:
        listed = await names(other)
        leaked = [n for n in ("greet", "paint") if n in listed]
        if leaked:
            sys.exit(f"FAILED: the second session sees {leaked}")
        try:
            result = await other.call_tool("greet", {"name": "x"})
            if not is_error(result):
                sys.exit(f"FAILED: the second session called greet: {result}")
        except Exception as e:  # an unknown tool is a protocol error
            summary["otherSession"] = str(e)[:80]
    print(json.dumps(summary))


def answering(action, questions):
    """An elicitation callback that records each question and answers `action`."""
    async def elicit(context, params):
        import mcp_types as types
        questions.append(params.message)
        return types.ElicitResult(action=action, content={"confirm": True} if action == "accept" else None)
    return elicit


async def consent():
    subprocess.run([CMPX, "policy", "deny", "storage:local:write"], check=True, capture_output=True)
    summary, asked = {}, []
    async with client(WITH, elicit=answering("accept", asked)) as c:
        r = await c.call_tool("__btcp_request_capabilities",
                              {"capabilities": ["dom:read", "dom:write", "storage:local:write"]})
        summary["request"] = json.loads(text(r))
        summary["questions"] = list(asked)
        painted = await c.call_tool("paint", {"color": "red"})
        if is_error(painted):
            sys.exit(f"FAILED: paint after the grant answered {text(painted)}")
        summary["paint"] = text(painted)
        summary["questionsAfterPaint"] = len(asked)
        bad = await c.call_tool("__btcp_request_capabilities", {"capabilities": ["DOM WRITE"]})
        summary["malformed"] = is_error(bad) and "not a capability name" in text(bad) and len(asked) == 1
    other_asked = []
    async with client(WITHOUT, elicit=answering("decline", other_asked)) as other:
        listed = await names(other)
        summary["otherSees"] = [n for n in ("greet", "paint") if n in listed]
        r = await other.call_tool("__btcp_request_capabilities", {"capabilities": ["dom:write", "storage:local:write"]})
        summary["other"] = json.loads(text(r))
        summary["otherQuestions"] = list(other_asked)
    print(json.dumps(summary))


asyncio.run(consent() if MODE == "consent" else main())
