"""Error codes and the exception hierarchy of the GABP runtime.

Two directions, kept apart:

* :class:`ProtocolError` is raised by code serving a request to send a specific wire error
  (``raise ProtocolError(ErrorCode.INVALID_PARAMS, "...")``).
* :class:`RemoteError` is raised by :meth:`gabp.Connection.request` when the peer answered
  with an error. It subclasses :class:`ProtocolError`, so a bridge can pass it on unchanged.

Everything else describes the connection itself: :class:`ConnectionClosed` for every waiter
when the peer goes away, :class:`RequestTimeout` when an answer does not come in time, and
:class:`MessageError` for a message that is not valid GABP.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

__all__ = [
    "ConnectionClosed",
    "ErrorCode",
    "GabpError",
    "MessageError",
    "ProtocolError",
    "RemoteError",
    "RequestTimeout",
]


class ErrorCode(IntEnum):
    """Error codes used on the wire (JSON-RPC codes plus the GABP server codes)."""

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602
    INTERNAL_ERROR = -32603
    SERVER_ERROR = -32000
    """Start of the implementation-defined range ``-32000 .. -32099``."""
    AUTHENTICATION_FAILED = -31000
    SESSION_NOT_ESTABLISHED = -31001
    TOOL_NOT_FOUND = -31002
    CHANNEL_NOT_FOUND = -31003
    RESOURCE_NOT_FOUND = -31004
    METHOD_NOT_ALLOWED = -31005


class GabpError(Exception):
    """Base class of every error raised by the GABP runtime."""


class ProtocolError(GabpError):
    """A wire error: ``{code, message, data?}``.

    Raise it from a request handler to answer with exactly this error.
    """

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        if not message:
            raise ValueError("an error message must not be empty")
        super().__init__(message)
        self.code = int(code)
        self.message = message
        self.data = data

    def to_wire(self) -> dict[str, Any]:
        """The ``error`` object of a response."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error

    def __str__(self) -> str:
        return f"{self.message} (code {self.code})"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code}, message={self.message!r})"


class RemoteError(ProtocolError):
    """The peer answered a request with an error response."""

    def __init__(self, code: int, message: str, data: Any = None, *, method: str = "") -> None:
        super().__init__(code, message, data)
        self.method = method

    def __str__(self) -> str:
        where = f" to {self.method}" if self.method else ""
        return f"peer answered{where} with error {self.code}: {self.message}"


class ConnectionClosed(GabpError):
    """The connection is closed; the reason says why (EOF, a framing error, aclose())."""

    def __init__(self, reason: str = "connection closed") -> None:
        super().__init__(reason)
        self.reason = reason


class RequestTimeout(GabpError, TimeoutError):
    """No answer arrived within the request's timeout."""

    def __init__(self, method: str, timeout: float) -> None:
        super().__init__(f"no answer to {method} within {timeout:g} s")
        self.method = method
        self.timeout = timeout


class MessageError(GabpError, ValueError):
    """A message is not valid GABP (bad JSON, a bad envelope, bad params).

    ``code`` is the wire code to answer with (``-32700`` for JSON that does not parse,
    ``-32600`` for an invalid envelope, ``-32602`` for invalid params); ``message_id`` is the
    request id when one could be recovered.
    """

    def __init__(
        self, message: str, *, code: int = ErrorCode.INVALID_REQUEST, message_id: str | None = None
    ) -> None:
        super().__init__(message)
        self.code = int(code)
        self.message_id = message_id
