"""The built-in templates, written in the config's JSON shape (a config template with the same
id replaces one). They target games whose diagnostics follow RimBridge's tools
(``rimbridge/list_logs``, ``rimbridge/get_operation``); on a game without them those stages
warn and the rest still runs."""

from __future__ import annotations

from typing import Any

from gabs.context._template import ContextTemplate

__all__ = ["DEFAULT_TEMPLATES", "DEFAULT_TEMPLATES_JSON", "MINIMAL_TEMPLATE"]

_ITEM: dict[str, Any] = {"name": "item", "type": "attention", "config": {"include": ["item"]}}

_CAUSAL_OPERATION: dict[str, Any] = {
    "name": "causal-operation",
    "type": "diagnostics_query",
    "config": {
        "tool": "rimbridge/get_operation",
        "arguments": {"operationId": "{attention.causalOperationId}"},
        "requires": ["operationId"],
        "render": "operation",
        "maxEvents": 4,
        "itemChars": 200,
        "relevance": 0.95,
        "maxTokens": 160,
    },
}


def _trigger_logs(limit: int, max_tokens: int, item_chars: int = 200) -> dict[str, Any]:
    return {
        "name": "trigger-logs",
        "type": "diagnostics_query",
        "config": {
            "tool": "rimbridge/list_logs",
            "arguments": {
                "afterSequence": "{attention.diagnosticsCursor}",
                "minimumLevel": "warning",
                "limit": limit,
            },
            "requires": ["afterSequence"],
            "render": "logs",
            "maxItems": limit,
            "itemChars": item_chars,
            "relevance": 0.9,
            "maxTokens": max_tokens,
        },
    }


_CAUSAL_CALL = {
    "name": "causal-call",
    "type": "ledger_query",
    "config": {
        "operationId": "{attention.causalOperationId}",
        "limit": 2,
        "relevance": 0.85,
        "maxTokens": 80,
    },
}

_BLOCKED_NEXT = (
    "Next: inspect with games_get_attention "
    '{"gameId": "{request.gameId}"}, acknowledge with games_ack_attention '
    '{"gameId": "{request.gameId}", "attentionId": "{attention.attentionId}"}, then retry '
    "{request.tool}."
)
_ACK_NEXT = (
    "Calls to game {request.gameId} are refused until the item is acknowledged: "
    'games_ack_attention {"gameId": "{request.gameId}", "attentionId": '
    '"{attention.attentionId}"}.'
)

DEFAULT_TEMPLATES_JSON: tuple[dict[str, Any], ...] = (
    {
        "id": "default-blocked-call",
        "description": "A game call refused by the gate: the item, what caused it, what next.",
        "appliesTo": {"purpose": "blocked_call"},
        "budget": {"maxContextTokens": 700, "maxQueries": 6, "timeoutMs": 1500},
        "fallback": {"onTimeout": "return_partial", "onEmpty": "proceed_empty"},
        "charsPerToken": 4,
        "cacheTtlSeconds": 30,
        "pipeline": [
            {"name": "scope", "type": "scope_select"},
            _ITEM,
            _CAUSAL_OPERATION,
            _trigger_logs(limit=6, max_tokens=200),
            _CAUSAL_CALL,
            {
                "name": "attention-calls",
                "type": "ledger_query",
                "config": {
                    "attentionId": "{attention.attentionId}",
                    "limit": 4,
                    "relevance": 0.6,
                    "maxTokens": 90,
                },
            },
            {
                "name": "blocked-tool",
                "type": "registry_query",
                "config": {
                    "tools": ["{request.tool}"],
                    "descriptionChars": 160,
                    "relevance": 0.5,
                    "maxTokens": 80,
                },
            },
            {
                "name": "next-steps",
                "type": "attention",
                "config": {"include": ["next_steps"], "nextSteps": _BLOCKED_NEXT},
            },
            {
                "name": "halting",
                "type": "halting",
                "config": {
                    "minFragments": 2,
                    "satisfactionThreshold": 0.5,
                    "requireSources": ["attention", "diagnostics"],
                    "maxReruns": 0,
                },
            },
            {"name": "structure", "type": "structuring", "config": {"strategy": "hierarchical"}},
        ],
    },
    {
        "id": "default-inspection",
        "description": "games_get_attention: the item with more evidence and a wider search.",
        "appliesTo": {"purpose": "inspection"},
        "budget": {"maxContextTokens": 1600, "maxQueries": 12, "timeoutMs": 3000},
        "fallback": {"onTimeout": "return_partial", "onEmpty": "proceed_empty"},
        "charsPerToken": 4,
        "cacheTtlSeconds": 15,
        "pipeline": [
            {"name": "scope", "type": "scope_select"},
            {"name": "item", "type": "attention", "config": {"sampleLines": 5}},
            {
                **_CAUSAL_OPERATION,
                "config": {**_CAUSAL_OPERATION["config"], "maxEvents": 10, "maxTokens": 300},
            },
            {
                "name": "causal-logs",
                "type": "diagnostics_query",
                "config": {
                    "tool": "rimbridge/list_logs",
                    "arguments": {"operationId": "{attention.causalOperationId}", "limit": 10},
                    "requires": ["operationId"],
                    "render": "logs",
                    "maxItems": 10,
                    "relevance": 0.85,
                    "maxTokens": 250,
                },
            },
            _trigger_logs(limit=15, max_tokens=400),
            _CAUSAL_CALL,
            {
                "name": "attention-calls",
                "type": "ledger_query",
                "config": {
                    "attentionId": "{attention.attentionId}",
                    "limit": 8,
                    "relevance": 0.6,
                    "maxTokens": 160,
                },
            },
            {
                "name": "search",
                "type": "horizontal_search",
                "config": {
                    "query": "{attention.summary} {attention.causalMethod}",
                    "sources": ["ledger", "registry", "diagnostics"],
                    "relevanceThreshold": 0.25,
                    "maxResults": 6,
                    "ledgerLimit": 200,
                    "diagnostics": [
                        {
                            "tool": "rimbridge/list_logs",
                            "arguments": {
                                "afterSequence": "{attention.diagnosticsCursor}",
                                "limit": 100,
                            },
                        }
                    ],
                    "maxTokens": 250,
                },
            },
            {
                "name": "causal-tool",
                "type": "registry_query",
                "config": {
                    "tools": ["{attention.causalMethod}"],
                    "relevance": 0.5,
                    "maxTokens": 100,
                },
            },
            {
                "name": "next-steps",
                "type": "attention",
                "config": {"include": ["next_steps"], "nextSteps": _ACK_NEXT},
            },
            {
                "name": "halting",
                "type": "halting",
                "config": {
                    "minFragments": 3,
                    "satisfactionThreshold": 0.5,
                    "requireSources": ["attention", "diagnostics"],
                    "maxReruns": 1,
                    "relaxFactor": 0.5,
                },
            },
            {"name": "structure", "type": "structuring", "config": {"strategy": "hierarchical"}},
        ],
    },
    {
        "id": "default-attached-result",
        "description": "Attention attached to an executed call's result: short.",
        "appliesTo": {"purpose": "attached_result"},
        "budget": {"maxContextTokens": 300, "maxQueries": 2, "timeoutMs": 1000},
        "fallback": {"onTimeout": "return_partial", "onEmpty": "proceed_empty"},
        "charsPerToken": 4,
        "cacheTtlSeconds": 30,
        "pipeline": [
            {"name": "item", "type": "attention", "config": {"sampleLines": 2}},
            _trigger_logs(limit=3, max_tokens=100, item_chars=160),
            {
                "name": "next-steps",
                "type": "attention",
                "config": {"include": ["next_steps"], "nextSteps": _ACK_NEXT},
            },
            {"name": "structure", "type": "structuring", "config": {"strategy": "hierarchical"}},
        ],
    },
)

MINIMAL_TEMPLATE_JSON: dict[str, Any] = {
    "id": "minimal",
    "description": "Used when no template matches: the item and the game's required context.",
    "budget": {"maxContextTokens": 400, "maxQueries": 4, "timeoutMs": 1000},
    "pipeline": [
        {"name": "item", "type": "attention"},
        {"name": "structure", "type": "structuring"},
    ],
}

DEFAULT_TEMPLATES: tuple[ContextTemplate, ...] = tuple(
    ContextTemplate.model_validate(raw) for raw in DEFAULT_TEMPLATES_JSON
)
MINIMAL_TEMPLATE = ContextTemplate.model_validate(MINIMAL_TEMPLATE_JSON)
