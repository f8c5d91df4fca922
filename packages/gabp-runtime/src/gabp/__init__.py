"""The GABP protocol core shared by game-side runtimes and bridges.

* :mod:`gabp.messages`: pydantic models of every message, ``parse_message`` / ``dump_message``.
* :mod:`gabp.framing`: the sans-IO Content-Length codec.
* :class:`gabp.Connection`: one peer over any byte stream, for both roles.
* :mod:`gabp.handoff`: the environment and ``bridge.json`` handoff, tokens.
* :mod:`gabp.errors`: error codes and exceptions.
* :mod:`gabp.sockets`: TCP streams on asyncio transports (:func:`connect_tcp`,
  :func:`create_tcp_listener`), the fastest streams to run a connection over.
* :mod:`gabp.wirejson`: the JSON codec of the wire.
"""

from gabp.connection import NIL_ID, Connection, ConnectionLimits, InboundRequest
from gabp.errors import (
    ConnectionClosed,
    ErrorCode,
    GabpError,
    MessageError,
    MessageTooLarge,
    ProtocolError,
    RegistryCode,
    RemoteError,
    RequestTimeout,
)
from gabp.framing import FrameDecoder, FramingError, encode_frame
from gabp.handoff import (
    BridgeConfig,
    GabsEnvironment,
    HandoffError,
    generate_token,
    read_bridge_config,
    read_gabs_environment,
    tokens_equal,
    write_bridge_config,
    write_secret_file,
)
from gabp.inbox import Inbox
from gabp.messages import (
    PROTOCOL_VERSION,
    SCHEMA_VERSION,
    Attention,
    Capabilities,
    Event,
    Request,
    Response,
    dump_message,
    new_id,
    parse_message,
    parse_params,
    parse_payload,
    parse_result,
    unique_id,
)
from gabp.sockets import SocketStream, TcpListener, connect_tcp, create_tcp_listener
from gabp.streams import memory_pipe, stdio_stream

__all__ = [
    "NIL_ID",
    "PROTOCOL_VERSION",
    "SCHEMA_VERSION",
    "Attention",
    "BridgeConfig",
    "Capabilities",
    "Connection",
    "ConnectionClosed",
    "ConnectionLimits",
    "ErrorCode",
    "Event",
    "FrameDecoder",
    "FramingError",
    "GabpError",
    "GabsEnvironment",
    "HandoffError",
    "InboundRequest",
    "Inbox",
    "MessageError",
    "MessageTooLarge",
    "ProtocolError",
    "RegistryCode",
    "RemoteError",
    "Request",
    "RequestTimeout",
    "Response",
    "SocketStream",
    "TcpListener",
    "connect_tcp",
    "create_tcp_listener",
    "dump_message",
    "encode_frame",
    "generate_token",
    "memory_pipe",
    "new_id",
    "parse_message",
    "parse_params",
    "parse_payload",
    "parse_result",
    "read_bridge_config",
    "read_gabs_environment",
    "stdio_stream",
    "tokens_equal",
    "unique_id",
    "write_bridge_config",
    "write_secret_file",
]
