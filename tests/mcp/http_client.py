"""Drives `cmpx serve`'s /mcp with the official MCP Python SDK's Streamable HTTP client
(run by tests/serve.rs).

usage: http_client.py <URL> <auto|VERSION> <catalogue dir> <tool>...
  auto     the SDK's default (probe server/discover, pick 2026-07-28)
  VERSION  the handshake era, offering exactly that version in `initialize`
Lists every tool (all pages), then calls each named tool with its definition's example and
checks the structured result equals the example's output. Prints one JSON summary line; exits
non-zero with the reason on any failure."""

import asyncio
import glob
import json
import os
import sys

import mcp.client.session as session_module
from mcp import Client

URL, ERA, CATALOGUE = sys.argv[1:4]
TOOLS = sys.argv[4:]


def example(tool):
    for path in glob.glob(os.path.join(CATALOGUE, "*", tool + ".json")):
        with open(path) as f:
            return json.load(f)["example"]
    sys.exit(f"FAILED: no definition for {tool}")


async def main():
    if ERA == "auto":
        client = Client(URL)
    else:
        session_module.LATEST_HANDSHAKE_VERSION = ERA
        client = Client(URL, mode="legacy")
    async with client:
        tools, cursor = [], None
        while True:
            page = await client.list_tools(cursor=cursor)
            tools += page.tools
            cursor = getattr(page, "next_cursor", None) or getattr(page, "nextCursor", None)
            if not cursor:
                break
        called = 0
        for tool in TOOLS:
            ex = example(tool)
            result = await client.call_tool(tool, ex["input"])
            if getattr(result, "is_error", False) or getattr(result, "isError", False):
                sys.exit(f"FAILED: {tool} returned an error: {result}")
            got = getattr(result, "structured_content", None)
            if got != ex["output"]:
                sys.exit(f"FAILED: {tool}: {got!r} != {ex['output']!r}")
            called += 1
        print(json.dumps({"era": ERA, "tools": len(tools), "called": called}))


asyncio.run(main())
