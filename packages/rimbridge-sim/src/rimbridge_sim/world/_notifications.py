"""Letters, live messages and alerts, and what clicking them does.
A subsystem of the world (``world.notifications``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from rimbridge_sim.world._camera import CameraControl
from rimbridge_sim.world._core import WorldCore
from rimbridge_sim.world._selection import Selection, stable_hash
from rimbridge_sim.world._ui_records import pascal_ui_state
from rimbridge_sim.world._windows import Windows
from rimbridge_sim.world.describe import (
    cell_payload,
    describe_camera,
    describe_thing,
    pawn_name,
)
from rimbridge_sim.world.errors import RefusedError, StaleIdError, UnknownIdError
from rimbridge_sim.world.model import LetterKind, LogLevel, ProgramState, ThingCategory
from rimbridge_sim.world.state import Letter, Message, Pawn

__all__ = ["Alert", "Notifications"]

MESSAGE_FRAMES: Final = 780
"""A live message stays 13 seconds (at 60 frames per second)."""
_FADE_FRAMES: Final = 120
_MAX_SELECTION: Final = 12
_MAX_TARGETS: Final = 12
_NO_LOOK_TARGETS: Final[dict[str, Any]] = {
    "isValid": False,
    "any": False,
    "targetCount": 0,
    "targetsTruncated": False,
    "primaryTarget": None,
    "targets": [],
}
"""A message's or letter's look targets when it has none, as the mod writes them."""
_LETTER_DEFS: Final = {
    LetterKind.POSITIVE: "PositiveEvent",
    LetterKind.NEUTRAL: "NeutralEvent",
    LetterKind.NEGATIVE: "NegativeEvent",
    LetterKind.THREAT: "ThreatBig",
}


def _cap(label: str) -> str:
    return label[:1].upper() + label[1:]


def _camera_signature(camera: dict[str, Any] | None) -> str:
    if camera is None:
        return ""
    position = camera["mapPosition"]
    return f"{camera['mapId']}:{position['x']}:{position['z']}:{camera['rootSize']}"


@dataclass
class Alert:
    id: str
    ordinal: int
    type: str
    priority: str
    label: str
    explanation: str
    culprits: list[Pawn]


class Notifications:
    def __init__(
        self,
        world: WorldCore,
        windows: Windows,
        selection: Selection,
        camera: CameraControl,
        bridge_state: Callable[[], dict[str, Any]],
    ) -> None:
        self._world = world
        self._bridge_state = bridge_state
        """The tool state snapshot (``state_snapshot``) a click's captures carry."""
        self._windows = windows
        self._selection = selection
        self._camera = camera
        self._next_message = 1

    # -- the state clicks change -------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """What the mod captures around a click: ``bridge`` (the tool state), ``uiState``
        (its UI snapshot class, PascalCase), ``camera`` and ``selection``."""
        world = self._world
        game = world.game
        objects = self._selection.objects()
        selected = [
            {
                "kind": "pawn" if isinstance(item, Pawn) else "thing",
                "id": item.id,
                "label": pawn_name(item)
                if isinstance(item, Pawn)
                else _cap(describe_thing(world, item)["label"]),
                "mapId": None if game is None else game.map.id,
                "mapIndex": None if game is None else 0,
                "position": cell_payload(item.position),
            }
            for item in objects[:_MAX_SELECTION]
        ]
        playing = game is not None and world.program_state is ProgramState.PLAYING
        return {
            "bridge": self._bridge_state(),
            "uiState": pascal_ui_state(self._windows.ui_state()),
            "camera": describe_camera(world) if playing else None,
            "selection": {
                "count": len(objects),
                "truncated": len(objects) > _MAX_SELECTION,
                "selectedObjects": selected,
            },
        }

    @staticmethod
    def effects(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
        """What changed between two :meth:`state` captures, as the mod reports it."""
        ui_before, ui_after = before["uiState"], after["uiState"]
        types_before = [w["Type"] for w in ui_before["Windows"]]
        types_after = [w["Type"] for w in ui_after["Windows"]]
        camera_before, camera_after = before["camera"], after["camera"]
        return {
            "windowCountDelta": ui_after["WindowCount"] - ui_before["WindowCount"],
            "openedWindowTypes": list(
                dict.fromkeys(t for t in types_after if t not in types_before)
            ),
            "closedWindowTypes": list(
                dict.fromkeys(t for t in types_before if t not in types_after)
            ),
            "selectionChanged": [o["id"] for o in before["selection"]["selectedObjects"]]
            != [o["id"] for o in after["selection"]["selectedObjects"]]
            or before["selection"]["count"] != after["selection"]["count"],
            "cameraChanged": _camera_signature(camera_before) != _camera_signature(camera_after),
            "topWindowChanged": ui_before["TopWindowType"] != ui_after["TopWindowType"],
            "focusedWindowChanged": ui_before["FocusedWindowType"] != ui_after["FocusedWindowType"],
        }

    # -- letters -----------------------------------------------------------------------------

    def letters(self) -> list[Letter]:
        game = self._world.require_colony().game
        return list(game.letters)

    def describe_letter(self, letter: Letter) -> dict[str, Any]:
        tick = self._world.current_tick()
        choice = letter.choice_type is not None
        choices = [("Accept", False), ("Reject", False)] if choice else [("OK", False)]
        visitors = letter.choice_type == "RimWorld.ChoiceLetter_AcceptVisitors"
        return {
            "id": letter.id,
            "type": letter.choice_type or "Verse.StandardLetter",
            "letterDef": _LETTER_DEFS[letter.kind],
            "label": letter.label,
            "text": letter.text,
            "arrivalTick": letter.tick,
            "ageTicks": max(0, tick - letter.tick),
            "canDismissWithRightClick": not choice,
            "shouldAutomaticallyOpenLetter": False,
            "relatedFaction": "Traders" if visitors else None,
            "debugInfo": None,
            "lookTargets": dict(_NO_LOOK_TARGETS),
            "choiceCount": len(choices),
            "choices": [
                {
                    "index": index,
                    "text": text,
                    "disabled": disabled,
                    "disabledReason": None,
                    "closesDialog": True,
                    "hasAction": True,
                    "hasLink": False,
                }
                for index, (text, disabled) in enumerate(choices, start=1)
            ],
            "read": letter.read,
        }

    def open_letter(self, letter_id: str) -> Letter:
        letter = self._world.letter_by_id(letter_id)
        letter.read = True

        def accept() -> str:
            self._remove_letter(letter)
            return f"closed letter {letter.id}"

        self._windows.open(
            "Verse.Dialog_NodeTree",
            letter.label,
            semantic_kind="letter",
            on_accept=accept,
            buttons=[("OK", "accept")],
            details={"letterId": letter.id},
            force_pause=True,
        )
        return letter

    def dismiss_letter(self, letter_id: str) -> Letter:
        letter = self._world.letter_by_id(letter_id)
        if letter.choice_type is not None:
            raise RefusedError(
                f"Letter '{letter_id}' cannot be dismissed through the letter stack."
            )
        self._remove_letter(letter)
        return letter

    def _remove_letter(self, letter: Letter) -> None:
        game = self._world.game
        if game is not None and letter in game.letters:
            game.letters.remove(letter)
            self._world.retire(letter.id, destroyed=True)

    def letter_present(self, letter: Letter) -> bool:
        game = self._world.game
        return game is not None and letter in game.letters

    # -- messages ----------------------------------------------------------------------------

    def message(self, text: str, message_type: str = "NeutralEvent") -> Message:
        """Show a live message (the line at the top left of the screen)."""
        message = Message(
            self._next_message, text, message_type, self._world.current_tick(), self._world.frame
        )
        self._next_message += 1
        self._world.ui.messages.append(message)
        return message

    def live_messages(self) -> list[Message]:
        frame = self._world.frame
        return [m for m in self._world.ui.messages if frame - m.starting_frame < MESSAGE_FRAMES]

    def describe_message(self, message: Message) -> dict[str, Any]:
        age = self._world.frame - message.starting_frame
        remaining = MESSAGE_FRAMES - age
        alpha = 1.0 if remaining >= _FADE_FRAMES else max(0.0, remaining / _FADE_FRAMES)
        return {
            "id": f"Message_{message.id}",
            "text": message.text,
            "messageType": message.message_type,
            "alpha": round(alpha, 4),
            "expired": remaining <= 0,
            "startingTick": message.starting_tick,
            "startingFrame": message.starting_frame,
            "ageTicks": max(0, self._world.current_tick() - message.starting_tick),
            "hasQuest": False,
            "lookTargets": dict(_NO_LOOK_TARGETS),
        }

    # -- alerts ------------------------------------------------------------------------------

    def alerts(self) -> tuple[str, list[Alert]]:
        """The active alerts and the snapshot fingerprint their ids are scoped to."""
        colony = self._world.require_colony()
        game = colony.game
        pawns = list(game.pawns.values())
        found: list[tuple[str, str, str, str, list[Pawn]]] = []
        downed = [p for p in pawns if p.downed]
        if downed:
            found.append(
                (
                    "Alert_ColonistNeedsRescuing",
                    "Critical",
                    "Colonist needs rescue",
                    "Downed colonists need to be carried to a bed.",
                    downed,
                )
            )
        starving = [p for p in pawns if p.food <= 0]
        if starving:
            found.append(
                (
                    "Alert_Starvation",
                    "High",
                    "Starvation",
                    "Colonists are starving: get them food.",
                    starving,
                )
            )
        breaking = [p for p in pawns if p.mood < 0.2 and not p.downed]
        if breaking:
            found.append(
                (
                    "Alert_MajorBreakRisk",
                    "High",
                    "Major break risk",
                    "Colonists are close to a mental break.",
                    breaking,
                )
            )
        if not any(t.def_name == "MealSimple" for t in game.things.values()):
            found.append(
                ("Alert_LowFood", "Medium", "Low food", "The colony is running out of meals.", [])
            )
        beds = sum(
            1
            for t in game.things.values()
            if t.def_name == "Bed" and t.definition.category is ThingCategory.BUILDING
        )
        if pawns and beds < len(pawns):
            found.append(
                (
                    "Alert_NeedColonistBeds",
                    "Medium",
                    "Need colonist beds",
                    f"{len(pawns) - beds} colonist(s) have no bed.",
                    [],
                )
            )
        # the mod's signature of an alert: type, priority, and its culprits (else its label);
        # the snapshot hashes each alert's signature and display ordinal, in display order
        signatures = [
            (f"RimWorld.{kind}", priority, "|".join(p.id for p in culprits) or label)
            for kind, priority, label, _, culprits in found
        ]
        fingerprint = "alerts-" + stable_hash(
            *("\n".join((*parts, str(n))) for n, parts in enumerate(signatures, 1))
        )
        alerts = [
            Alert(
                f"alert:{fingerprint}:{ordinal}:{stable_hash(*signatures[ordinal - 1])}",
                ordinal,
                f"RimWorld.{kind}",
                priority,
                label,
                explanation,
                culprits,
            )
            for ordinal, (kind, priority, label, explanation, culprits) in enumerate(found, 1)
        ]
        return fingerprint, alerts

    def describe_alert(self, alert: Alert) -> dict[str, Any]:
        game = self._world.game
        targets = [
            {
                "kind": "pawn",
                "id": p.id,
                "label": p.nickname,
                "thingType": "Verse.Pawn",
                "defName": "Human",
                "mapId": None if game is None else game.map.id,
                "mapIndex": 0,
                "position": cell_payload(p.position),
            }
            for p in alert.culprits[:_MAX_TARGETS]
        ]
        return {
            "id": alert.id,
            "ordinal": alert.ordinal,
            "type": alert.type,
            "priority": alert.priority,
            "label": alert.label,
            "explanation": alert.explanation,
            "jumpToTargetsText": "Click to jump to the colonist." if targets else None,
            "active": True,
            "enabledWithActiveExpansions": True,
            "anyCulpritValid": bool(targets),
            "targetCount": len(alert.culprits),
            "targetsTruncated": len(alert.culprits) > _MAX_TARGETS,
            "targets": targets,
            "activatable": True,
            "error": None,
            "exceptionType": None,
        }

    def activate(self, alert_id: str) -> Alert:
        fingerprint, alerts = self.alerts()
        for alert in alerts:
            if alert.id == alert_id:
                if alert.culprits:
                    target = alert.culprits[0]
                    self._camera.jump_to(target.position)
                    self._selection.select(target.id, append=False)
                self._world.emit(LogLevel.DEBUG, f"Activated alert {alert.label}", "ui")
                return alert
        # the mod says "stale" only for a well-formed id from another snapshot
        parts = alert_id.split(":")
        stale = len(parts) == 4 and parts[0] == "alert" and parts[1] not in ("", fingerprint)
        if stale:
            raise StaleIdError(
                "The requested alert id no longer matches the current active alert snapshot."
            )
        raise UnknownIdError(f"Could not find active alert '{alert_id}'.")
