"""The environments the bridge gives: to a launched game and to a lifecycle hook.

A game gets the resolved layers and then the bridge's own variables, which always win:
``GABS_GAME_ID``, ``GABS_BRIDGE_PATH`` (the path of its ``bridge.json``), ``GABP_SERVER_PORT``,
``GABP_TOKEN``, ``GABS_PROFILE`` (with a profile), ``SteamAppId``/``SteamGameId``
(``SteamManaged``), ``GABS_ABSENT_ENV`` (names that must stay unset) and ``GABS_FORWARD_ENV``
(every name a wrapper must carry across an environment boundary). A hook gets the inherited
environment without any ``GABS_*``/``GABP_*``, its ``unsetEnv`` and ``env``, then
``GABS_GAME_ID`` and ``GABS_PROFILE``: never the port or the token.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from .resolve import Resolved, ResolvedHook, strip_reserved

__all__ = ["game_environment", "hook_environment"]

_CASE_INSENSITIVE = os.name == "nt"


def _same(a: str, b: str) -> bool:
    return a.upper() == b.upper() if _CASE_INSENSITIVE else a == b


def game_environment(
    resolved: Resolved,
    *,
    launch_mode: str,
    target: str,
    bridge_path: str,
    port: int,
    token: str,
) -> dict[str, str]:
    """The complete environment of the launched game."""
    managed = {
        "GABS_GAME_ID": resolved.game_id,
        "GABS_BRIDGE_PATH": bridge_path,
        "GABP_SERVER_PORT": str(port),
        "GABP_TOKEN": token,
    }
    if launch_mode == "SteamManaged":
        managed["SteamAppId"] = target
        managed["SteamGameId"] = target
    if resolved.profile:
        managed["GABS_PROFILE"] = resolved.profile
    if os.name == "nt":
        root = os.environ.get("SYSTEMROOT") or "C:\\Windows"
        managed["SystemRoot"] = root
        managed["WINDIR"] = os.environ.get("WINDIR") or root
    absent = [
        name for name in resolved.absent_env_names if not any(_same(name, key) for key in managed)
    ]
    if absent:
        managed["GABS_ABSENT_ENV"] = ",".join(absent)
    forward = sorted({*managed, "GABS_FORWARD_ENV", *resolved.context_env_keys})
    managed["GABS_FORWARD_ENV"] = ",".join(forward)
    env = dict(resolved.env)
    for key, value in managed.items():
        if _CASE_INSENSITIVE:
            for existing in [k for k in env if k != key and k.upper() == key.upper()]:
                del env[existing]
        env[key] = value
    return env


def hook_environment(
    hook: ResolvedHook,
    *,
    game_id: str,
    profile: str,
    inherited: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment a lifecycle hook runs with."""
    env = strip_reserved(os.environ if inherited is None else inherited)

    def drop(name: str) -> None:
        for key in [k for k in env if _same(k, name)]:
            del env[key]

    for name in hook.unset_env:
        drop(name)
    for key, value in hook.env.items():
        drop(key)
        env[key] = value
    env["GABS_GAME_ID"] = game_id
    if profile:
        env["GABS_PROFILE"] = profile
    return env
