"""Result fields that follow the mod's own rules: screenshot names and paths, the save name
given to a blank one, the answers without a game, and ping's timestamp."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rimbridge_sim.png import png_size


def _png(path: str) -> tuple[int, int]:
    return png_size(Path(path).read_bytes())


def _file_size(path: str) -> int:
    return Path(path).stat().st_size


def _stamps_between(before: float, after: float) -> set[str]:
    """The local ``yyyyMMdd_HHmmss`` stamps of every second from ``before`` to ``after``."""
    seconds = range(int(before), int(after) + 1)
    return {time.strftime("%Y%m%d_%H%M%S", time.localtime(s)) for s in seconds}


async def test_a_screenshot_without_a_name_gets_the_mods_name_and_fields(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        before = time.time()
        shot = await sim.call("rimworld/take_screenshot", includeTargets=False)
        after = time.time()
        match = re.fullmatch(r"rimbridge_(\d{8}_\d{6})", shot["fileName"])
        assert match is not None, shot["fileName"]
        assert match[1] in _stamps_between(before, after)
        assert shot["requestedFileName"] == shot["fileName"]
        assert Path(shot["path"]).name == shot["fileName"] + ".png"
        assert _png(shot["path"]) == (640, 360)
        assert "screenTargets" in shot
        assert shot["screenTargets"] is None
        assert (shot["sourcePath"], shot["clipped"], shot["clipPadding"]) == (None, False, 0)
        assert (shot["message"], shot["expectedPath"]) == (None, None)


async def test_a_named_screenshot_reports_the_sanitized_name_without_extension(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        shot = await sim.call("rimworld/take_screenshot", fileName="  base:north?  ")
        assert (shot["fileName"], shot["requestedFileName"]) == ("base_north_", "base_north_")
        assert shot["path"] == f"{shot['screenshotFolder']}/base_north_.png"
        assert isinstance(shot["screenTargets"], dict)


async def test_a_clipped_screenshot_keeps_the_full_shot_beside_the_crop(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/open_window_by_type", windowType="RimWorld.Dialog_Options")
        window = (await sim.call("rimworld/get_screen_targets"))["targets"]["windows"][0]
        shot = await sim.call(
            "rimworld/take_screenshot",
            fileName="options",
            clipTargetId=window["windowTargetId"],
            clipPadding=4,
        )
        folder = Path(shot["screenshotFolder"])
        assert (shot["fileName"], shot["requestedFileName"]) == ("options__clip", "options")
        assert (shot["path"], shot["sourcePath"]) == (
            str(folder / "options__clip.png"),
            str(folder / "options.png"),
        )
        assert _png(shot["sourcePath"]) == (640, 360)
        assert _png(shot["path"]) == (304, 254)
        assert shot["sizeBytes"] == _file_size(shot["path"])
        assert (shot["clipped"], shot["clipPadding"]) == (True, 4)
        assert shot["clipTargetId"] == window["windowTargetId"]


async def test_a_cell_rect_screenshot_is_cropped_to_a_cell_rect_file(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        shot = await sim.call(
            "rimworld/screenshot_cell_rect",
            x=20,
            z=20,
            width=4,
            height=4,
            paddingCells=1,
            fileName="yard",
            includeTargets=False,
        )
        folder = Path(shot["screenshotFolder"])
        assert (shot["fileName"], shot["requestedFileName"]) == ("yard__cell_rect", "yard")
        assert (shot["path"], shot["sourcePath"]) == (
            str(folder / "yard__cell_rect.png"),
            str(folder / "yard.png"),
        )
        assert (shot["clipTargetId"], shot["clipTargetKind"]) == ("cellRect", "cellRect")
        assert shot["clipTargetLabel"] == "Cell rect (19, 19, 6, 6)"
        assert "clipPadding" not in shot and "screenTargets" not in shot
        assert _png(shot["sourcePath"]) == (640, 360)


async def test_a_blank_save_name_saves_under_the_timestamped_fallback(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        before = time.time()
        saved = await sim.call("rimworld/save_game", saveName="  ")
        after = time.time()
        assert saved["success"] is True
        assert saved["saveName"] in {f"rimbridge_save_{s}" for s in _stamps_between(before, after)}
        assert saved["path"].endswith(f"Saves/{saved['saveName']}.rws")
        listed = await sim.call("rimworld/list_saves")
        assert [s["name"] for s in listed["saves"]] == [saved["saveName"]]
        assert await sim.attention() is None


async def test_a_blank_load_name_looks_for_the_timestamped_fallback(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        before = time.time()
        loaded = await sim.call("rimworld/load_game", saveName="")
        after = time.time()
        names = {f"rimbridge_save_{s}" for s in _stamps_between(before, after)}
        assert loaded["success"] is False
        match = re.fullmatch(r"Save '(.+)' does not exist\.", loaded["message"])
        assert match is not None and match[1] in names, loaded["message"]
        assert loaded["path"].endswith(f"Saves/{match[1]}.rws")


async def test_without_a_game_the_tools_answer_with_the_mods_texts(open_sim: Any) -> None:
    async with open_sim(tick_rate=0, start_game=False) as sim:
        calls = [
            ("rimworld/list_colonists", {}, "No game is currently loaded"),
            ("rimworld/pause_game", {}, "No game is currently loaded"),
            ("rimworld/set_time_speed", {"speed": "Fast"}, "No game is currently loaded."),
            ("rimworld/save_game", {"saveName": "x"}, "No game is currently loaded."),
        ]
        for tool, arguments, message in calls:
            result = await sim.call(tool, **arguments)
            answer = (result["success"], result["message"], result["code"])
            assert answer == (False, message, "no_game"), tool
            assert result["operation"]["Status"] == 2, tool
        speed = await sim.call("rimworld/set_time_speed", speed="Fast")
        assert speed["state"]["inEntryScene"] is True
        assert "state" not in await sim.call("rimworld/pause_game")
        assert await sim.attention() is None


async def test_ping_sends_an_iso_8601_utc_timestamp(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        before = datetime.now(UTC)
        pong = await sim.call("rimbridge/ping")
        after = datetime.now(UTC)
        stamp = pong["timestamp"]
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", stamp), stamp
        sent = datetime.fromisoformat(stamp)
        assert before.replace(microsecond=before.microsecond // 1000 * 1000) <= sent <= after
