"""lib_gab: the GABP server runtime a game mod embeds (a port of Lib.GAB 1.0.3).

Expose a game in a few lines::

    from lib_gab import GabpServer

    server = GabpServer.gabs_aware(app_name="MyGame", app_version="1.0")

    @server.tool("inventory/get", description="List the player's inventory.")
    def get_inventory(player: str) -> list[str]:
        ...

    server.run()

Tools can also be plain handlers with Lib.GAB-style metadata (``register_tool``) or methods
marked with :func:`tool` (``register_tools_from``). Attention is opt-in:
``server.enable_attention()`` returns the :class:`AttentionManager` the integration reports
urgent entries to, or publishes whole items with.
"""

from lib_gab._arguments import UnknownArguments
from lib_gab.attention import (
    AckOutcome,
    AttentionManager,
    AttentionPolicy,
    Classification,
    DefaultAttentionPolicy,
    UrgentEntry,
)
from lib_gab.builder import (
    GabpServerBuilder,
    create_gabs_aware_server,
    create_server,
    create_server_with_external_config,
    create_server_with_instance,
    create_server_with_instance_and_external_config,
    create_server_with_module,
    create_simple_server,
)
from lib_gab.discovery import GabsLaunch, gabs_launch, is_running_under_gabs
from lib_gab.operation import Operation, current_operation, use_operation
from lib_gab.resources import Resource
from lib_gab.server import (
    ATTENTION_CHANNELS,
    GabpServer,
    ProtocolOptions,
    ServerAddress,
    ServerConfigError,
    ServerLimits,
)
from lib_gab.tool_info import (
    TOOL_NAME_PATTERN,
    ToolInfo,
    ToolParameter,
    ToolParameterInfo,
    ToolResponseFieldInfo,
    check_tool_name,
    is_valid_tool_name,
    tool,
    tool_response,
    tool_title,
)
from lib_gab.tools import InvalidArguments, Tool, ToolContext, ToolError, ToolNotFound

__all__ = [
    "ATTENTION_CHANNELS",
    "TOOL_NAME_PATTERN",
    "AckOutcome",
    "AttentionManager",
    "AttentionPolicy",
    "Classification",
    "DefaultAttentionPolicy",
    "GabpServer",
    "GabpServerBuilder",
    "GabsLaunch",
    "InvalidArguments",
    "Operation",
    "ProtocolOptions",
    "Resource",
    "ServerAddress",
    "ServerConfigError",
    "ServerLimits",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolInfo",
    "ToolNotFound",
    "ToolParameter",
    "ToolParameterInfo",
    "ToolResponseFieldInfo",
    "UnknownArguments",
    "UrgentEntry",
    "check_tool_name",
    "create_gabs_aware_server",
    "create_server",
    "create_server_with_external_config",
    "create_server_with_instance",
    "create_server_with_instance_and_external_config",
    "create_server_with_module",
    "create_simple_server",
    "current_operation",
    "gabs_launch",
    "is_running_under_gabs",
    "is_valid_tool_name",
    "tool",
    "tool_response",
    "tool_title",
    "use_operation",
]
