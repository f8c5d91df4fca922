"""What the Go bridge 1.1.0's user guides (README, AI_CLIENT_SETUP, DEPLOYMENT) tell a user to do
when ``games_status`` cannot confirm the bridge's variables on a store-launched game: the
status item's ``diagnostics.warnings`` carry the Go bridge's advice for the launch mode
(``gabs games repair <id>`` for ``SteamAppId``, ``DirectPath`` or ``CustomCommand`` for
``SteamManaged``), taken from the Go bridge's source (``internal/mcp/state_diagnostics.go``)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from gabs.config import GameConfig
from gabs.games_diagnostics import state_diagnostics

LEAD = "Could not verify GABP environment on the real game process; "


@pytest.mark.parametrize(
    ("mode", "warning"),
    [
        (
            "SteamAppId",
            LEAD + "SteamAppId launcher URL mode can reuse stale environment from an "
            "already-running launcher. Run 'gabs games repair adventure' to switch to managed "
            "Steam launch.",
        ),
        (
            "SteamManaged",
            LEAD + "Steam-managed launch can still lose environment variables if the platform "
            "relaunches the app. Use DirectPath or CustomCommand when the final game process "
            "does not inherit the bridge environment.",
        ),
        (
            "EpicAppId",
            LEAD + "EpicAppId launchers can reuse stale environment from an already-running "
            "launcher.",
        ),
    ],
)
def test_an_unconfirmed_bridge_environment_carries_go_s_advice_for_the_mode(
    mode: str, warning: str
) -> None:
    game = GameConfig(id="adventure", name="A", launch_mode=mode, target="123456")
    found = state_diagnostics(game, "running", None, "", timedelta(seconds=35))
    assert found["warnings"] == [warning]
    assert found["code"] == "healthy"


@pytest.mark.parametrize("status", ["stopped", "starting"])
def test_a_game_that_is_not_running_has_no_environment_warning(status: str) -> None:
    game = GameConfig(id="adventure", name="A", launch_mode="SteamAppId", target="123456")
    assert "warnings" not in state_diagnostics(game, status, None, "", timedelta(seconds=35))
