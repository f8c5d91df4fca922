"""lib_gab: the GABP server runtime a game mod embeds.

Expose a game in a few lines::

    from lib_gab import GabpServer

    server = GabpServer.from_gabs_environment(app_name="MyGame", app_version="1.0")

    @server.tool("inventory/get", description="List the player's inventory.")
    def get_inventory(player: str) -> list[str]:
        ...

    server.run()

Attention is opt-in: ``server.enable_attention()`` returns the :class:`AttentionManager` the
integration reports urgent entries to.
"""

from lib_gab.attention import (
    AckOutcome,
    AttentionManager,
    AttentionPolicy,
    Classification,
    DefaultAttentionPolicy,
    UrgentEntry,
)
from lib_gab.operation import Operation, current_operation, use_operation
from lib_gab.resources import Resource
from lib_gab.server import (
    ATTENTION_CHANNELS,
    GabpServer,
    ServerAddress,
    ServerConfigError,
    ServerLimits,
)
from lib_gab.tools import InvalidArguments, Tool, ToolContext, ToolError

__all__ = [
    "ATTENTION_CHANNELS",
    "AckOutcome",
    "AttentionManager",
    "AttentionPolicy",
    "Classification",
    "DefaultAttentionPolicy",
    "GabpServer",
    "InvalidArguments",
    "Operation",
    "Resource",
    "ServerAddress",
    "ServerConfigError",
    "ServerLimits",
    "Tool",
    "ToolContext",
    "ToolError",
    "UrgentEntry",
    "current_operation",
    "use_operation",
]
