"""Attention classification as data: which log lines and operation outcomes need attention.

A policy is a JSON document (or the same thing as a Python dict)::

    {
      "name": "recommended",
      "description": "...",
      "rules": [
        {"match": {"levels": ["warning"], "messagePattern": "^Could not find a path\\\\b"},
         "decision": "ignore", "note": "pathing noise: jobs retry on their own"},
        {"match": {"levels": ["error", "fatal"]},
         "decision": "blocking", "stateInvalidated": false, "note": "..."},
        {"match": {"operationEvents": ["failed"], "methodPattern": "^rimworld/"},
         "decision": "blocking", "note": "..."}
      ],
      "default": "ignore"
    }

Rules are tried in order and **the first matching rule wins**. A rule is either a *log rule* or
an *operation rule*, told apart by its ``match`` keys, never both:

* log rule: any of ``levels`` (list of ``debug|info|warning|error|fatal``), ``sources`` (list of
  source names), ``messagePattern`` (a regular expression, ``re.search``: anchor it yourself).
  It is tried on log entries only. Every key given must match.
* operation rule: ``operationEvents`` (list of event kinds: ``failed``, ``cancelled``,
  ``timed_out``, ``completed``, ``progress``, ...) plus optionally ``methodPattern`` (on the
  operation's method) and ``errorPattern`` (on its error text). It is tried on operation events
  only.

``decision`` is ``blocking`` (gate game-bound calls), ``advisory`` (surface, never gate) or
``ignore`` (not attention; stops the search). ``stateInvalidated`` (default false) says earlier
observations may be stale; it needs blocking or advisory. ``note`` says why (shown in docs).

``default`` (``ignore``, ``advisory`` or ``blocking``; default ``ignore``) applies to log entries
no rule matched and to unmatched *outcome* events (``failed``, ``cancelled``, ``timed_out``);
other events (``started``, ``completed``, ...) only count when a rule names them. ``debug`` lines
are never attention (the attention levels are ``info`` to ``fatal``): a non-ignore rule may not
list ``debug``.

Validation names the JSON path of every problem, e.g. ``$.rules[2].decision: must be
blocking, advisory or ignore``; regular expressions are compiled at load.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final, Literal, TypeAlias

from rimbridge_sim.diagnostics import (
    LEVELS,
    OPERATION_EVENT_KINDS,
    OUTCOME_KINDS,
    LogEntry,
    OperationRecord,
)

__all__ = [
    "BUILTIN_POLICIES",
    "DEFAULT_POLICY",
    "Decision",
    "Policy",
    "PolicyError",
    "Rule",
    "RuleDecision",
]

RuleDecision: TypeAlias = Literal["blocking", "advisory", "ignore"]

BUILTIN_POLICIES: Final[tuple[str, ...]] = ("faithful", "recommended")
DEFAULT_POLICY: Final = "recommended"

_DECISIONS: Final[tuple[str, ...]] = ("blocking", "advisory", "ignore")
_LOG_KEYS: Final[tuple[str, ...]] = ("levels", "sources", "messagePattern")
_OPERATION_KEYS: Final[tuple[str, ...]] = ("operationEvents", "methodPattern", "errorPattern")
_RULE_KEYS: Final[tuple[str, ...]] = ("match", "decision", "stateInvalidated", "note")
_TOP_KEYS: Final[tuple[str, ...]] = ("name", "description", "rules", "default")
_CACHE_LIMIT: Final = 4096
"""Distinct (level, source, message) log classifications remembered before the cache resets."""


class PolicyError(ValueError):
    """A policy that cannot be loaded; ``problems`` lists each one with its JSON path."""

    def __init__(self, origin: str, problems: list[str]) -> None:
        self.origin = origin
        self.problems = tuple(problems)
        listed = "\n".join(f"  {problem}" for problem in problems)
        super().__init__(f"invalid attention policy {origin}:\n{listed}")


@dataclass(frozen=True, slots=True)
class Decision:
    """A classification: attention-worthy, blocking or advisory, maybe state-invalidating.

    ``rule_index`` is the matching rule's index in ``rules`` (``-1`` for the policy default).
    """

    blocking: bool
    state_invalidated: bool
    rule_index: int
    note: str


@dataclass(frozen=True, slots=True)
class Rule:
    """One validated rule (``target`` says whether it matches log entries or operation events)."""

    index: int
    target: Literal["log", "operation"]
    decision: RuleDecision
    state_invalidated: bool
    note: str
    levels: frozenset[str] | None = None
    sources: frozenset[str] | None = None
    message_pattern: re.Pattern[str] | None = None
    operation_events: frozenset[str] | None = None
    method_pattern: re.Pattern[str] | None = None
    error_pattern: re.Pattern[str] | None = None

    def matches_log(self, level: str, source: str, message: str) -> bool:
        if self.target != "log":
            return False
        if self.levels is not None and level not in self.levels:
            return False
        if self.sources is not None and source not in self.sources:
            return False
        return self.message_pattern is None or self.message_pattern.search(message) is not None

    def matches_operation(self, kind: str, method: str, error: str | None) -> bool:
        if self.target != "operation":
            return False
        assert self.operation_events is not None
        if kind not in self.operation_events:
            return False
        if self.method_pattern is not None and self.method_pattern.search(method) is None:
            return False
        return self.error_pattern is None or self.error_pattern.search(error or "") is not None

    def to_dict(self) -> dict[str, Any]:
        match: dict[str, Any] = {}
        if self.levels is not None:
            match["levels"] = [level for level in LEVELS if level in self.levels]
        if self.sources is not None:
            match["sources"] = sorted(self.sources)
        if self.message_pattern is not None:
            match["messagePattern"] = self.message_pattern.pattern
        if self.operation_events is not None:
            match["operationEvents"] = [
                k for k in OPERATION_EVENT_KINDS if k in self.operation_events
            ]
        if self.method_pattern is not None:
            match["methodPattern"] = self.method_pattern.pattern
        if self.error_pattern is not None:
            match["errorPattern"] = self.error_pattern.pattern
        return {
            "match": match,
            "decision": self.decision,
            "stateInvalidated": self.state_invalidated,
            "note": self.note,
        }


def _decision_of(rule: Rule) -> Decision | None:
    if rule.decision == "ignore":
        return None
    return Decision(rule.decision == "blocking", rule.state_invalidated, rule.index, rule.note)


class _Validator:
    """Collects every problem of a policy document, each with its JSON path."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def problem(self, path: str, text: str) -> None:
        self.problems.append(f"{path}: {text}")

    def unknown_keys(self, path: str, data: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
        for key in data:
            if key not in allowed:
                self.problem(f"{path}.{key}", f"unknown key; expected one of {', '.join(allowed)}")

    def string_list(
        self, path: str, value: object, allowed: tuple[str, ...] | None = None
    ) -> frozenset[str] | None:
        if not isinstance(value, list) or not value:
            self.problem(path, "must be a non-empty list of strings")
            return None
        good: set[str] = set()
        for index, item in enumerate(value):
            if not isinstance(item, str) or not item:
                self.problem(f"{path}[{index}]", "must be a non-empty string")
            elif allowed is not None and item not in allowed:
                self.problem(
                    f"{path}[{index}]", f"must be one of {', '.join(allowed)}, got {item!r}"
                )
            else:
                good.add(item)
        return frozenset(good)

    def pattern(self, path: str, value: object) -> re.Pattern[str] | None:
        if not isinstance(value, str) or not value:
            self.problem(path, "must be a non-empty string (a regular expression)")
            return None
        try:
            return re.compile(value)
        except re.error as error:
            self.problem(path, f"invalid regular expression {value!r}: {error}")
            return None

    def rule(self, index: int, data: object) -> Rule | None:
        path = f"$.rules[{index}]"
        if not isinstance(data, Mapping):
            self.problem(path, "must be an object")
            return None
        before = len(self.problems)
        self.unknown_keys(path, data, _RULE_KEYS)

        decision = data.get("decision")
        if "decision" not in data:
            self.problem(f"{path}.decision", "required; one of blocking, advisory or ignore")
        elif decision not in _DECISIONS:
            self.problem(
                f"{path}.decision", f"must be blocking, advisory or ignore, got {decision!r}"
            )
        invalidated = data.get("stateInvalidated", False)
        if not isinstance(invalidated, bool):
            self.problem(f"{path}.stateInvalidated", f"must be true or false, got {invalidated!r}")
        elif invalidated and decision == "ignore":
            self.problem(
                f"{path}.stateInvalidated", "needs decision blocking or advisory, not ignore"
            )
        note = data.get("note", "")
        if not isinstance(note, str):
            self.problem(f"{path}.note", "must be a string")

        match = data.get("match")
        fields: dict[str, Any] = {}
        target: Literal["log", "operation"] = "log"
        match_path = f"{path}.match"
        if "match" not in data:
            self.problem(match_path, "required; an object of conditions")
        elif not isinstance(match, Mapping):
            self.problem(match_path, "must be an object")
        else:
            self.unknown_keys(match_path, match, _LOG_KEYS + _OPERATION_KEYS)
            log_keys = [key for key in _LOG_KEYS if key in match]
            operation_keys = [key for key in _OPERATION_KEYS if key in match]
            if operation_keys:
                target = "operation"
            if log_keys and operation_keys:
                self.problem(
                    match_path,
                    f"mixes log keys ({', '.join(log_keys)}) with operation keys "
                    f"({', '.join(operation_keys)}); a rule matches log entries or operation "
                    "events, not both: split it into two rules",
                )
            elif operation_keys and "operationEvents" not in match:
                self.problem(
                    f"{match_path}.operationEvents",
                    "required when methodPattern or errorPattern is given",
                )
            elif not log_keys and not operation_keys:
                self.problem(
                    match_path,
                    "must name at least one condition: levels, sources or messagePattern "
                    "(log entries) or operationEvents (operation events)",
                )
            if "levels" in match:
                levels = self.string_list(f"{match_path}.levels", match["levels"], LEVELS)
                fields["levels"] = levels
                if levels and "debug" in levels and decision in ("blocking", "advisory"):
                    self.problem(
                        f"{match_path}.levels",
                        "debug lines are never attention; drop debug or use decision ignore",
                    )
            if "sources" in match:
                fields["sources"] = self.string_list(f"{match_path}.sources", match["sources"])
            if "messagePattern" in match:
                fields["message_pattern"] = self.pattern(
                    f"{match_path}.messagePattern", match["messagePattern"]
                )
            if "operationEvents" in match:
                fields["operation_events"] = self.string_list(
                    f"{match_path}.operationEvents", match["operationEvents"], OPERATION_EVENT_KINDS
                )
            if "methodPattern" in match:
                fields["method_pattern"] = self.pattern(
                    f"{match_path}.methodPattern", match["methodPattern"]
                )
            if "errorPattern" in match:
                fields["error_pattern"] = self.pattern(
                    f"{match_path}.errorPattern", match["errorPattern"]
                )
        if len(self.problems) != before:
            return None
        return Rule(
            index=index,
            target=target,
            decision=decision,  # type: ignore[arg-type]  # checked against _DECISIONS
            state_invalidated=bool(invalidated),
            note=str(note),
            **fields,
        )


class Policy:
    """A validated, compiled attention policy. Build one with :meth:`load`.

    Classification is cached per (level, source, message), so spam of one line costs a dict
    lookup. A policy is immutable and safe to share between threads.
    """

    def __init__(
        self,
        *,
        name: str,
        description: str,
        rules: tuple[Rule, ...],
        default: RuleDecision,
        origin: str,
    ) -> None:
        self.name = name
        self.description = description
        self.rules = rules
        self.default: RuleDecision = default
        self.origin = origin
        self._log_rules = tuple(rule for rule in rules if rule.target == "log")
        self._operation_rules = tuple(rule for rule in rules if rule.target == "operation")
        self._operation_kinds = frozenset(OUTCOME_KINDS).union(
            *(rule.operation_events or () for rule in self._operation_rules)
        )
        """Event kinds any operation rule or the default can count (the rest never do)."""
        self._default = (
            None if default == "ignore" else Decision(default == "blocking", False, -1, "default")
        )
        self._cache: dict[tuple[str, str, str], Decision | None] = {}
        self._cache_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<Policy {self.name!r} from {self.origin}: {len(self.rules)} rules>"

    # -- loading

    @classmethod
    def load(cls, spec: Policy | Mapping[str, Any] | str | os.PathLike[str]) -> Policy:
        """A shipped policy by name (``faithful``, ``recommended``), a JSON file, or a dict."""
        if isinstance(spec, Policy):
            return spec
        if isinstance(spec, Mapping):
            return cls.from_dict(spec)
        if isinstance(spec, str) and spec in BUILTIN_POLICIES:
            return cls.builtin(spec)
        if isinstance(spec, os.PathLike) or (isinstance(spec, str) and spec):
            path = Path(spec)
            if path.exists() or path.suffix == ".json":
                return cls.from_file(path)
            raise PolicyError(
                repr(spec),
                [
                    f"$: no such policy; expected {' or '.join(BUILTIN_POLICIES)} "
                    "or the path of a JSON file"
                ],
            )
        raise PolicyError(repr(spec), ["$: expected a policy name, a path or a dict"])

    @classmethod
    def builtin(cls, name: str) -> Policy:
        """One of the shipped policies (:data:`BUILTIN_POLICIES`)."""
        if name not in BUILTIN_POLICIES:
            raise PolicyError(
                repr(name), [f"$: no shipped policy named {name!r}; have {BUILTIN_POLICIES}"]
            )
        text = (
            resources.files("rimbridge_sim")
            .joinpath("policies", f"{name}.json")
            .read_text(encoding="utf-8")
        )
        return cls.from_json(text, origin=f"<shipped {name}>")

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> Policy:
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise PolicyError(str(path), [f"$: cannot read the file: {error}"]) from error
        return cls.from_json(text, origin=str(path))

    @classmethod
    def from_json(cls, text: str, *, origin: str = "<json>") -> Policy:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise PolicyError(
                origin,
                [f"$: not valid JSON: {error.msg} at line {error.lineno} column {error.colno}"],
            ) from error
        return cls.from_dict(data, origin=origin)

    @classmethod
    def from_dict(cls, data: object, *, origin: str = "<dict>") -> Policy:
        """Validate a policy document; :class:`PolicyError` lists every problem."""
        check = _Validator()
        if not isinstance(data, Mapping):
            raise PolicyError(origin, ["$: must be an object"])
        check.unknown_keys("$", data, _TOP_KEYS)
        name = data.get("name")
        if not isinstance(name, str) or not name:
            check.problem("$.name", "required; a non-empty string")
        description = data.get("description", "")
        if not isinstance(description, str):
            check.problem("$.description", "must be a string")
        default = data.get("default", "ignore")
        if default not in _DECISIONS:
            check.problem("$.default", f"must be blocking, advisory or ignore, got {default!r}")
        raw_rules = data.get("rules")
        rules: list[Rule] = []
        if not isinstance(raw_rules, list):
            check.problem("$.rules", "required; a list of rules")
        else:
            for index, raw in enumerate(raw_rules):
                rule = check.rule(index, raw)
                if rule is not None:
                    rules.append(rule)
        if check.problems:
            raise PolicyError(origin, check.problems)
        return cls(
            name=str(name),
            description=str(description),
            rules=tuple(rules),
            default=default,
            origin=origin,
        )

    def to_dict(self) -> dict[str, Any]:
        """The policy as a document :meth:`from_dict` accepts."""
        return {
            "name": self.name,
            "description": self.description,
            "rules": [rule.to_dict() for rule in self.rules],
            "default": self.default,
        }

    # -- classification

    def classify_log(self, entry: LogEntry) -> Decision | None:
        """How a log entry counts, or ``None`` when it is not attention (debug never is)."""
        return self.classify_line(entry.level, entry.source, entry.message)

    def classify_line(self, level: str, source: str, message: str) -> Decision | None:
        """:meth:`classify_log` on the three fields rules look at."""
        key = (level, source, message)
        cache = self._cache
        try:
            return cache[key]
        except KeyError:
            pass
        decision: Decision | None
        if level == "debug":
            decision = None
        else:
            decision = self._default
            for rule in self._log_rules:
                if rule.matches_log(level, source, message):
                    decision = _decision_of(rule)
                    break
        with self._cache_lock:
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()
            cache[key] = decision
        return decision

    def may_count_operation(self, kind: str) -> bool:
        """Whether :meth:`classify_operation` can count an event of ``kind`` at all."""
        return kind in self._operation_kinds

    @property
    def operation_kinds(self) -> frozenset[str]:
        """The event kinds :meth:`may_count_operation` is true for."""
        return self._operation_kinds

    def classify_operation(self, record: OperationRecord, kind: str) -> Decision | None:
        """How an operation event counts, or ``None`` when it is not attention."""
        if kind not in self._operation_kinds:  # most events: started, completed
            return None
        for rule in self._operation_rules:
            if rule.matches_operation(kind, record.method, record.error):
                return _decision_of(rule)
        return self._default if kind in OUTCOME_KINDS else None
