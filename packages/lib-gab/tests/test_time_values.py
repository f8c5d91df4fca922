"""Time values on the wire as a Lib.GAB game sends them: Lib.GAB writes every result and payload
with Newtonsoft.Json's default settings, so ``DateTime.UtcNow`` arrives as
``2026-11-28T17:46:58.166Z`` (the fraction cut after its last non-zero digit) and a
``TimeSpan`` as ``1.02:03:04.5000000``. A tool with a declared result type, a handler without
one and an event payload write them alike."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Annotated, Any

import anyio
import pytest
from pydantic import BaseModel, ConfigDict, PlainSerializer, TypeAdapter
from typing_extensions import TypedDict

from gabp.messages import Event
from lib_gab import GabpServer, ToolInfo
from lib_gab._json_values import ANY_VALUE, may_hold_time_values, time_value_text, wire_json
from lib_gab.testing import bridge_session
from lib_gab.tools import build_tool

TOKEN = "d" * 64
NOW = dt.datetime(2026, 11, 28, 17, 46, 58, 166000, tzinfo=dt.UTC)


class Status(BaseModel):
    status: str
    timestamp: dt.datetime
    uptime: dt.timedelta


class Plain(BaseModel):
    name: str
    health: float
    position: list[int]


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str


def _server() -> GabpServer:
    server = GabpServer(app_name="Times", app_version="1", agent_id="times", token=TOKEN)

    @server.tool("host/status", description="A declared result type.")
    def typed() -> Status:
        return Status(status="running", timestamp=NOW, uptime=dt.timedelta(hours=26, seconds=4.5))

    server.register_tool(  # Lib.GAB's Quick Start: RegisterTool with an anonymous object
        "host/untyped",
        lambda _: {"status": "running", "timestamp": NOW, "uptime": dt.timedelta(0, 93604.5)},
        ToolInfo(description="No declared result type."),
    )
    server.channel("host/status_change", "Host status events")
    return server


async def test_a_typed_result_an_untyped_result_and_an_event_carry_newtonsofts_forms() -> None:
    server = _server()
    expected = {
        "status": "running",
        "timestamp": "2026-11-28T17:46:58.166Z",
        "uptime": "1.02:00:04.5000000",
    }
    events: list[Event] = []
    arrived = anyio.Event()

    def on_event(event: Event) -> None:
        events.append(event)
        arrived.set()

    assert await server.call_tool("host/status") == expected
    assert await server.call_tool("host/untyped", {}) == expected
    async with (
        server.running() as address,
        bridge_session(address, TOKEN, on_event=on_event) as bridge,
    ):
        with anyio.fail_after(5):
            for name in ("host/status", "host/untyped"):
                assert await bridge.request("tools/call", {"name": name}) == expected
            await bridge.request("events/subscribe", {"channels": ["host/status_change"]})
            await server.emit("host/status_change", {"at": NOW, "took": dt.timedelta(0)})
            await arrived.wait()
    assert events[0].payload == {"at": "2026-11-28T17:46:58.166Z", "took": "00:00:00"}


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (NOW, "2026-11-28T17:46:58.166Z"),
        (NOW.replace(microsecond=0), "2026-11-28T17:46:58Z"),
        (NOW.replace(microsecond=123456), "2026-11-28T17:46:58.123456Z"),
        (NOW.replace(tzinfo=None, microsecond=500000), "2026-11-28T17:46:58.5"),
        (
            NOW.replace(microsecond=0, tzinfo=dt.timezone(dt.timedelta(hours=2))),
            "2026-11-28T17:46:58+02:00",
        ),
        (
            NOW.replace(tzinfo=dt.timezone(-dt.timedelta(hours=9, minutes=30))),
            "2026-11-28T17:46:58.166-09:30",
        ),
        (dt.datetime(1, 1, 1), "0001-01-01T00:00:00"),
        (dt.date(2026, 1, 2), "2026-01-02"),
        (dt.time(3, 4, 5, 500000), "03:04:05.5"),
        (dt.time(3, 4, 5), "03:04:05"),
        (dt.timedelta(days=1, hours=2, minutes=3, seconds=4.5), "1.02:03:04.5000000"),
        (dt.timedelta(microseconds=7), "00:00:00.0000070"),
        (dt.timedelta(seconds=-1.5), "-00:00:01.5000000"),
        (dt.timedelta(days=800), "800.00:00:00"),
    ],
)
def test_each_time_value_is_written_as_newtonsoft_writes_its_dotnet_counterpart(
    value: Any, text: str
) -> None:
    # the texts a Mono program printed for DateTime (Utc, Unspecified, Local), DateTimeOffset,
    # TimeSpan and, for a time of day, TimeOnly's format; dates as DateOnly's
    assert time_value_text(value) == text
    assert wire_json(ANY_VALUE, [value], True) == f'["{text}"]'.encode()


def test_text_that_only_looks_like_a_time_value_is_left_as_it_is() -> None:
    note = "2026-11-28T17:46:58.166000Z P1DT3S"
    data = wire_json(ANY_VALUE, {"note": note, "key": "PT0S", "at": NOW}, True)
    assert data == (
        b'{"note":"2026-11-28T17:46:58.166000Z P1DT3S","key":"PT0S",'
        b'"at":"2026-11-28T17:46:58.166Z"}'
    )


def test_time_values_as_keys_and_in_sets_tuples_and_models_are_written_alike() -> None:
    value = {NOW: (NOW, {NOW}), "model": Status(status="s", timestamp=NOW, uptime=dt.timedelta())}
    assert wire_json(ANY_VALUE, value, True) == (
        b'{"2026-11-28T17:46:58.166Z":["2026-11-28T17:46:58.166Z",["2026-11-28T17:46:58.166Z"]],'
        b'"model":{"status":"s","timestamp":"2026-11-28T17:46:58.166Z","uptime":"00:00:00"}}'
    )


def test_an_iterator_in_a_result_is_never_lost_to_a_second_pass() -> None:
    def moments() -> Iterator[dt.datetime]:
        yield NOW

    # the items of a generator can be read once: the result keeps pydantic's forms instead
    data = wire_json(ANY_VALUE, {"all": moments(), "at": NOW}, True)
    assert data == b'{"all":["2026-11-28T17:46:58.166000Z"],"at":"2026-11-28T17:46:58.166000Z"}'


def test_only_a_declared_type_that_cannot_hold_a_time_value_skips_the_scan() -> None:
    def adapter(returns: Any) -> Any:
        def tool() -> Any:
            return None

        tool.__annotations__["return"] = returns
        return build_tool(tool, name="t/t", description="t").output_adapter

    assert may_hold_time_values(None) is True  # no declared type: any value
    assert may_hold_time_values(adapter(list[Plain])) is False
    assert may_hold_time_values(adapter(dict[str, int])) is False
    assert may_hold_time_values(adapter(str | None)) is False
    assert may_hold_time_values(adapter(Status)) is True
    assert may_hold_time_values(adapter(dict[str, Any])) is True
    assert may_hold_time_values(adapter(list[dt.time])) is True
    assert may_hold_time_values(adapter(Open)) is True  # extra members have any type


def test_a_declared_timedelta_is_not_advertised_as_an_iso_8601_duration() -> None:
    def uptime() -> dt.timedelta:
        return dt.timedelta(seconds=1)

    built = build_tool(uptime, name="host/uptime", description="Uptime.")
    assert built.output_schema == {
        "type": "object",
        "properties": {"value": {"type": "string"}},
        "required": ["value"],
    }
    assert built.encode_result(dt.timedelta(seconds=1)) == "00:00:01"


class Reading(TypedDict):
    health: float
    at: dt.datetime


class OwnForms(BaseModel):
    model_config = ConfigDict(ser_json_timedelta="float")
    stamp: Annotated[
        dt.datetime, PlainSerializer(lambda moment: moment.timestamp(), when_used="json")
    ]
    took: dt.timedelta
    at: dt.datetime


def test_the_rest_of_a_result_keeps_the_text_its_declared_type_writes() -> None:
    # an int where a float is declared is written 1.0; only the moment's text changes
    reading = TypeAdapter(Reading)
    value = {"health": 1, "at": NOW}
    assert reading.dump_json(value) == b'{"health":1.0,"at":"2026-11-28T17:46:58.166000Z"}'
    assert wire_json(reading, value, True) == b'{"health":1.0,"at":"2026-11-28T17:46:58.166Z"}'


def test_a_time_value_a_model_writes_in_a_form_of_its_own_keeps_it() -> None:
    own = TypeAdapter(OwnForms)
    value = OwnForms(stamp=NOW, took=dt.timedelta(seconds=1.5), at=NOW)
    assert wire_json(own, value, True) == (
        b'{"stamp":1795888018.166,"took":1.5,"at":"2026-11-28T17:46:58.166Z"}'
    )
