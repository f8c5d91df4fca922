"""The attention scenarios: gating (blocking attention, refused calls, inspect, ack, retry),
advisory (shown, never blocking) and invalidated (a load makes old ids stale)."""

from __future__ import annotations

from gabs.demo._agent import (
    EXECUTED,
    GAME,
    NO_ATTENTION,
    NOT_ERROR,
    RAN,
    RAN_OK,
    DemoAgent,
    blocked,
    blocked_call_budget,
    operations_of,
)

__all__ = ["scenario_advisory", "scenario_gating", "scenario_invalidated"]


async def scenario_gating(agent: DemoAgent) -> None:
    await agent.call(
        "discover: which games can I use?",
        "games_list",
        {},
        [
            NOT_ERROR,
            (
                "rimworld is listed",
                lambda r: any(g.get("gameId") == GAME for g in r.get("games") or []),
            ),
        ],
    )
    await agent.start(
        GAME,
        [
            ("attention supported", lambda r: r.get("attention", "supported") is True),
            ("attention mode gate", lambda r: r.get("attention", "mode") == "gate"),
        ],
    )
    await agent.call(
        "discover the game's tools",
        "games_tool_names",
        {"gameId": GAME, "limit": 200},
        [
            NOT_ERROR,
            (
                "rimworld/set_draft, rimbridge/list_logs and sim/schedule_error are there",
                lambda r: (
                    {"rimworld/set_draft", "rimbridge/list_logs", "sim/schedule_error"}
                    <= {t.get("gabpName") for t in r.get("tools") or []}
                ),
            ),
        ],
    )
    colonists = await agent.game_call(
        "a successful action: list the colonists",
        "rimworld/list_colonists",
        checks=[*RAN_OK, NO_ATTENTION, ("colonists", lambda r: r.get("result", "colonists"))],
    )
    pawn = colonists.get("result", "colonists", 0, "pawnId")
    await agent.game_call(
        f"a successful action: draft {pawn}",
        "rimworld/set_draft",
        {"pawnId": pawn, "drafted": True},
        [
            *RAN_OK,
            NO_ATTENTION,
            ("the pawn is drafted", lambda r: r.get("result", "drafted") is True),
        ],
    )
    message = "Exception in JobDriver_Wait.DriverTick: NullReferenceException"
    scheduled = await agent.game_call(
        "an action whose job will throw a tick later (sim/schedule_error stands in for it)",
        "sim/schedule_error",
        {"message": message, "afterTicks": 1},
        [*RAN_OK, ("nothing open yet", lambda r: r.get("attention") is None)],
    )
    cause = scheduled.get("operationId")
    stepped = await agent.game_call(
        "let game time pass: the error happens, and attention is attached to this real result",
        "rimworld/step_game_ticks",
        {"ticks": 5},
        [
            *RAN_OK,
            ("attention attached", lambda r: r.get("attention", "state") == "open"),
            ("blocking", lambda r: r.get("attention", "blocking") is True),
            (
                "caused by the sim/schedule_error call",
                lambda r: (
                    r.get("attention", "causalOperationId") == cause
                    and r.get("attention", "causalMethod") == "sim/schedule_error"
                ),
            ),
            (
                "attentionRelation opened_during_call",
                lambda r: r.get("attentionRelation") == "opened_during_call",
            ),
        ],
    )
    attention_id = stepped.get("attention", "attentionId")
    cursor = stepped.get("attention", "diagnosticsCursor")
    release = {"pawnId": pawn, "drafted": False}
    budget = blocked_call_budget()
    await agent.game_call(
        "the next game call is refused before it reaches the game",
        "rimworld/set_draft",
        release,
        [
            *blocked(attention_id),
            ("the text names the causal call", lambda r: str(cause) in r.text),
            (
                "the text shows the triggering log line",
                lambda r: any(
                    line.startswith("Log #") and message in line for line in r.text.splitlines()
                ),
            ),
            (
                f"the assembled context stays within its {budget}-token budget",
                lambda r: 0 < int(r.get("context", "tokens") or 0) <= budget,
            ),
        ],
    )
    await agent.game_call(
        "retrying without acknowledging is refused the same way (a retry is not an ack)",
        "rimworld/set_draft",
        release,
        blocked(attention_id),
    )
    await agent.game_call(
        "diagnostics still work: the log lines from the item's diagnosticsCursor",
        "rimbridge/list_logs",
        {"afterSequence": cursor},
        [
            *RAN,
            (
                "the oldest entry (the page is newest first) is the error, under the causing "
                "operation",
                lambda r: (
                    r.get("result", "logs", -1, "Message") == message
                    and r.get("result", "logs", -1, "OperationId") == cause
                ),
            ),
        ],
    )
    await agent.game_call(
        "diagnostics still work: the causal operation",
        "rimbridge/get_operation",
        {"operationId": cause},
        [
            *RAN_OK,
            (
                "operation sim/schedule_error (capability rimbridge.sim/test/schedule-error)",
                lambda r: (
                    r.get("result", "trackedOperation", "CapabilityId")
                    == "rimbridge.sim/test/schedule-error"
                ),
            ),
        ],
    )
    await agent.game_call(
        "diagnostics still work: the game's journal never saw the refused calls",
        "rimbridge/list_operations",
        {"limit": 50},
        [
            *RAN,
            (
                "exactly one rimworld/set_draft operation (the first, successful one)",
                lambda r: len(operations_of(r, "rimworld/set_draft")) == 1,
            ),
        ],
    )
    await agent.call(
        "inspect the attention item, with the trace of how its context was assembled",
        "games_get_attention",
        {"gameId": GAME, "detail": "trace"},
        [
            NOT_ERROR,
            (
                f"attentionId {attention_id}",
                lambda r: r.get("attention", "attentionId") == attention_id,
            ),
            ("blocking", lambda r: r.get("attention", "blocking") is True),
            (
                "the trace explains every stage and why assembly stopped",
                lambda r: (
                    bool(r.get("trace", "stages"))
                    and all(stage.get("status") for stage in r.get("trace", "stages"))
                    and r.get("trace", "haltingReason") is not None
                ),
            ),
        ],
    )
    await agent.call(
        "acknowledge it with its real id",
        "games_ack_attention",
        {"gameId": GAME, "attentionId": attention_id},
        [
            NOT_ERROR,
            ("acknowledged true", lambda r: r.get("acknowledged") is True),
            ("nothing open afterwards", lambda r: r.get("currentAttention") is None),
        ],
    )
    await agent.game_call(
        "retry the refused call: it runs now",
        "rimworld/set_draft",
        release,
        [
            *RAN_OK,
            NO_ATTENTION,
            ("the pawn is released", lambda r: r.get("result", "drafted") is False),
        ],
    )
    await agent.stop(GAME)


async def scenario_advisory(agent: DemoAgent) -> None:
    await agent.start(GAME)
    colonists = await agent.game_call(
        "list the colonists", "rimworld/list_colonists", checks=RAN_OK
    )
    pawn = colonists.get("result", "colonists", 1, "pawnId")
    warned = await agent.game_call(
        "an action logs a warning: an advisory item is attached to its result",
        "sim/inject_log",
        {"level": "warning", "message": "Food stores are running low"},
        [
            *RAN_OK,
            ("advisory (blocking false)", lambda r: r.get("attention", "blocking") is False),
            ("severity warning", lambda r: r.get("attention", "severity") == "warning"),
            ("caused_by_call", lambda r: r.get("attentionRelation") == "caused_by_call"),
        ],
    )
    attention_id = warned.get("attention", "attentionId")
    for drafted in (True, False):
        await agent.game_call(
            f"the next game call runs anyway (set_draft drafted={str(drafted).lower()})",
            "rimworld/set_draft",
            {"pawnId": pawn, "drafted": drafted},
            [
                *RAN_OK,
                (
                    "the advisory item is shown with the result",
                    lambda r: (
                        r.get("attention", "attentionId") == attention_id
                        and r.get("attention", "blocking") is False
                    ),
                ),
            ],
        )
    await agent.call(
        "inspect: advisory, nothing is refused",
        "games_get_attention",
        {"gameId": GAME},
        [
            NOT_ERROR,
            ("the advisory item", lambda r: r.get("attention", "attentionId") == attention_id),
            ("blocking false", lambda r: r.get("attention", "blocking") is False),
        ],
    )
    await agent.call(
        "acknowledge it (the agent has seen it)",
        "games_ack_attention",
        {"gameId": GAME, "attentionId": attention_id},
        [NOT_ERROR, ("acknowledged true", lambda r: r.get("acknowledged") is True)],
    )
    await agent.stop(GAME)


async def scenario_invalidated(agent: DemoAgent) -> None:
    await agent.start(GAME)
    colonists = await agent.game_call(
        "list the colonists", "rimworld/list_colonists", checks=RAN_OK
    )
    old_pawn = colonists.get("result", "colonists", 0, "pawnId")
    save = "demo-before-load"
    await agent.game_call("save the game", "rimworld/save_game", {"saveName": save}, RAN_OK)
    loading = await agent.game_call(
        "load it again: every id on the map is replaced",
        "rimworld/load_game",
        {"saveName": save},
        [*RAN_OK, ("the load is queued", lambda r: r.get("result", "status") == "queued")],
    )
    load_call = loading.get("operationId")
    await agent.game_call(
        "wait for the load (a diagnostics tool)",
        "rimbridge/wait_for_game_loaded",
        {"timeoutMs": 10000, "readiness": "playable"},
        [
            *RAN_OK,
            (
                "programState Playing",
                lambda r: r.get("result", "state", "programState") == "Playing",
            ),
        ],
    )
    inspected = await agent.call(
        "inspect: the load opened an advisory item that says the state was invalidated",
        "games_get_attention",
        {"gameId": GAME, "refresh": True},
        [
            NOT_ERROR,
            ("stateInvalidated true", lambda r: r.get("attention", "stateInvalidated") is True),
            ("advisory (blocking false)", lambda r: r.get("attention", "blocking") is False),
            (
                "caused by the load_game call",
                lambda r: r.get("attention", "causalOperationId") == load_call,
            ),
        ],
    )
    attention_id = inspected.get("attention", "attentionId")
    await agent.game_call(
        "a pawn id read before the load is stale: the game says so, the item is attached",
        "rimworld/select_pawn",
        {"pawnId": old_pawn},
        [
            NOT_ERROR,
            EXECUTED,
            ("payload failure stale_id", lambda r: r.get("result", "code") == "stale_id"),
            (
                "the invalidating item is attached",
                lambda r: (
                    r.get("attention", "attentionId") == attention_id
                    and r.get("attention", "stateInvalidated") is True
                ),
            ),
        ],
    )
    fresh = await agent.game_call(
        "re-read the colonists: new ids",
        "rimworld/list_colonists",
        checks=[
            *RAN_OK,
            (
                "the old id is gone",
                lambda r: (
                    old_pawn not in {c.get("pawnId") for c in r.get("result", "colonists") or []}
                ),
            ),
        ],
    )
    new_pawn = fresh.get("result", "colonists", 0, "pawnId")
    await agent.call(
        "acknowledge the item",
        "games_ack_attention",
        {"gameId": GAME, "attentionId": attention_id},
        [NOT_ERROR, ("acknowledged true", lambda r: r.get("acknowledged") is True)],
    )
    await agent.game_call(
        "the fresh id works",
        "rimworld/select_pawn",
        {"pawnId": new_pawn},
        [*RAN_OK, NO_ATTENTION],
    )
    await agent.stop(GAME)
