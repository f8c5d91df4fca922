"""Registering annotated tool bodies with ``lib_gab``, against the real tool contract.

A tool the mod has gets its signature from the contract (:mod:`rimbridge_sim.contract`), its
tags from the contract, and its body checked against it. Any other tool must be a test tool:
under ``sim/`` and tagged ``test``. Descriptions, titles and result descriptions come from the
``rimbridge_annotations`` decorators.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, Final

from lib_gab import GabpServer
from lib_gab.tools import Tool
from rimbridge_annotations import ToolInfo, collect
from rimbridge_sim._operations import OperationRunner
from rimbridge_sim.calls import spec_of
from rimbridge_sim.contract import Contract
from rimbridge_sim.contract._schema import check_body, signature_for

__all__ = ["TEST_NAMESPACE", "TEST_TAG", "register"]

TEST_NAMESPACE: Final = "sim/"
TEST_TAG: Final = "test"


def _wrap(
    runner: OperationRunner, info: ToolInfo, function: Callable[..., Any]
) -> Callable[..., Any]:
    name = info.name
    if inspect.iscoroutinefunction(function):

        @functools.wraps(function)
        async def call_async(**arguments: Any) -> Any:
            return await runner.invoke_async(name, function, arguments)

        return call_async

    if spec_of(function).quick:
        return functools.wraps(function)(runner.quick(name, function))

    @functools.wraps(function)
    def call_sync(**arguments: Any) -> Any:
        return runner.invoke(name, function, arguments)

    return call_sync


def register(
    server: GabpServer, contract: Contract, runner: OperationRunner, namespace: object
) -> list[tuple[Tool, Callable[..., Any]]]:
    """Register every annotated tool of ``namespace`` (see the module doc); returns each
    registered tool with its body (script steps run bodies directly)."""
    registered = []
    for info, function in collect(namespace):
        wrapper = _wrap(runner, info, function)
        tool_contract = contract.get(info.name)
        tags: tuple[str, ...] = info.tags
        if tool_contract is not None:
            if info.tags and tuple(info.tags) != tool_contract.tags:
                raise ValueError(
                    f"tool {info.name}: tags {list(info.tags)} differ from the contract's "
                    f"{list(tool_contract.tags)}"
                )
            tags = tool_contract.tags
            check_body(function, tool_contract)
            signature, annotations = signature_for(tool_contract)
            del wrapper.__wrapped__  # type: ignore[attr-defined]
            wrapper.__signature__ = signature  # type: ignore[attr-defined]
            wrapper.__annotations__ = annotations
        elif not (info.name.startswith(TEST_NAMESPACE) and TEST_TAG in info.tags):
            raise ValueError(
                f"{info.name} is not a RimBridgeServer tool: tools the mod does not have live "
                f"under {TEST_NAMESPACE}* and carry the {TEST_TAG!r} tag"
            )
        registered.append(
            (
                server.add_tool(
                    wrapper,
                    name=info.name,
                    description=info.description,
                    title=info.title,
                    tags=tags,
                    result_description=info.result_description,
                    parameter_descriptions=info.parameter_descriptions(),
                    deprecated=info.deprecated,
                    version=info.version,
                ),
                function,
            )
        )
    return registered
