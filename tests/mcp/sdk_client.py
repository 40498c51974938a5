"""Drives `cmpx mcp` with the official MCP Python SDK (run by tests/mcp_sdk.rs).

usage: sdk_client.py <cmpx binary> <CMP_HOME> <full|progressive|examples|consent> <auto|VERSION> [ARG]
  auto     the SDK's default: probe server/discover, pick 2026-07-28 (or fall back)
  VERSION  the handshake era, offering exactly that version in `initialize`
  ARG      examples: a JSON file [{tool, input, expect?}] (expect: the structured `output`); consent: a CMP_TOOL_PATH and a file to delete
Prints one JSON summary line; exits non-zero (with the reasons on stderr) on any failure."""

import asyncio
import json
import os
import re
import sys

import jsonschema
import mcp.client.session as session_module
import mcp_types as types
from mcp import Client, StdioServerParameters

BIN, HOME, MODE, ERA = sys.argv[1:5]
ARGS = sys.argv[5:]


def snake(name):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def g(obj, name):
    """An attribute by its MCP (camelCase) or Python (snake_case) name."""
    if hasattr(obj, name):
        return getattr(obj, name)
    return getattr(obj, snake(name))


def check(cond, message):
    if not cond:
        print(f"FAILED: {message}", file=sys.stderr)
        sys.exit(1)


async def list_all(client):
    tools, cursor, pages = [], None, 0
    while True:
        page = await client.list_tools(cursor=cursor)
        pages += 1
        tools.extend(page.tools)
        cursor = g(page, "nextCursor")
        if not cursor:
            return tools, pages


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def full(client):
    tools, pages = await list_all(client)
    names = [t.name for t in tools]
    check(len(names) == len(set(names)), "tool names are unique")
    check(pages > 1, f"tools/list is paginated (got {pages} page)")
    check("json-formatter" in names and "base64-encoder" in names, "catalogue tools are listed")
    for t in tools:
        jsonschema.Draft202012Validator.check_schema(g(t, "inputSchema"))
        if g(t, "outputSchema") is not None:
            jsonschema.Draft202012Validator.check_schema(g(t, "outputSchema"))
        a = t.annotations
        check(a is not None and None not in (g(a, "readOnlyHint"), g(a, "destructiveHint"), g(a, "idempotentHint"), g(a, "openWorldHint")),
              f"{t.name} sets every annotation hint")
    by_name = {t.name: t for t in tools}

    result = await client.call_tool("base64-encoder", {"input": "hello"})
    check(not g(result, "isError"), f"base64-encoder call succeeds: {text_of(result)}")
    check(g(result, "structuredContent")["output"] == "aGVsbG8=", "structured result")
    jsonschema.validate(g(result, "structuredContent"), g(by_name["base64-encoder"], "outputSchema"))
    check(json.loads(text_of(result)) == g(result, "structuredContent"), "text content mirrors structuredContent")

    result = await client.call_tool("base64-encoder", {"mode": "encode"})
    check(g(result, "isError"), "missing required argument is a tool error")
    check(json.loads(text_of(result))["errorCode"] == "MISSING_REQUIRED", "CTP error code")

    try:
        result = await client.call_tool("no-such-tool", {})
        check(g(result, "isError"), "unknown tool reported")
        unknown = "tool-error"
    except Exception as e:  # the SDK raises for the JSON-RPC -32602
        check("unknown tool" in str(e).lower() or "-32602" in str(e), f"unknown tool error: {e}")
        unknown = "json-rpc-error"
    return {"tools": len(tools), "pages": pages, "unknown_tool": unknown}


async def progressive(client):
    tools, pages = await list_all(client)
    names = sorted(t.name for t in tools)
    check(names == ["describe", "run", "search"], f"three meta-tools, got {names}")
    found = await client.call_tool("search", {"query": "pretty print this json"})
    check(not g(found, "isError"), text_of(found))
    top = g(found, "structuredContent")["results"][0]["name"]
    check(top == "json-formatter", f"search finds json-formatter, got {top}")
    described = await client.call_tool("describe", {"name": top})
    check(g(described, "structuredContent")["inputSchema"]["required"] == ["input"], "describe gives the input schema")
    ran = await client.call_tool("run", {"name": top, "arguments": {"input": "{\"a\":1}"}})
    check(not g(ran, "isError"), text_of(ran))
    check(g(ran, "structuredContent")["output"] == "{\n  \"a\": 1\n}", "run formats JSON")
    bad = await client.call_tool("run", {"name": top, "arguments": {}})
    check(g(bad, "isError"), "run with missing arguments is a tool error")
    return {"tools": len(tools), "pages": pages}


async def examples(client):
    """Every worked example of every catalogue tool, through the SDK (which validates each
    structuredContent against the tool's outputSchema and raises when it does not fit)."""
    cases = json.load(open(ARGS[0]))
    failures = []
    for case in cases:
        try:
            result = await client.call_tool(case["tool"], case["input"])
            if g(result, "isError"):
                failures.append(f"{case['tool']} {json.dumps(case['input'])[:200]}: {text_of(result)[:300]}")
            elif "expect" in case:
                got = (g(result, "structuredContent") or {}).get("output")
                if got != case["expect"]:
                    failures.append(f"{case['tool']} {json.dumps(case['input'])[:200]}: output {json.dumps(got)[:300]}, expected {json.dumps(case['expect'])[:300]}")
        except Exception as e:
            failures.append(f"{case['tool']} {json.dumps(case['input'])[:200]}: raised {type(e).__name__}: {str(e)[:300]}")
    check(not failures, f"{len(failures)} of {len(cases)} examples failed:\n" + "\n".join(failures))
    return {"examples": len(cases)}


async def consent(client):
    """A destructive intent asks the person (elicitation, or input_required in 2026-07-28)."""
    target = ARGS[1]
    tools, _ = await list_all(client)
    shred = next(t for t in tools if t.name == "shredder.shred-a-file")
    check(g(shred.annotations, "destructiveHint") and not g(shred.annotations, "readOnlyHint"), "destructive hints")
    result = await client.call_tool("shredder.shred-a-file", {"path": target})
    check(not g(result, "isError"), f"accepted call runs: {text_of(result)}")
    check(not os.path.exists(target), "the file is gone")
    return {"asked": len(ASKED)}


ASKED = []


async def on_elicit(context, params):
    ASKED.append(params.message)
    return types.ElicitResult(action="accept", content={"confirm": True})


async def main():
    env = dict(os.environ, CMP_HOME=HOME)
    if MODE == "consent":
        env["CMP_TOOL_PATH"] = ARGS[0]
        ARGS.pop(0)
        ARGS.insert(0, None)
    args = ["mcp", "--page-size", "1000" if MODE == "examples" else "20"] + (["--progressive"] if MODE == "progressive" else [])
    params = StdioServerParameters(command=BIN, args=args, env=env)
    if ERA == "auto":
        client = Client(params, elicitation_callback=on_elicit)
    else:
        # The handshake offers the SDK's newest handshake version; offer this one instead.
        session_module.LATEST_HANDSHAKE_VERSION = ERA
        client = Client(params, mode="legacy", elicitation_callback=on_elicit)
    async with client:
        check(client.server_info is None or client.server_info.name == "cmpx", "server name")
        run = {"full": full, "progressive": progressive, "examples": examples, "consent": consent}[MODE]
        summary = await run(client)
        summary["protocolVersion"] = client.protocol_version
        if MODE == "consent":
            check(len(ASKED) == 1 and "cannot be undone" in ASKED[0], f"asked once: {ASKED}")
        print(json.dumps(summary))


asyncio.run(main())
