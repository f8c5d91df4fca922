"""A ``plain_json`` quick read writes its answer itself (msgspec), and the bytes are the ones
lib_gab's own encoding (pydantic) writes for the same answer: in every state the world can be
in, for every text a pawn's name can hold, and for the plain values such an answer may hold;
what msgspec cannot write (a lone surrogate) goes to lib_gab as before."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gabp.wirejson import EncodedJson
from lib_gab._json_values import ANY_VALUE
from rimbridge_sim._operations import _plain_answer
from rimbridge_sim.calls import spec_of
from rimbridge_sim.config import BridgeConfig
from rimbridge_sim.integration import RimBridge
from rimbridge_sim.world import TimeSpeed

TOKEN = "t" * 32
GAME_INFO = "rimworld/get_game_info"


def _bridge(tmp_path: Path, **options: Any) -> RimBridge:
    return RimBridge(BridgeConfig(token=TOKEN, tick_rate=0, data_dir=tmp_path, **options))


def _answers(bridge: RimBridge) -> tuple[Any, bytes]:
    """The tool's answer as the runner gives it (a dict, envelope included) and as the sim
    writes it for the wire."""
    body = bridge._bodies[GAME_INFO]
    answer = bridge.runner.invoke(GAME_INFO, body, {})
    encoded = _plain_answer(answer)
    assert type(encoded) is EncodedJson
    return answer, encoded.data


def _lib_gab_bytes(bridge: RimBridge, answer: Any) -> bytes:
    tool = bridge.tool(GAME_INFO)
    data: bytes = tool.encode_result_json(dict(answer)).data
    return data


def test_get_game_info_is_a_plain_json_read() -> None:
    from rimbridge_sim.tools.diagnostics import DiagnosticsTools

    assert spec_of(DiagnosticsTools.get_game_info).plain_json
    assert dataclasses.replace(spec_of(DiagnosticsTools.get_game_info), plain_json=False).quick


NICKNAMES = ["Ann", "Zoë", 'quote " back \\ slash', "tab\tnew\nline\x00\x1f\x7f", "\u2028日本🙂"]


@pytest.mark.parametrize("nickname", NICKNAMES)
def test_the_answer_with_a_game_is_lib_gabs_bytes(tmp_path: Path, nickname: str) -> None:
    bridge = _bridge(tmp_path)
    world = bridge.world
    with bridge.main_loop():
        pawn = world.list_colonists()[0]
        world.game.pawns[pawn.id].nickname = nickname  # type: ignore[union-attr]
        world.select([pawn.id])
        world.set_time_speed(TimeSpeed.PAUSED)
    answer, data = _answers(bridge)
    assert answer["status"] == "game_loaded" and answer["selectedPawns"] == [nickname]
    assert data == _lib_gab_bytes(bridge, answer)


def test_the_answer_without_a_game_is_lib_gabs_bytes(tmp_path: Path) -> None:
    bridge = _bridge(tmp_path, start_game=False)
    answer, data = _answers(bridge)
    assert answer["status"] == "no_game"
    assert data == _lib_gab_bytes(bridge, answer)


def test_what_msgspec_cannot_write_goes_to_lib_gab_as_it_is() -> None:
    for refused in ({"name": "\ud800"}, {"names": ["a\udfffb"]}):
        assert _plain_answer(refused) is refused
    assert _plain_answer([1]) == [1]  # not an object: lib_gab writes it


plain_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**62).map(lambda n: n * n)  # past 64 bits
    | st.text(st.characters(codec="utf-8")),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(st.characters(codec="utf-8")), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(st.characters(codec="utf-8")), plain_values, max_size=6))
def test_plain_values_are_written_as_pydantic_writes_them(answer: dict[str, Any]) -> None:
    encoded = _plain_answer(answer)
    assert type(encoded) is EncodedJson
    assert encoded.data == ANY_VALUE.serializer.to_json(answer, by_alias=True)


def test_every_character_is_written_as_pydantic_writes_it() -> None:
    text = "".join(chr(point) for point in range(0x110000) if not 0xD800 <= point <= 0xDFFF)
    for start in range(0, len(text), 4096):
        answer = {"text": text[start : start + 4096]}
        encoded = _plain_answer(answer)
        assert type(encoded) is EncodedJson
        assert encoded.data == ANY_VALUE.serializer.to_json(answer)
