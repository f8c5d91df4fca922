"""The transports that serve the bridge's MCP server (:mod:`gabs.mcp`).

* :mod:`gabs.transports.stdio`: :func:`serve_stdio`, MCP over stdin and stdout (the bytes in
  :mod:`~gabs.transports.stdio_wire`, the framing in :mod:`~gabs.transports.stdio_framing`, game
  calls in :mod:`~gabs.transports.stdio_calls`).
* :mod:`gabs.transports.http`: :func:`serve_http`, Streamable HTTP on loopback behind a bearer
  token and an Origin check.

Both build one :class:`~gabs.games.GameManager` per process (:mod:`gabs.transports._manager`).
"""

from gabs.transports.http import HttpServeError, serve_http
from gabs.transports.stdio import serve_stdio

__all__ = ["HttpServeError", "serve_http", "serve_stdio"]
