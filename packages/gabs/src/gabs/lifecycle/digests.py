"""The launch-context digests a launch pins, and their comparison with what the game reports.

At spawn the bridge pins, in the claim (``contextDigests``), salted SHA-256 digests of what
it hands the game over four channels: the argument payload (without ``argv[0]``, which a
wrapper legitimately changes), the working directory (in one canonical form), the values of
its own variables (``managedEnv``) and of the config's (``contextEnv``), each under its name,
with the names that must stay absent. The game's welcome may carry what it received
(``observed``: ``argv``, ``cwd``, ``envValues``, ``envAbsent``); the bridge digests that,
compares it per channel and keeps only the verdict. The algorithm, the claim's field names
and every reason are the Go bridge's (``internal/process/context_delivery.go``), so either
bridge verifies a launch the other pinned.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from gabs.go_format import go_reason

__all__ = [
    "Observed",
    "argv_payload",
    "canonical_cwd",
    "compute_digests",
    "evaluate_delivery",
    "parse_observed",
    "spawn_digests",
]

NOT_PINNED: Final = "no expected-context digests were pinned at spawn"
NOT_REPORTED: Final = "the bridge reported no observed context (pre-report bridge)"


@dataclass(frozen=True)
class Observed:
    """A welcome's ``observed`` report; ``None`` lists were not in it."""

    argv: list[str] | None = None
    cwd: str = ""
    env_values: dict[str, str] | None = None
    env_absent: list[str] | None = None


def _text(value: Any) -> str:
    """A reported string; a JSON null reads as empty (Go decodes it so, without an error)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TypeError
    return value


def _strings(value: Any) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise TypeError
    return [_text(v) for v in value]


def _member(raw: Mapping[str, Any], name: str) -> Any:
    """The report's member ``name``, matched as Go's decoder matches it: the exact name or
    any other letter case, the last such member winning."""
    found = None
    for key, value in raw.items():
        if isinstance(key, str) and key.lower() == name.lower():
            found = value
    return found


def parse_observed(welcome: Mapping[str, Any] | None) -> Observed | None:
    """The welcome's report, or None when there is none (or it is not in the wire shape: the
    Go bridge drops a report it cannot decode whole)."""
    raw = welcome.get("observed") if welcome is not None else None
    if not isinstance(raw, Mapping):
        return None
    try:
        values = _member(raw, "envValues")
        if values is not None and not isinstance(values, Mapping):
            raise TypeError
        return Observed(
            argv=_strings(_member(raw, "argv")),
            cwd=_text(_member(raw, "cwd")),
            env_values={k: _text(v) for k, v in values.items()} if values is not None else None,
            env_absent=_strings(_member(raw, "envAbsent")),
        )
    except TypeError:
        return None


def argv_payload(target: str, args: Sequence[str]) -> list[str]:
    """The arguments the workload receives: all of them, except after ``cmd.exe /c
    script``, where the script's own tokens are the launch's prefix."""
    base = target.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if base in ("cmd", "cmd.exe") and len(args) >= 2 and args[0].lower() == "/c":
        return list(args[2:])
    return list(args)


def canonical_cwd(path: str) -> str:
    """Absolute, symlinks resolved (every part must exist), case and separators folded on
    Windows; OSError (worded as the Go bridge's) when that cannot be done."""
    if not path.strip():
        raise OSError("empty working directory")
    absolute = os.path.abspath(path)
    try:
        resolved = os.path.realpath(absolute, strict=True)
    except OSError as exc:
        raise OSError(_eval_symlinks_error(exc, absolute)) from None
    if os.name == "nt":
        resolved = resolved.replace("\\", "/").lower()
    return resolved


def _eval_symlinks_error(exc: OSError, absolute: str) -> str:
    """The text Go's ``filepath.EvalSymlinks`` gives for the same failure: a part that is not
    a directory is a bare ``not a directory``, a symlink loop ``EvalSymlinks: too many links``
    (neither names a path), anything else the ``lstat`` of the failing part."""
    if exc.errno == errno.ENOTDIR:
        return go_reason(exc)
    if exc.errno == errno.ELOOP:
        return "EvalSymlinks: too many links"
    return f"lstat {exc.filename or absolute}: {go_reason(exc)}"


def _value_digest(salt: str, value: str) -> str:
    return hashlib.sha256(f"{salt}\x00{value}".encode()).hexdigest()


def _argv_digest(salt: str, payload: Sequence[str]) -> str:
    digest = hashlib.sha256(salt.encode())
    for item in payload:
        raw = item.encode()
        digest.update(len(raw).to_bytes(8, "big"))
        digest.update(raw)
    return digest.hexdigest()


def compute_digests(
    payload: Sequence[str],
    cwd: str,
    cwd_unverifiable: bool,
    managed_env: Mapping[str, str],
    context_env: Mapping[str, str],
    absent: Sequence[str],
) -> dict[str, Any]:
    """The claim's ``contextDigests`` (a fresh salt each time)."""
    salt = secrets.token_hex(16)
    digests: dict[str, Any] = {"salt": salt, "argvSha256": _argv_digest(salt, payload)}
    if not cwd_unverifiable:
        # a directory that cannot be canonicalized gets no digest: the channel is unknown
        with contextlib.suppress(OSError):
            digests["cwdSha256"] = _value_digest(salt, canonical_cwd(cwd))
    if managed_env:
        digests["managedEnvSha256"] = {k: _value_digest(salt, v) for k, v in managed_env.items()}
    if context_env:
        digests["contextEnvSha256"] = {k: _value_digest(salt, v) for k, v in context_env.items()}
    if absent:
        digests["absentEnvNames"] = sorted(absent)
    if cwd_unverifiable:
        digests["cwdUnverifiable"] = True
    return digests


def _names(listed: str) -> list[str]:
    return [n.strip() for n in listed.split(",") if n.strip()]


def spawn_digests(
    target: str,
    args: Sequence[str],
    working_dir: str,
    env: Mapping[str, str],
    context_env_keys: Sequence[str],
) -> dict[str, Any]:
    """The digests of a launch, from its complete environment: the names ``GABS_FORWARD_ENV``
    lists (every ``GABS_*``/``GABP_*`` name without one), the config's names as
    ``contextEnv``, the others as ``managedEnv``, and the names ``GABS_ABSENT_ENV`` lists.
    No working directory is the bridge's own; a relative one cannot be compared."""
    context_keys = set(context_env_keys)
    managed: dict[str, str] = {}
    context: dict[str, str] = {}
    forwarded = env.get("GABS_FORWARD_ENV", "").strip()
    if forwarded:
        chosen = [n for n in _names(forwarded) if n in env]
    else:
        chosen = [n for n in env if n.startswith(("GABS_", "GABP_"))]
    for name in chosen:
        (context if name in context_keys else managed)[name] = env[name]
    cwd, unverifiable = working_dir, False
    if not cwd:
        try:
            cwd = os.getcwd()
        except OSError:
            unverifiable = True
    elif not os.path.isabs(cwd):
        unverifiable = True
    absent = _names(env.get("GABS_ABSENT_ENV", ""))
    return compute_digests(argv_payload(target, args), cwd, unverifiable, managed, context, absent)


class _Channel:
    """One channel's comparisons: any mismatch wins, then anything unknown."""

    def __init__(self) -> None:
        self.mismatch: list[str] = []
        self.unknown: list[str] = []

    def verdict(self) -> str:
        return "mismatched" if self.mismatch else "unknown" if self.unknown else "verified"

    def reason(self) -> str:
        return "; ".join(self.mismatch or self.unknown)


def _env_channel(
    channel: _Channel, digests: Mapping[str, Any], salt: str, seen: Observed, reported: bool
) -> None:
    values, absent = seen.env_values or {}, seen.env_absent or []
    for name in sorted(digests):
        present, gone = name in values, name in absent
        if not reported:
            channel.unknown.append(f"{name} unreported (the welcome omits the env lists)")
        elif present and gone:
            channel.mismatch.append(
                f"{name} reported both present and absent (contradictory report)"
            )
        elif present:
            if _value_digest(salt, values[name]) != digests[name]:
                channel.mismatch.append(f"{name} differs from the resolved value")
        elif gone:
            channel.mismatch.append(
                f"{name} was expected present but is positively absent in the workload"
            )
        else:
            channel.unknown.append(f"{name} unreported")


def _dict(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def evaluate_delivery(digests: Mapping[str, Any] | None, seen: Observed | None) -> dict[str, Any]:
    """The verdict (``overall``, ``channels``, ``reasons``) of a report against the digests."""
    channels: dict[str, str] = {}
    reasons: dict[str, str] = {}
    if digests is None:
        return {"overall": "unknown", "reasons": {"overall": NOT_PINNED}}
    salt = str(digests.get("salt") or "")
    argv_digest = str(digests.get("argvSha256") or "")
    managed, context = (
        _dict(digests.get("managedEnvSha256")),
        _dict(digests.get("contextEnvSha256")),
    )
    absent_names = [n for n in digests.get("absentEnvNames") or [] if isinstance(n, str)]
    expect_context = bool(context or absent_names)
    if seen is None:  # an old bridge: unknown, never partial
        expected = [("argv", bool(argv_digest)), ("cwd", True), ("managedEnv", bool(managed))]
        for name, expect in [*expected, ("contextEnv", expect_context)]:
            if expect:
                channels[name], reasons[name] = "unknown", NOT_REPORTED
        return {"overall": "unknown", "channels": channels, "reasons": reasons}

    if argv_digest:
        if not seen.argv:
            channels["argv"], reasons["argv"] = "unknown", "argv not reported"
        elif _argv_digest(salt, seen.argv[1:]) == argv_digest:
            channels["argv"] = "verified"
        else:
            channels["argv"] = "mismatched"
            reasons["argv"] = (
                "the observed argument payload differs from the resolved launch arguments"
            )
    cwd_digest = str(digests.get("cwdSha256") or "")
    if digests.get("cwdUnverifiable") is True:
        channels["cwd"] = "unverifiable"
        reasons["cwd"] = (
            "the working directory cannot be compared by contract (legacy relative workingDir)"
        )
    elif not cwd_digest:
        channels["cwd"] = "unknown"
        reasons["cwd"] = "the spawn-side working directory could not be canonicalized"
    elif not seen.cwd:
        channels["cwd"], reasons["cwd"] = "unknown", "working directory not reported"
    else:
        try:
            canonical = canonical_cwd(seen.cwd)
        except OSError as exc:
            channels["cwd"] = "unknown"
            reasons["cwd"] = f"the reported working directory could not be canonicalized: {exc}"
        else:
            if _value_digest(salt, canonical) == cwd_digest:
                channels["cwd"] = "verified"
            else:
                channels["cwd"] = "mismatched"
                reasons["cwd"] = "the observed working directory differs from the resolved one"

    reported = seen.env_values is not None or seen.env_absent is not None
    managed_channel, context_channel = _Channel(), _Channel()
    _env_channel(managed_channel, managed, salt, seen, reported)
    _env_channel(context_channel, context, salt, seen, reported)
    values, gone_names = seen.env_values or {}, seen.env_absent or []
    for name in absent_names:
        present, gone = name in values, name in gone_names
        if not reported:
            context_channel.unknown.append(
                f"absence of {name} unreported (the welcome omits the env lists)"
            )
        elif present and gone:
            context_channel.mismatch.append(
                f"{name} reported both present and absent (contradictory report)"
            )
        elif present:  # a boundary put it back
            context_channel.mismatch.append(
                f"{name} was meant to be absent but is present in the workload"
            )
        elif not gone:
            context_channel.unknown.append(f"absence of {name} unreported")
    for name, channel, expect in (
        ("managedEnv", managed_channel, bool(managed)),
        ("contextEnv", context_channel, expect_context),
    ):
        if expect:
            channels[name] = channel.verdict()
            if channel.reason():
                reasons[name] = channel.reason()

    verdicts = set(channels.values())
    if "mismatched" in verdicts:
        overall = "partial"
    elif "verified" in verdicts:
        overall = "partial" if verdicts & {"unknown", "unverifiable"} else "verified"
    else:
        overall = "unknown"
    verdict: dict[str, Any] = {"overall": overall, "channels": channels}
    if reasons:
        verdict["reasons"] = reasons
    return verdict
