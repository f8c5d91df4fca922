"""Letters, live messages and alerts, and what clicking them does."""

from __future__ import annotations

from typing import Any

from rimbridge_annotations import parameter, tool
from rimbridge_sim.calls import (
    NO_GAME_SENTENCE,
    call_spec,
    payload_failure,
    without_game,
)
from rimbridge_sim.host import ToolHost
from rimbridge_sim.world import RefusedError, StaleIdError, UnknownIdError

__all__ = ["NotificationTools"]

_EFFECTS = (
    "stateBefore, stateAfter, effects {windowCountDelta, openedWindowTypes, "
    "closedWindowTypes, selectionChanged, cameraChanged, topWindowChanged}"
)


class NotificationTools:
    def __init__(self, host: ToolHost) -> None:
        self.host = host

    def _letter_refusal(self, letter_id: str | None) -> dict[str, Any] | None:
        """The mod's refusals before a letter is looked at: no game, a blank id, an id not on
        the letter stack (matched exactly, as the mod compares load ids)."""
        world = self.host.world
        if (failure := without_game(world, NO_GAME_SENTENCE)) is not None:
            return failure
        if not letter_id or not letter_id.strip():
            return payload_failure("A letter id is required.", "invalid_argument")
        if all(letter.id != letter_id for letter in world.notifications.letters()):
            return payload_failure(
                f"Could not find letter '{letter_id}' in the current letter stack.", "unknown_id"
            )
        return None

    @tool(
        "rimworld/list_messages",
        "List the live messages (the lines at the top left of the screen, gone after about "
        "13 seconds), newest first.",
        title="List messages",
        result_description="{success, currentGameTick, totalCount, returnedCount, truncated, "
        "messages: [{id, text, messageType, alpha, expired, startingTick, startingFrame, "
        "ageTicks, lookTargets}]}.",
    )
    @parameter("limit", "Most messages to return.")
    @call_spec(world=True, quick=True)
    def list_messages(self, limit: int = 12) -> dict[str, Any]:
        world = self.host.world
        if (failure := without_game(world, NO_GAME_SENTENCE)) is not None:
            return failure
        notes = world.notifications
        live = list(reversed(notes.live_messages()))
        returned = live[: max(0, limit)]
        return {
            "success": True,
            "currentGameTick": world.current_tick(),
            "totalCount": len(live),
            "returnedCount": len(returned),
            "truncated": len(returned) < len(live),
            "messages": [notes.describe_message(m) for m in returned],
        }

    @tool(
        "rimworld/list_letters",
        "List the letters on the letter stack (the event notices at the right of the screen), "
        "newest first, with their text and choices.",
        title="List letters",
        result_description="{success, currentGameTick, totalCount, returnedCount, truncated, "
        "letters: [{id, type, letterDef, label, text, arrivalTick, ageTicks, "
        "canDismissWithRightClick, choiceCount, choices, read}]}.",
    )
    @parameter("limit", "Most letters to return.")
    @call_spec(world=True)
    def list_letters(self, limit: int = 40) -> dict[str, Any]:
        world = self.host.world
        if (failure := without_game(world, NO_GAME_SENTENCE)) is not None:
            return failure
        notes = world.notifications
        letters = list(reversed(notes.letters()))
        returned = letters[: max(0, limit)]
        return {
            "success": True,
            "currentGameTick": world.current_tick(),
            "totalCount": len(letters),
            "returnedCount": len(returned),
            "truncated": len(returned) < len(letters),
            "letters": [notes.describe_letter(x) for x in returned],
        }

    @tool(
        "rimworld/open_letter",
        "Open a letter as a left click on it does: it is marked read and shown in a window "
        "(its OK, or rimworld/press_accept, removes it from the stack).",
        title="Open letter",
        result_description=f"{{success, requestedLetterId, letter, stillPresentInLetterStack, "
        f"{_EFFECTS}}}; an unknown id is a payload failure.",
    )
    @parameter("letter_id", "A letter id from rimworld/list_letters.")
    @call_spec(world=True)
    def open_letter(self, letter_id: str) -> dict[str, Any]:
        if (failure := self._letter_refusal(letter_id)) is not None:
            return failure
        notes = self.host.world.notifications
        before = notes.state()
        letter = notes.open_letter(letter_id)
        after = notes.state()
        return {
            "success": True,
            "requestedLetterId": letter_id,
            "letter": notes.describe_letter(letter),
            "stillPresentInLetterStack": notes.letter_present(letter),
            "stateBefore": before,
            "stateAfter": after,
            "effects": notes.effects(before, after),
        }

    @tool(
        "rimworld/dismiss_letter",
        "Dismiss a letter as a right click on it does (choice letters cannot be dismissed).",
        title="Dismiss letter",
        result_description=f"{{success, requestedLetterId, dismissed, letterId, {_EFFECTS}}}; "
        "a letter that cannot be dismissed is {success: false, message, requestedLetterId, "
        "letter}.",
    )
    @parameter("letter_id", "A letter id from rimworld/list_letters.")
    @call_spec(world=True)
    def dismiss_letter(self, letter_id: str) -> dict[str, Any]:
        if (failure := self._letter_refusal(letter_id)) is not None:
            return failure
        notes = self.host.world.notifications
        before = notes.state()
        try:
            letter = notes.dismiss_letter(letter_id)
        except RefusedError as error:
            return {
                "success": False,
                "message": error.message,
                "requestedLetterId": letter_id,
                "letter": notes.describe_letter(self.host.world.letter_by_id(letter_id)),
                "code": error.code,
            }
        after = notes.state()
        return {
            "success": True,
            "requestedLetterId": letter_id,
            "dismissed": True,
            "letterId": letter.id,
            "stateBefore": before,
            "stateAfter": after,
            "effects": notes.effects(before, after),
        }

    @tool(
        "rimworld/list_alerts",
        "List the active alerts (starvation, colonists needing rescue, low food, ...) with "
        "their culprits; alert ids belong to this alert snapshot.",
        title="List alerts",
        result_description="{success, currentGameTick, alertSnapshotFingerprint, totalCount, "
        "returnedCount, truncated, alerts: [{id, ordinal, type, priority, label, explanation, "
        "targetCount, targets, activatable}]}.",
    )
    @parameter("limit", "Most alerts to return.")
    @call_spec(world=True)
    def list_alerts(self, limit: int = 40) -> dict[str, Any]:
        world = self.host.world
        if (failure := without_game(world, NO_GAME_SENTENCE)) is not None:
            return failure
        notes = world.notifications
        fingerprint, alerts = notes.alerts()
        returned = alerts[: max(0, limit)]
        return {
            "success": True,
            "currentGameTick": world.current_tick(),
            "alertSnapshotFingerprint": fingerprint,
            "totalCount": len(alerts),
            "returnedCount": len(returned),
            "truncated": len(returned) < len(alerts),
            "alerts": [notes.describe_alert(a) for a in returned],
        }

    @tool(
        "rimworld/activate_alert",
        "Click an alert: the camera jumps to its first culprit, which gets selected. An id "
        "from an older alert snapshot is refused.",
        title="Activate alert",
        result_description=f"{{success, requestedAlertId, alert, {_EFFECTS}}}.",
    )
    @parameter("alert_id", "An alert id from rimworld/list_alerts.")
    @call_spec(world=True)
    def activate_alert(self, alert_id: str) -> dict[str, Any]:
        world = self.host.world
        if (failure := without_game(world, NO_GAME_SENTENCE)) is not None:
            return failure
        if not alert_id or not alert_id.strip():
            return payload_failure("An alert id is required.", "invalid_argument")
        notes = world.notifications
        before = notes.state()
        try:
            alert = notes.activate(alert_id)
        except (StaleIdError, UnknownIdError) as error:
            fingerprint, alerts = notes.alerts()
            return {
                "success": False,
                "message": error.message,
                "requestedAlertId": alert_id,
                "alertSnapshotFingerprint": fingerprint,
                "availableAlertIds": [a.id for a in alerts],
                "code": error.code,
            }
        after = notes.state()
        return {
            "success": True,
            "requestedAlertId": alert_id,
            "alert": notes.describe_alert(alert),
            "stateBefore": before,
            "stateAfter": after,
            "effects": notes.effects(before, after),
        }
