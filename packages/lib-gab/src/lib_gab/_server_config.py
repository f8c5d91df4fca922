"""How a server is configured: its limits, its address, and the protocol choices it makes."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Literal

from lib_gab._argument_conversion import ArgumentValues
from lib_gab._arguments import UnknownArguments

__all__ = [
    "LOOPBACK_HOSTS",
    "RUNTIME_NAME",
    "RUNTIME_VERSION",
    "ProtocolOptions",
    "ServerAddress",
    "ServerConfigError",
    "ServerLimits",
    "Transport",
    "check_address",
    "check_token",
]

logger = logging.getLogger("lib_gab.server")

LOOPBACK_HOSTS = ("127.0.0.1", "::1")
RUNTIME_NAME = "lib-gab"
RUNTIME_VERSION = "0.1.0"

Transport = Literal["tcp", "unix", "stdio"]


class ServerConfigError(ValueError):
    """The server was configured in a way it cannot run (a bad host, token or port)."""


@dataclass(frozen=True)
class ServerLimits:
    """Bounds the server keeps and advertises in ``capabilities.limits``."""

    max_connections: int = 16
    """Bridge connections at once; further ones are closed as soon as they are accepted."""
    max_message_bytes: int = 8 * 1024 * 1024
    max_concurrent_requests: int = 64
    """Requests served at once per connection (also declared as the ``concurrency``
    extension capability, so a bridge knows it may overlap that many)."""
    request_timeout: int = 60
    """Seconds a request may take before it is answered with a timeout error."""
    hello_timeout: float = 10.0
    """Seconds a new connection has to send a valid session/hello before it is closed."""
    max_tool_threads: int = 8
    """Sync tools run in worker threads, at most this many at once."""
    auth_failures_before_delay: int = 5
    """Failed hellos within ``auth_failure_window`` seconds before further failures are slowed."""
    auth_failure_window: float = 10.0
    auth_failure_delay: float = 1.0
    """Seconds a failed hello waits before its answer once the failure rate is exceeded."""

    def __post_init__(self) -> None:
        if self.max_connections < 1:
            raise ServerConfigError("ServerLimits.max_connections must be at least 1")
        if self.max_message_bytes < 1024:
            raise ServerConfigError("ServerLimits.max_message_bytes must be at least 1024")
        if self.max_concurrent_requests < 1 or self.max_tool_threads < 1:
            raise ServerConfigError("ServerLimits concurrency limits must be at least 1")
        if self.request_timeout < 1 or not self.hello_timeout > 0:
            raise ServerConfigError("ServerLimits timeouts must be positive")


@dataclass(frozen=True)
class ProtocolOptions:
    """Where GABP leaves the choice to the server, what this one does.

    The defaults are this runtime's; :meth:`lib_gab` gives Lib.GAB 1.0.3's answers instead.
    """

    unknown_arguments: UnknownArguments = "refuse"
    """An argument name the tool does not know: ``refuse`` answers ``-32602`` naming the
    names it knows; ``ignore`` (Lib.GAB) drops it with a warning (a ``register_tool`` handler
    gets it as it came, as Lib.GAB's handlers do) and takes a name that differs only in letter
    case as the parameter's."""
    argument_values: ArgumentValues = "exact"
    """An argument value of another JSON type than its parameter's: ``exact`` answers
    ``-32602`` (an integral number such as ``5.0`` for an integer is taken either way);
    ``convert`` (Lib.GAB) takes what Lib.GAB converts without losing or inventing anything:
    ``"5"`` or ``" 5 "`` for an integer, ``"2.5"`` for a number, ``1``/``0`` and ``"true"``/
    ``"false"`` in any letter case for a boolean, an enum value in another letter case, a
    whole number for a string (as its decimal text), in lists and nested objects too."""
    repeated_hello: Literal["welcome", "refuse"] = "welcome"
    """A second ``session/hello`` on an established session: ``welcome`` checks the token again
    and answers the welcome again (Lib.GAB); ``refuse`` answers ``-31005``."""
    unknown_channels: Literal["refuse", "skip"] = "refuse"
    """events/subscribe or events/unsubscribe naming a channel the server does not offer:
    ``refuse`` answers ``-31003`` listing the unknown and the offered channels; ``skip``
    (Lib.GAB) leaves it out of the answer's list, and takes an empty or ``null`` list as
    naming none."""
    hello_params: Literal["check", "token_only"] = "check"
    """A ``session/hello`` whose token is right: ``check`` also checks its other params against
    GABP's schema (``-32602`` names what is wrong); ``token_only`` (Lib.GAB) welcomes it
    whatever else it says (a ``launchId`` that is not a UUID, a ``platform`` such as
    ``freebsd``), with a warning."""
    frame_headers: Literal["strict", "lenient"] = "strict"
    """A frame header GABP's framing does not allow: ``strict`` answers ``-32700`` naming the
    problem and closes the connection (the stream cannot be read on); ``lenient`` (Lib.GAB)
    also takes a header line without a colon (skipped), the same ``Content-Length`` repeated,
    and a length written with a ``+``. Two different lengths stay refused either way."""
    envelope_names: Literal["exact", "any_case"] = "exact"
    """A request whose ``v``, ``id``, ``method`` or ``params`` is named in another letter case
    (``"Method"``), or whose ``v`` is ``"GABP/1"``: ``exact`` answers ``-32600`` naming the
    member found; ``any_case`` (Lib.GAB) takes it, with a warning, unless two members claim one
    name. A ``type`` is read exactly either way (Lib.GAB drops a message without one)."""
    param_names: Literal["exact", "any_case"] = "exact"
    """Members inside the params of ``session/hello``, ``tools/call`` and ``attention/ack``
    named in another letter case (``Token``, ``Name``, ``Arguments``, ``AttentionId``):
    ``exact`` reads GABP's names only (a ``Token`` is no token); ``any_case`` (Lib.GAB) takes
    them as Newtonsoft does, with a warning: the later of two spellings wins, a ``null`` does
    not replace a hello's or a call's member. ``parameters`` and ``channels`` are read exactly
    either way, as Lib.GAB reads them."""
    short_token: Literal["refuse", "accept"] = "refuse"
    """A token shorter than 32 characters (from ``GABP_TOKEN``, ``use_token``, the
    constructor): ``refuse`` raises :class:`ServerConfigError`; ``accept`` (Lib.GAB) takes it,
    with a warning, so a game starts where the bridge's token is short. An empty token is
    refused either way."""
    descriptor_extras: bool = False
    """Add Lib.GAB's ``parameters`` and ``requiresAuth`` to each tools/list entry (GABP's tool
    schema does not admit them; bridges that read leniently ignore them)."""

    @classmethod
    def lib_gab(cls) -> ProtocolOptions:
        """Every choice as Lib.GAB 1.0.3 makes it."""
        return cls(
            unknown_arguments="ignore",
            argument_values="convert",
            repeated_hello="welcome",
            unknown_channels="skip",
            descriptor_extras=True,
            hello_params="token_only",
            frame_headers="lenient",
            envelope_names="any_case",
            param_names="any_case",
            short_token="accept",
        )


def check_address(transport: str, host: str, port: int, has_unix_path: bool) -> None:
    """Refuse a transport, host, port or socket path a server cannot listen on."""
    if transport == "tcp" and host not in LOOPBACK_HOSTS:
        raise ServerConfigError(
            f"GABP servers bind loopback only: host must be 127.0.0.1 or ::1, not {host!r}"
        )
    if not 0 <= port <= 65535:
        raise ServerConfigError(f"port must be from 0 to 65535, got {port}")
    if transport == "unix" and not has_unix_path:
        raise ServerConfigError("a unix transport needs unix_path")
    if transport not in ("tcp", "unix", "stdio"):
        raise ServerConfigError(f"unknown transport {transport!r} (tcp, unix or stdio)")


def check_token(token: str, options: ProtocolOptions) -> None:
    """Refuse an empty token, and a short one unless ``options`` accepts it (with a warning)."""
    if not token:
        raise ServerConfigError("the token must not be empty")
    if len(token) < 32:
        if options.short_token == "refuse":
            raise ServerConfigError(f"the token must be at least 32 characters (got {len(token)})")
        logger.warning("the token has only %d characters; 32 or more are safer", len(token))


@dataclass(frozen=True)
class ServerAddress:
    """Where a running server can be reached."""

    transport: Transport
    host: str | None = None
    port: int | None = None
    path: str | None = None

    def __str__(self) -> str:
        if self.transport == "tcp":
            host = f"[{self.host}]" if self.host and ":" in self.host else self.host
            return f"{host}:{self.port}"
        if self.transport == "unix":
            return f"unix:{self.path}"
        return "stdio"
