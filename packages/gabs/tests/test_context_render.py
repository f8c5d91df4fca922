"""Context rendering of RimBridge's C# records, which Newtonsoft writes PascalCase."""

from __future__ import annotations

from gabs.context._render import log_line, operation_text


def test_a_pascal_case_log_entry_renders_like_a_camel_case_one() -> None:
    pascal = {
        "Sequence": 42,
        "Level": "error",
        "Message": "Map lost",
        "Source": "world",
        "OperationId": "op-7",
        "RepeatCount": 2,
        "tick": 42,
    }
    camel = {"sequence": 42, "level": "error", "message": "Map lost", "source": "world"}
    camel |= {"operationId": "op-7", "repeatCount": 2, "tick": 42}
    expected = "Log #42 [error] x2 (world, tick 42, operation op-7): Map lost"
    assert log_line(pascal, 200) == log_line(camel, 200) == expected


def test_the_mods_envelope_renders_with_its_status_name_and_error_message() -> None:
    tracked = {
        "OperationId": "op-7",
        "CapabilityId": "rimbridge.core/lifecycle/load-game",
        "Status": 3,
        "Success": False,
        "Error": {"Code": "capability.failed", "Message": "save file truncated"},
        "Metadata": {"requestedId": "rimworld/load_game"},
    }
    text = operation_text(
        {"success": True, "trackedOperation": tracked}, item_chars=200, max_events=3
    )
    assert text == "Operation op-7: rimworld/load_game failed, error: save file truncated"
