"""Closing a game's connection without cutting off an answer the game is still writing.

A Lib.GAB 1.0.3 game (what RimBridgeServer embeds) ends its whole process when the bridge
closes the connection before the answer to one of its requests is written
(``docs/ports/lib-gab.md``, section 3, item 14). So before a connection that the game keeps
using is closed, the bridge waits, bounded, for the answers the game still owes: requests
awaited now, and requests given up on (timed out, or their MCP call cancelled) that the game
may still be working on. A connection the game already closed is closed at once.
"""

from __future__ import annotations

import logging

import anyio

from gabp import Connection

__all__ = ["CLOSE_GRACE", "close_when_answered", "owed"]

logger = logging.getLogger("gabs.session")

CLOSE_GRACE = 5.0
"""The longest a session's close waits for the answers the game still owes."""


async def close_when_answered(connection: Connection, grace: float, name: str) -> None:
    """Wait at most ``grace`` seconds for the answers ``connection`` is owed, then close it."""
    owed = connection.answers_owed
    if owed and not connection.closed:
        logger.info("%s: waiting up to %g s for %d answers before closing", name, grace, owed)
        with anyio.CancelScope(shield=True):
            if not await connection.wait_answered(grace):
                logger.warning(
                    "%s: closing with %d answers still owed after %g s",
                    name,
                    connection.answers_owed,
                    grace,
                )
    await connection.aclose("bridge closed the session")


def owed() -> None:
    """``on_late_answer`` for a request (a liveness probe) whose late answer needs no work: it
    keeps the request counted among the answers owed, which a close waits for."""
