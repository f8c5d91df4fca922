"""Runtime claims: ``<config-dir>/<gameId>/runtime.json``, in the Go bridge's format.

A claim says a game is (being) run: by whom (the owner bridge process and its lease), which
process (pid and its start-time fingerprint), how (launch mode, profile, the hooks and the
built-in stop pinned at launch), on which GABP endpoint (port and per-launch token), and what
lifecycle step is in flight. It outlives the bridge that wrote it, so a second bridge on the
same config folder, a CLI command or a restarted bridge sees the game and never launches a
duplicate. Writes are atomic (temporary file and rename) with mode 0600; the folder is 0700.
Keys this bridge does not use are kept.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import stat
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from gabp.handoff import write_secret_file
from gabs.config import ensure_game_dir
from gabs.launch.resolve import ResolvedLifecycle

from .claim_fields import claim_type_problem
from .procs import verify_pid

__all__ = [
    "CLAIM_FILE",
    "SCHEMA_VERSION",
    "ActionResult",
    "Attachment",
    "ClaimError",
    "Operation",
    "RuntimeState",
    "format_seconds",
    "format_time",
    "load_claim",
    "new_id",
    "parse_time",
    "remove_claim",
    "save_claim",
]

CLAIM_FILE: Final = "runtime.json"
SCHEMA_VERSION: Final = 2
_FRACTION: Final = re.compile(r"(\.\d{1,6})\d*")


class ClaimError(OSError):
    """A claim exists but cannot be read (corrupt, not a regular file, unreadable)."""


def new_id() -> str:
    """A random 32-hex-digit id (launch, operation and connection ids)."""
    return secrets.token_hex(16)


def utcnow() -> datetime:
    return datetime.now(UTC)


def format_time(value: datetime | None) -> str:
    """RFC 3339 in UTC with a ``Z`` (the Go bridge's form); the zero time for None."""
    if value is None:
        return "0001-01-01T00:00:00Z"
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def format_seconds(value: datetime | None) -> str:
    """RFC 3339 in UTC to the second, as the Go bridge shows a time in a result or message."""
    return format_time(value).split(".")[0].rstrip("Z") + "Z"


def parse_time(text: Any) -> datetime | None:
    """A time written by either bridge (up to nanoseconds); None for the zero time."""
    if not isinstance(text, str) or not text or text.startswith("0001-01-01"):
        return None
    cleaned = _FRACTION.sub(r"\1", text.replace("Z", "+00:00"))
    try:
        parsed = datetime.fromisoformat(cleaned)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


@dataclass
class Operation:
    """The lifecycle step in flight (start, stop or kill) and its deadline."""

    operation_id: str
    action: str
    executor_instance_id: str = ""
    executor_pid: int = 0
    executor_pid_start_time: int = 0
    attempt_started_at: datetime | None = None
    deadline: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"operationId": self.operation_id, "action": self.action}
        if self.executor_instance_id:
            data["executorInstanceId"] = self.executor_instance_id
        if self.executor_pid:
            data["executorPid"] = self.executor_pid
        if self.executor_pid_start_time:
            data["executorPidStartTime"] = self.executor_pid_start_time
        data["attemptStartedAt"] = format_time(self.attempt_started_at)
        data["deadline"] = format_time(self.deadline)
        return data

    @classmethod
    def from_json(cls, data: Any) -> Operation | None:
        if not isinstance(data, dict):
            return None
        return cls(
            operation_id=_str(data.get("operationId")),
            action=_str(data.get("action")),
            executor_instance_id=_str(data.get("executorInstanceId")),
            executor_pid=_int(data.get("executorPid")),
            executor_pid_start_time=_int(data.get("executorPidStartTime")),
            attempt_started_at=parse_time(data.get("attemptStartedAt")),
            deadline=parse_time(data.get("deadline")),
        )

    def executor_gone(self) -> bool:
        """Whether the bridge process running the step is provably gone (unknown is not)."""
        if self.executor_pid <= 0:
            return False
        return verify_pid(self.executor_pid, self.executor_pid_start_time)[0] == "stopped"

    def in_flight(self, now: datetime) -> bool:
        """A step within its deadline whose executor is not provably gone."""
        return self.deadline is not None and now < self.deadline and not self.executor_gone()


@dataclass
class Attachment:
    """A bridge's live GABP connection to the game, renewed while it lasts."""

    connection_id: str
    owner_instance_id: str = ""
    owner_pid: int = 0
    owner_pid_start_time: int = 0
    observed_at: datetime | None = None
    lease_deadline: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"connectionId": self.connection_id}
        if self.owner_instance_id:
            data["ownerInstanceId"] = self.owner_instance_id
        if self.owner_pid:
            data["ownerPid"] = self.owner_pid
        if self.owner_pid_start_time:
            data["ownerPidStartTime"] = self.owner_pid_start_time
        data["observedAt"] = format_time(self.observed_at)
        data["leaseDeadline"] = format_time(self.lease_deadline)
        return data

    @classmethod
    def from_json(cls, data: Any) -> Attachment | None:
        if not isinstance(data, dict):
            return None
        return cls(
            connection_id=_str(data.get("connectionId")),
            owner_instance_id=_str(data.get("ownerInstanceId")),
            owner_pid=_int(data.get("ownerPid")),
            owner_pid_start_time=_int(data.get("ownerPidStartTime")),
            observed_at=parse_time(data.get("observedAt")),
            lease_deadline=parse_time(data.get("leaseDeadline")),
        )


@dataclass
class ActionResult:
    """The last stop or kill attempt's outcome (kept when the claim stays)."""

    action: str
    outcome: str
    exit_code: int | None = None
    stderr_tail: str = ""
    detail: str = ""
    tree_kill_warning: bool = False
    timestamp: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"action": self.action, "outcome": self.outcome}
        if self.exit_code is not None:
            data["exitCode"] = self.exit_code
        if self.stderr_tail:
            data["stderrTail"] = self.stderr_tail
        if self.detail:
            data["detail"] = self.detail
        if self.tree_kill_warning:
            data["treeKillWarning"] = True
        data["timestamp"] = format_time(self.timestamp)
        return data

    @classmethod
    def from_json(cls, data: Any) -> ActionResult | None:
        if not isinstance(data, dict):
            return None
        code = data.get("exitCode")
        return cls(
            action=_str(data.get("action")),
            outcome=_str(data.get("outcome")),
            exit_code=code if isinstance(code, int) and not isinstance(code, bool) else None,
            stderr_tail=_str(data.get("stderrTail")),
            detail=_str(data.get("detail")),
            tree_kill_warning=data.get("treeKillWarning") is True,
            timestamp=parse_time(data.get("timestamp")),
        )


@dataclass
class RuntimeState:
    """One claim (``runtime.json``)."""

    game_id: str
    status: str = "starting"
    owner_pid: int = 0
    owner_instance_id: str = ""
    owner_lease_until: datetime | None = None
    owner_last_active: datetime | None = None
    game_pid: int = 0
    stop_process_name: str = ""
    updated_at: datetime | None = None
    schema_version: int = SCHEMA_VERSION
    launch_id: str = ""
    generation: int = 1
    phase: str = "starting"
    spawn_state: str = "preflight"
    source: str = "gabs"
    launch_mode: str = ""
    pid_role: str = "workload"
    pid_start_time: int = 0
    adopted: bool = False
    profile: str = ""
    applied_input_names: list[str] = field(default_factory=list)
    config_revision: str = ""
    lifecycle: ResolvedLifecycle | None = None
    graceful_strategy: str = "sigterm"
    force_strategy: str = "sigkill"
    endpoint_port: int = 0
    endpoint_token: str = field(default="", repr=False)
    operation: Operation | None = None
    attachment: Attachment | None = None
    last_action_result: ActionResult | None = None
    process_start_deadline: datetime | None = None
    observed_profile: str = ""
    normalized_from_legacy: bool = False
    history_context_hash: str = ""
    """The track record's context hash of this launch, pinned at its start (Go's
    ``historyContextHash``): a connect and a clean stop are credited to it."""
    context_digests: dict[str, Any] | None = field(default=None, repr=False)
    """The salted digests of the launch context handed over, pinned at spawn (Go's
    ``contextDigests``, :mod:`gabs.lifecycle.digests`)."""
    context_delivery: dict[str, Any] | None = None
    """The latest connection's delivery verdict (Go's ``contextDelivery``)."""
    extra: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def has_endpoint(self) -> bool:
        return self.endpoint_port > 0 and bool(self.endpoint_token)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = dict(self.extra)
        data.update(
            {
                "gameId": self.game_id,
                "status": self.status,
                "ownerPid": self.owner_pid,
            }
        )
        if self.owner_instance_id:
            data["ownerInstanceId"] = self.owner_instance_id
        # Always written, the zero time when unset, as Go writes its time fields.
        data["ownerLeaseUntil"] = format_time(self.owner_lease_until)
        data["ownerLastActive"] = format_time(self.owner_last_active)
        optional: dict[str, Any] = {
            "gamePid": self.game_pid,
            "stopProcessName": self.stop_process_name,
        }
        data.update({key: value for key, value in optional.items() if value})
        data["updatedAt"] = format_time(self.updated_at or utcnow())
        rest: dict[str, Any] = {
            "schemaVersion": self.schema_version,
            "launchId": self.launch_id,
            "generation": self.generation,
            "phase": self.phase,
            "spawnState": self.spawn_state,
            "source": self.source,
            "launchMode": self.launch_mode,
            "pidRole": self.pid_role,
            "pidStartTime": self.pid_start_time,
            "adopted": self.adopted,
            "profile": self.profile,
            "appliedInputNames": self.applied_input_names,
            "configRevision": self.config_revision,
            "lifecycle": self.lifecycle.to_json() if self.lifecycle else None,
            "builtinFallback": {
                "gracefulStrategy": self.graceful_strategy,
                "forceStrategy": self.force_strategy,
            },
            "endpoint": {"port": self.endpoint_port, "token": self.endpoint_token}
            if self.has_endpoint
            else None,
            "operation": self.operation.to_json() if self.operation else None,
            "attachment": self.attachment.to_json() if self.attachment else None,
            "lastActionResult": self.last_action_result.to_json()
            if self.last_action_result
            else None,
            "observedProfile": self.observed_profile,
            "normalizedFromLegacy": self.normalized_from_legacy,
            "historyContextHash": self.history_context_hash,
            "contextDigests": self.context_digests,
            "contextDelivery": self.context_delivery,
        }
        data.update({key: value for key, value in rest.items() if value})
        data["processStartDeadline"] = format_time(self.process_start_deadline)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RuntimeState:
        endpoint = _dict(data.get("endpoint"))
        fallback = _dict(data.get("builtinFallback"))
        known = {
            "gameId", "status", "ownerPid", "ownerInstanceId", "ownerLeaseUntil",
            "ownerLastActive", "gamePid", "stopProcessName", "updatedAt", "schemaVersion",
            "launchId", "generation", "phase", "spawnState", "source", "launchMode", "pidRole",
            "pidStartTime", "adopted", "profile", "appliedInputNames", "configRevision",
            "lifecycle", "builtinFallback", "endpoint", "operation", "attachment",
            "lastActionResult", "processStartDeadline", "observedProfile",
            "normalizedFromLegacy", "historyContextHash", "contextDigests", "contextDelivery",
        }  # fmt: skip
        names = data.get("appliedInputNames")
        digests, delivery = data.get("contextDigests"), data.get("contextDelivery")
        return cls(
            game_id=_str(data.get("gameId")),
            status=_str(data.get("status")),
            owner_pid=_int(data.get("ownerPid")),
            owner_instance_id=_str(data.get("ownerInstanceId")),
            owner_lease_until=parse_time(data.get("ownerLeaseUntil")),
            owner_last_active=parse_time(data.get("ownerLastActive")),
            game_pid=_int(data.get("gamePid")),
            stop_process_name=_str(data.get("stopProcessName")),
            updated_at=parse_time(data.get("updatedAt")),
            schema_version=_int(data.get("schemaVersion")),
            launch_id=_str(data.get("launchId")),
            generation=_int(data.get("generation")),
            phase=_str(data.get("phase")),
            spawn_state=_str(data.get("spawnState")),
            source=_str(data.get("source")) or "gabs",
            launch_mode=_str(data.get("launchMode")),
            pid_role=_str(data.get("pidRole")) or "workload",
            pid_start_time=_int(data.get("pidStartTime")),
            adopted=data.get("adopted") is True,
            profile=_str(data.get("profile")),
            applied_input_names=[n for n in names if isinstance(n, str)]
            if isinstance(names, list)
            else [],
            config_revision=_str(data.get("configRevision")),
            lifecycle=ResolvedLifecycle.from_json(data.get("lifecycle")),
            graceful_strategy=_str(fallback.get("gracefulStrategy")) or "sigterm",
            force_strategy=_str(fallback.get("forceStrategy")) or "sigkill",
            endpoint_port=_int(endpoint.get("port")),
            endpoint_token=_str(endpoint.get("token")),
            operation=Operation.from_json(data.get("operation")),
            attachment=Attachment.from_json(data.get("attachment")),
            last_action_result=ActionResult.from_json(data.get("lastActionResult")),
            process_start_deadline=parse_time(data.get("processStartDeadline")),
            observed_profile=_str(data.get("observedProfile")),
            normalized_from_legacy=data.get("normalizedFromLegacy") is True,
            history_context_hash=_str(data.get("historyContextHash")),
            context_digests=digests if isinstance(digests, dict) and digests else None,
            context_delivery=delivery if isinstance(delivery, dict) and delivery else None,
            extra={key: value for key, value in data.items() if key not in known},
        )

    @property
    def effective_profile(self) -> str:
        if self.source == "external" and self.observed_profile not in ("", "unknown"):
            return self.observed_profile
        return self.profile


def claim_path(game_dir: Path) -> Path:
    return game_dir / CLAIM_FILE


#: The largest claim file read (a claim is a few KiB; anything far larger is not one).
MAX_CLAIM_BYTES: Final = 4 * 1024 * 1024


def _read_tightened(path: Path) -> bytes:
    """The file's bytes, read through one handle that is proven to be a regular file; a claim
    others may read (written so by an older bridge) is made private through that handle."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ClaimError(f"{path} is not a regular file")
        if info.st_size > MAX_CLAIM_BYTES:
            raise ClaimError(f"{path} is corrupt: {info.st_size} bytes (at most {MAX_CLAIM_BYTES})")
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        raw = b"".join(chunks)
        if os.name == "posix" and info.st_mode & 0o077:
            try:
                os.fchmod(fd, 0o600)
            except OSError as exc:
                raise ClaimError(
                    f"{path} is readable by others (mode {info.st_mode & 0o777:o}) and cannot be "
                    f"made private: {exc.strerror or exc}"
                ) from None
        return raw
    finally:
        os.close(fd)


def load_claim(game_dir: Path) -> RuntimeState | None:
    """The claim in ``game_dir``; None when there is none; :class:`ClaimError` when it exists
    but cannot be used."""
    path = claim_path(game_dir)
    try:
        if path.is_symlink() or (path.exists() and not path.is_file()):
            raise ClaimError(f"{path} is not a regular file")
        raw = _read_tightened(path)
    except FileNotFoundError:
        return None
    except ClaimError:
        raise
    except OSError as exc:
        raise ClaimError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ClaimError(f"{path} is corrupt: {exc}") from None
    if not isinstance(data, dict):
        raise ClaimError(f"{path} is corrupt: not a JSON object")
    problem = claim_type_problem(data)
    if problem is not None:
        raise ClaimError(f"{path} is corrupt: {problem}")
    return RuntimeState.from_json(data)


def save_claim(game_dir: Path, state: RuntimeState) -> None:
    """Write the claim atomically with mode 0600 (it holds the per-launch token)."""
    ensure_game_dir(game_dir)
    state.updated_at = utcnow()
    data = json.dumps(state.to_json(), indent=2) + "\n"
    write_secret_file(claim_path(game_dir), data.encode("utf-8"))


def remove_claim(game_dir: Path) -> None:
    """Remove ``runtime.json`` itself, never what a symlink there points to; an empty folder in
    its place goes too, as the Go bridge's ``os.Remove`` removes it."""
    path = claim_path(game_dir)
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    except OSError:
        if path.is_symlink() or not path.is_dir():
            raise
        path.rmdir()
