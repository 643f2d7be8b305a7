"""The SDK's own part of a warm MCP call: a server that does no work of its own.

    python bench/echo_mcp.py ANSWERS_JSON

A stdio MCP server on the official SDK's low-level `Server`, the way `lore mcp` serves
(`lore.integrations.mcp_server`): the same tool list (so the client checks each answer
against the same output schema), the same answer shape (the JSON as text and as
structured content), the same thread hop to run the tool. Each `recall` is answered with
the answer lore gave to that query, read from ANSWERS_JSON (query -> structured content).
The time of a call to it is the SDK's framing, validation and transport for lore's
answer, with nothing of lore's work: `bench/bench_mcp_warm.py` times it beside lore.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))


def main() -> None:
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    from lore.integrations.mcp_server import Reader, build_server

    answers = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    listing = build_server()._request_handlers["tools/list"].handler  # lore's own tool list
    reader = Reader()

    async def call_tool(ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        data = await reader.run(params.name, answers.__getitem__, arguments["query"])
        text = json.dumps(data, ensure_ascii=False)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], structured_content=data
        )

    server = Server("lore-echo", version="1", on_list_tools=listing, on_call_tool=call_tool)

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)


if __name__ == "__main__":
    main()
