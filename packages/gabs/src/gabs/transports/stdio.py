"""MCP over this process's stdin and stdout (what MCP hosts launch)."""

from __future__ import annotations

import logging
import os

from mcp.server.stdio import stdio_server

from gabs._version import __version__
from gabs.config import GabsConfig
from gabs.mcp import ToolListNotifier, build_server, initialization_options
from gabs.transports._manager import open_manager

__all__ = ["serve_stdio"]

logger = logging.getLogger("gabs.stdio")


async def serve_stdio(config_dir: str | os.PathLike[str] | None = None) -> None:
    """Serve MCP over this process's stdin and stdout until stdin closes."""
    config = GabsConfig.load(config_dir)
    notifier = ToolListNotifier()
    async with open_manager(config, notifier) as manager:
        server = build_server(manager, notifier=notifier)
        logger.info(
            "gabs %s serving MCP on stdio (%d games configured)", __version__, len(config.games)
        )
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, initialization_options(server))
