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
    "MessageTooLarge",
    "ProtocolError",
    "RegistryCode",
    "RemoteError",
    "RequestTimeout",
]


class ErrorCode(IntEnum):
    """The codes this runtime answers with.

    The first five and ``-32000 .. -32099`` are JSON-RPC's, as GABP's registry adopts them.
    ``-31000 .. -31005`` are the server runtime's own codes (Lib.GAB's, kept by ``lib_gab``),
    in the range GABP's registry leaves to implementations (``-31999 .. -30000``); they are
    not GABP registry codes. GABP's own registry codes are :class:`RegistryCode`.
    """

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602
    INTERNAL_ERROR = -32603
    SERVER_ERROR = -32000
    """Start of the implementation-defined range ``-32000 .. -32099``."""
    AUTHENTICATION_FAILED = -31000
    """Runtime code: the hello's token is wrong."""
    SESSION_NOT_ESTABLISHED = -31001
    """Runtime code: a request other than session/hello before a successful hello."""
    TOOL_NOT_FOUND = -31002
    """Runtime code: tools/call names no registered tool."""
    CHANNEL_NOT_FOUND = -31003
    """Runtime code: events/subscribe or events/unsubscribe names no offered channel."""
    RESOURCE_NOT_FOUND = -31004
    """Runtime code: resources/read names no offered resource."""
    METHOD_NOT_ALLOWED = -31005
    """Runtime code: the method exists but is not allowed in the session's state."""


class RegistryCode(IntEnum):
    """GABP 1.0's registry of its own error codes (``-32100 .. -32599``).

    GABP defines them; this runtime does not send them (it answers with :class:`ErrorCode`, as
    the deployed server runtime does), but a receiver should understand them from other peers.
    """

    AUTHENTICATION_REQUIRED = -32100
    AUTHENTICATION_FAILED = -32101
    SESSION_EXPIRED = -32102
    ACCESS_DENIED = -32103
    PROTOCOL_VERSION_MISMATCH = -32200
    INVALID_MESSAGE_TYPE = -32201
    MISSING_REQUIRED_FIELD = -32202
    INVALID_FIELD_VALUE = -32203
    RESOURCE_NOT_FOUND = -32300
    RESOURCE_ACCESS_DENIED = -32301
    RESOURCE_LOCKED = -32302
    RESOURCE_MODIFIED = -32303
    TOOL_NOT_FOUND = -32400
    TOOL_UNAVAILABLE = -32401
    TOOL_EXECUTION_FAILED = -32402
    TOOL_TIMEOUT = -32403
    CHANNEL_NOT_FOUND = -32500
    SUBSCRIPTION_FAILED = -32501
    EVENT_DELIVERY_FAILED = -32502
    CHANNEL_OVERFLOW = -32503


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
        # What the peer sent, as it sent it: a live peer's empty message is its own fault, and
        # refusing it here would lose the error's code and data.
        GabpError.__init__(self, message)
        self.code = int(code)
        self.message = message
        self.data = data
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


class MessageTooLarge(GabpError, ValueError):
    """A request or event this side was asked to send is larger than the connection sends:
    its own ``limits.max_message_bytes``, or the peer's advertised limit when lower. It is not
    sent: such a peer would close the connection on reading the frame's header, failing
    everything else in flight on it."""

    def __init__(self, what: str, size: int, limit: int) -> None:
        super().__init__(f"{what} is {size} bytes, more than the {limit}-byte message limit")
        self.size = size
        self.limit = limit
