"""A deadline for an HTTP connection's first request.

uvicorn times out a kept-alive connection between requests (``timeout_keep_alive``), but not a
new one that never sends a complete request line and headers: such a connection would stay
open for as long as its client keeps it, and enough of them would use up the bridge's file
descriptors, which its game connections need too. (The Go bridge's HTTP server sets no
timeouts at all.) :func:`first_request_protocol` makes the uvicorn h11 protocol class that
``serve_http`` passes as uvicorn's ``http`` setting: a connection whose first request has not
arrived whole within :data:`FIRST_REQUEST_SECONDS` of its opening is closed.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Final

__all__ = ["FIRST_REQUEST_SECONDS", "first_request_protocol"]

logger = logging.getLogger("gabs.http")

#: How long a new connection has to send its first request line and headers, in seconds.
FIRST_REQUEST_SECONDS: Final = 10.0


def first_request_protocol(seconds: float = FIRST_REQUEST_SECONDS) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol, closing a connection that sends no whole request in ``seconds``
    (a request that has started, its body included, is not affected)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class FirstRequestDeadline(H11Protocol):
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self.first_request_due = self.loop.call_later(seconds, self.first_request_late)

        def first_request_late(self) -> None:
            if self.cycle is None and not self.transport.is_closing():
                logger.info("closing an HTTP connection that sent no request in %g s", seconds)
                self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            self.first_request_due.cancel()
            super().connection_lost(exc)

    return FirstRequestDeadline
