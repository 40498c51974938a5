"""Drives `cmpx mcp` with the official MCP Python SDK client (run by tests/mcp.rs).

usage: sdk_client.py <cmpx binary> <CMP_HOME> <full|progressive>
Prints one JSON summary line; exits non-zero (with the reason on stderr) on any failure."""

import asyncio
import json
import os
import re
import sys

import jsonschema
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

BIN, HOME, MODE = sys.argv[1], sys.argv[2], sys.argv[3]


def snake(name):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def g(obj, name):
    """An attribute by its MCP (camelCase, SDK 1.x) or Python (snake_case, SDK 2.x) name."""
    if hasattr(obj, name):
        return getattr(obj, name)
    return getattr(obj, snake(name))


def check(cond, message):
    if not cond:
        print(f"FAILED: {message}", file=sys.stderr)
        sys.exit(1)


async def list_all(session):
    tools, cursor, pages = [], None, 0
    while True:
        try:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await session.list_tools(params=params)
        except TypeError:  # SDK 1.x takes the cursor directly
            page = await session.list_tools(cursor)
        pages += 1
        tools.extend(page.tools)
        cursor = g(page, "nextCursor")
        if not cursor:
            return tools, pages


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def full(session):
    tools, pages = await list_all(session)
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

    result = await session.call_tool("base64-encoder", {"input": "hello"})
    check(not g(result, "isError"), f"base64-encoder call succeeds: {text_of(result)}")
    check(g(result, "structuredContent")["output"] == "aGVsbG8=", "structured result")
    jsonschema.validate(g(result, "structuredContent"), g(by_name["base64-encoder"], "outputSchema"))
    check(json.loads(text_of(result)) == g(result, "structuredContent"), "text content mirrors structuredContent")

    result = await session.call_tool("hash-generator", {"input": "abc", "algorithm": "sha256"})
    check(g(result, "structuredContent")["output"].startswith("ba7816bf"), "sha256 of abc")
    jsonschema.validate(g(result, "structuredContent"), g(by_name["hash-generator"], "outputSchema"))

    # Every catalogue tool's example, called through the SDK, validates against its outputSchema.
    for t in tools:
        if "." in t.name:
            continue
        example = json.loads(os.popen(f"{BIN} show {t.name} --json").read())["examples"]["examples"][0]
        result = await session.call_tool(t.name, example["invocation"]["context"])
        check(not g(result, "isError"), f"{t.name} example: {text_of(result)}")
        jsonschema.validate(g(result, "structuredContent"), g(t, "outputSchema"))

    result = await session.call_tool("base64-encoder", {"mode": "encode"})
    check(g(result, "isError"), "missing required argument is a tool error")
    error = json.loads(text_of(result))
    check(error["errorCode"] == "MISSING_REQUIRED", f"CTP error code: {error}")

    result = await session.call_tool("base64-encoder", {"input": "x", "lineLength": "many"})
    check(g(result, "isError") and json.loads(text_of(result))["errorCode"] == "TYPE_ERROR", "wrong type")

    try:
        result = await session.call_tool("no-such-tool", {})
        check(g(result, "isError"), "unknown tool reported")
        unknown = "tool-error"
    except Exception as e:  # the SDK raises McpError for the JSON-RPC -32602
        check("unknown tool" in str(e).lower() or "-32602" in str(e), f"unknown tool error: {e}")
        unknown = "json-rpc-error"
    return {"tools": len(tools), "pages": pages, "unknown_tool": unknown}


async def progressive(session):
    tools, pages = await list_all(session)
    names = sorted(t.name for t in tools)
    check(names == ["describe", "run", "search"], f"three meta-tools, got {names}")
    found = await session.call_tool("search", {"query": "pretty print this json"})
    check(not g(found, "isError"), text_of(found))
    top = g(found, "structuredContent")["results"][0]["name"]
    check(top == "json-formatter", f"search finds json-formatter, got {top}")
    described = await session.call_tool("describe", {"name": top})
    check(g(described, "structuredContent")["inputSchema"]["required"] == ["input"], "describe gives the input schema")
    ran = await session.call_tool("run", {"name": top, "arguments": {"input": "{\"a\":1}"}})
    check(not g(ran, "isError"), text_of(ran))
    check(g(ran, "structuredContent")["output"] == "{\n  \"a\": 1\n}", "run formats JSON")
    bad = await session.call_tool("run", {"name": top, "arguments": {}})
    check(g(bad, "isError"), "run with missing arguments is a tool error")
    return {"tools": len(tools), "pages": pages}


async def main():
    env = dict(os.environ, CMP_HOME=HOME)
    args = ["mcp", "--page-size", "20"] + (["--progressive"] if MODE == "progressive" else [])
    params = StdioServerParameters(command=BIN, args=args, env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(g(init, "serverInfo").name == "cmpx", "server name")
            summary = await (progressive(session) if MODE == "progressive" else full(session))
            summary["protocolVersion"] = g(init, "protocolVersion")
            print(json.dumps(summary))


asyncio.run(main())
