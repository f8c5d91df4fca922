"""Where sync tools run (worker thread or event loop), and reading tools/call params."""

from __future__ import annotations

import threading
from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gabp import MessageError, parse_params
from lib_gab import GabpServer, current_operation
from lib_gab._method_handlers import _call_target
from lib_gab.testing import bridge_session

TOKEN = "7a1e" * 16


def make_server(**options: Any) -> GabpServer:
    return GabpServer(
        app_name="Test Game", app_version="1.0", agent_id="test-game", token=TOKEN, **options
    )


def register_thread_reporters(server: GabpServer) -> None:
    def report() -> dict[str, Any]:
        operation = current_operation()
        assert operation is not None
        return {"thread": threading.get_ident(), "method": operation.method}

    server.add_tool(report, name="test/default", description="Report the thread.")
    server.add_tool(report, name="test/inline", description="Report the thread.", inline=True)
    server.add_tool(report, name="test/thread", description="Report the thread.", inline=False)
    server.register_tool("test/handler", lambda arguments: report(), inline=True)


async def threads_of(server: GabpServer) -> dict[str, int]:
    loop_thread = threading.get_ident()
    seen: dict[str, int] = {}
    async with server.running() as address, bridge_session(address, TOKEN) as bridge:
        for name in ("test/default", "test/inline", "test/thread", "test/handler"):
            with anyio.fail_after(5):
                result = await bridge.request("tools/call", {"name": name})
            assert result["method"] == name  # the operation is set either way
            seen[name] = result["thread"] == loop_thread
    return seen


async def test_sync_tools_run_in_worker_threads_unless_marked_inline() -> None:
    server = make_server()
    register_thread_reporters(server)
    assert await threads_of(server) == {
        "test/default": False,
        "test/inline": True,
        "test/thread": False,
        "test/handler": True,
    }


async def test_a_server_can_run_every_sync_tool_inline_except_those_that_say_otherwise() -> None:
    server = make_server(inline_sync_tools=True)
    register_thread_reporters(server)
    assert await threads_of(server) == {
        "test/default": True,
        "test/inline": True,
        "test/thread": False,
        "test/handler": True,
    }


async def test_an_inline_tool_that_fails_is_answered_like_any_other() -> None:
    server = make_server(inline_sync_tools=True)

    def broken() -> None:
        raise RuntimeError("secret detail")

    server.add_tool(broken, name="test/broken", description="Fail.")
    async with server.running() as address, bridge_session(address, TOKEN) as bridge:
        with anyio.fail_after(5), pytest.raises(Exception) as info:
            await bridge.request("tools/call", {"name": "test/broken"})
    assert getattr(info.value, "code", None) == -32603
    assert "secret detail" not in str(info.value)


names = st.sampled_from(["bench/echo", "a/b", "Bad Name", "", "x", "a/b/c-d_e"]) | st.text()
argument_values = st.none() | st.dictionaries(st.text(max_size=5), st.integers(), max_size=3)
params = st.fixed_dictionaries(
    {},
    optional={
        "name": names | st.integers() | st.none(),
        "arguments": argument_values | st.integers() | st.lists(st.integers()),
        "parameters": argument_values | st.text(),
        "extra": st.integers(),
    },
)


@given(params)
def test_reading_tools_call_params_without_the_model_agrees_with_the_model(
    value: dict[str, Any],
) -> None:
    target = _call_target(value)
    try:
        model = parse_params("tools/call", value)
    except MessageError:
        model = None
    if model is not None:
        assert target == (model.name, model.arguments)  # type: ignore[attr-defined]
    elif target is not None:
        # the model refuses only names a registered tool cannot have (the server then asks it)
        with pytest.raises(MessageError):
            parse_params("tools/call", {"name": target[0]})
