"""The edit notice: a one-line nudge when a proven launch context was edited after a failure
that was not the config's.

An agent that sees a start fail tends to edit the config, although on a context that started
before the cause is rarely there. When the context a start resolves is not the proven one the
record holds, and that one's last failure was of another class than ``config``, the next failed
or refused start of the profile says so once per edit (``editNotice``, the Go bridge's text).
A reset of the entry (the next count in the new context) keeps the old context's facts in
``pendingEditNotice`` so the notice still fires; ``noticeShownForHash`` keeps it from repeating.
Nothing blocks the edit.
"""

from __future__ import annotations

from typing import Any

__all__ = ["arm_notice", "notice_text", "take_notice"]


def _proven_after_other_failure(entry: Any) -> tuple[int, str] | None:
    """The old entry's starts and failure class when it qualifies for the notice."""
    if not isinstance(entry, dict):
        return None
    failure = entry.get("lastFailure")
    starts = entry.get("workloadStarts")
    if not isinstance(failure, dict) or not isinstance(starts, int) or starts <= 0:
        return None
    cause = failure.get("class")
    if not isinstance(cause, str) or cause == "config":
        return None
    return starts, cause


def _shown(data: dict[str, Any]) -> dict[str, Any]:
    found = data.get("noticeShownForHash")
    if not isinstance(found, dict):
        found = data["noticeShownForHash"] = {}
    return found


def arm_notice(data: dict[str, Any], profile: str, old: Any, digest: str) -> None:
    """Before ``old`` (the profile's entry) is replaced by one for ``digest``: keep what the
    notice needs when ``old`` qualifies and the notice was not shown for ``digest``."""
    facts = _proven_after_other_failure(old)
    shown = data.get("noticeShownForHash")
    if facts is None or (isinstance(shown, dict) and shown.get(profile) == digest):
        return
    pending = data.get("pendingEditNotice")
    if not isinstance(pending, dict):
        pending = data["pendingEditNotice"] = {}
    pending[profile] = {"newHash": digest, "oldStarts": facts[0], "oldClass": facts[1]}


def take_notice(data: dict[str, Any], profile: str, digest: str) -> str:
    """The notice for ``profile`` now resolving to ``digest``, marked shown; ``""`` when there
    is none (``data`` is changed only when a notice is returned or a pending one consumed)."""
    pending = data.get("pendingEditNotice")
    armed = pending.get(profile) if isinstance(pending, dict) else None
    if isinstance(armed, dict) and armed.get("newHash") == digest:
        assert isinstance(pending, dict)
        del pending[profile]
        if not pending:  # an empty map is left out, as Go's ``omitempty`` leaves it
            del data["pendingEditNotice"]
        shown = data.get("noticeShownForHash")
        if isinstance(shown, dict) and shown.get(profile) == digest:
            return ""
        _shown(data)[profile] = digest
        return notice_text(str(armed.get("oldClass") or ""), int(armed.get("oldStarts") or 0))
    previous = data["profiles"].get(profile)
    if not isinstance(previous, dict) or previous.get("contextHash") == digest:
        return ""
    facts = _proven_after_other_failure(previous)
    shown = data.get("noticeShownForHash")
    if facts is None or (isinstance(shown, dict) and shown.get(profile) == digest):
        return ""
    _shown(data)[profile] = digest
    return notice_text(facts[1], facts[0])


def notice_text(cause: str, starts: int) -> str:
    """The one-line ``editNotice`` (the Go bridge's words, its article included)."""
    return (
        f"configuration changed after a {cause}-class failure; the previous context had "
        f"{starts} successful starts — verify this edit was intended"
    )
