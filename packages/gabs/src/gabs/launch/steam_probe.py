"""One look at whether the installed Steam client is ready for an app (macOS only).

It runs in a child process of the bridge (:mod:`gabs.launch.steam_ready` starts it), because
it loads Steam's own libraries into the process: first the client library
(``steamclient.dylib``: a pipe to the client, then the logged-in global user), then the Steam
API library (``libsteam_api.dylib``: ``SteamAPI_InitFlat`` as the app, the app interface, and
whether the app is subscribed and installed), and shuts the API down again. The furthest stage
reached is the answer: ``ready`` only at ``app_state``.

Every other platform answers ``unavailable``: the bridge never asks there.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

__all__ = ["Observation", "probe_app"]

#: ``{"state": ready | not_ready | unavailable, "stage": ..., "detail"?: ...}``
Observation = dict[str, str]

RANKS: Final = {
    "client_library": 1,
    "ipc_pipe": 2,
    "global_user": 3,
    "steam_api": 4,
    "app_interface": 5,
    "app_state": 6,
}
_APPS_ACCESSORS: Final = tuple(f"SteamAPI_SteamApps_v{n:03d}" for n in range(16, 7, -1))
_STEAM_ROOT: Final = ("Library", "Application Support", "Steam", "Steam.AppBundle", "Steam")
_HELPER: Final = ("Steam Helper.app", "Contents", "MacOS", "libsteam_api.dylib")


def _seen(paths: list[Path]) -> list[Path]:
    return list(dict.fromkeys(paths))


def client_libraries(home: Path | None = None) -> list[Path]:
    """Where the Steam client library is on a Mac, the user's Steam first."""
    paths = []
    home = home or Path.home()
    contents = home.joinpath(*_STEAM_ROOT, "Contents")
    paths += [
        contents / "MacOS" / "steamclient.dylib",
        contents / "Frameworks" / "steamclient.dylib",
    ]
    system = Path("/Applications/Steam.app/Contents")
    paths += [system / "MacOS" / "steamclient.dylib", system / "Frameworks" / "steamclient.dylib"]
    return _seen(paths)


def api_libraries(home: Path | None = None) -> list[Path]:
    """Where the Steam API library (inside the client's helper app) is on a Mac."""
    paths = []
    for contents in (
        (home or Path.home()).joinpath(*_STEAM_ROOT, "Contents"),
        Path("/Applications/Steam.app/Contents"),
    ):
        paths += [
            contents.joinpath("MacOS", "Frameworks", *_HELPER),
            contents.joinpath("Frameworks", *_HELPER),
        ]
    return _seen(paths)


def _observation(state: str, stage: str, detail: str = "") -> Observation:
    found = {"state": state, "stage": stage}
    if detail:
        found["detail"] = detail
    return found


def _function(library: Any, name: str, restype: Any, *argtypes: Any) -> Any:
    function = getattr(library, name)  # AttributeError when the symbol is missing
    function.restype = restype
    function.argtypes = list(argtypes)
    return function


def _client(library: Any, path: Path) -> Observation:
    try:
        create = _function(library, "Steam_CreateSteamPipe", ctypes.c_int32)
        connect = _function(library, "Steam_ConnectToGlobalUser", ctypes.c_int32, ctypes.c_int32)
        release_user = _function(library, "Steam_ReleaseUser", None, ctypes.c_int32, ctypes.c_int32)
        release_pipe = _function(library, "Steam_BReleaseSteamPipe", ctypes.c_bool, ctypes.c_int32)
    except AttributeError as exc:
        return _observation("unavailable", "client_library", f"{path} lacks a symbol: {exc}")
    pipe = create()
    if pipe == 0:
        return _observation("not_ready", "ipc_pipe", "Steam_CreateSteamPipe returned no pipe")
    user = connect(pipe)
    if user == 0:
        release_pipe(pipe)
        return _observation(
            "not_ready", "global_user", "Steam_ConnectToGlobalUser returned no user"
        )
    release_user(pipe, user)
    release_pipe(pipe)
    return _observation("ready", "global_user")


def _app_state(subscribed: bool, installed: bool) -> Observation:
    if subscribed and installed:
        return _observation("ready", "app_state")
    if installed:
        missing = "its install state but not its subscription state"
    elif subscribed:
        missing = "its subscription state but not its install state"
    else:
        return _observation(
            "not_ready",
            "app_state",
            "Steam has not loaded the app's subscription and install state",
        )
    return _observation("not_ready", "app_state", f"Steam has loaded the app's {missing}")


def _api(library: Any, path: Path, app_id: int) -> Observation:
    try:
        init = _function(library, "SteamAPI_InitFlat", ctypes.c_int32, ctypes.c_char_p)
        shutdown = _function(library, "SteamAPI_Shutdown", None)
    except AttributeError as exc:
        return _observation("unavailable", "steam_api", f"{path} lacks a symbol: {exc}")
    accessor = next((getattr(library, n) for n in _APPS_ACCESSORS if hasattr(library, n)), None)
    if accessor is None:
        return _observation("unavailable", "app_interface", "no compatible app-state accessor")
    accessor.restype, accessor.argtypes = ctypes.c_void_p, []
    try:
        subscribed = _function(
            library, "SteamAPI_ISteamApps_BIsSubscribedApp", ctypes.c_bool, ctypes.c_void_p,
            ctypes.c_uint32,
        )  # fmt: skip
        installed = _function(
            library, "SteamAPI_ISteamApps_BIsAppInstalled", ctypes.c_bool, ctypes.c_void_p,
            ctypes.c_uint32,
        )  # fmt: skip
    except AttributeError as exc:
        return _observation("unavailable", "app_interface", f"{path} lacks a symbol: {exc}")
    message = ctypes.create_string_buffer(1024)
    result = init(message)
    if result != 0:
        detail = message.value.decode("utf-8", "replace").strip()
        return _observation(
            "not_ready", "steam_api", detail or f"SteamAPI_InitFlat returned result {result}"
        )
    try:
        apps = accessor()
        if not apps:
            return _observation(
                "not_ready", "app_interface", "the app-state interface is not ready for the user"
            )
        return _app_state(bool(subscribed(apps, app_id)), bool(installed(apps, app_id)))
    finally:
        shutdown()


def _first_usable(
    paths: list[Path], stage: str, label: str, look: Callable[[Any, Path], Observation]
) -> Observation:
    """The first library that loads and gives an answer; the best 'unavailable' otherwise."""
    failures: list[str] = []
    best: Observation | None = None
    for path in paths:
        try:
            library = ctypes.CDLL(str(path), mode=os.RTLD_NOW | os.RTLD_LOCAL)
        except OSError as exc:
            failures.append(f"{path}: {exc}")
            continue
        found = look(library, path)
        if found["state"] != "unavailable":
            return found
        if best is None or RANKS[found["stage"]] > RANKS[best["stage"]]:
            best = found
    if best is not None:
        return best
    return _observation(
        "unavailable",
        stage,
        f"{label} was not loadable" + (": " + "; ".join(failures) if failures else ""),
    )


@contextlib.contextmanager
def _as_app(app_id: int) -> Iterator[None]:
    """``SteamAppId`` and ``SteamGameId`` set to the app for the look, as a game has them."""
    saved = {name: os.environ.get(name) for name in ("SteamAppId", "SteamGameId")}
    os.environ.update(dict.fromkeys(saved, str(app_id)))
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def probe_app(app_id: int) -> Observation:
    """How far the installed Steam client is ready for ``app_id`` (see the module doc)."""
    if sys.platform != "darwin":
        return _observation(  # the Go bridge's words
            "unavailable",
            "client_library",
            "functional Steam readiness probing is available only on macOS",
        )
    with _as_app(app_id):
        found = _first_usable(
            client_libraries(), "client_library", "the Steam client library", _client
        )
        if found["state"] != "ready":
            return found
        return _first_usable(
            api_libraries(),
            "steam_api",
            "the Steam API library",
            lambda library, path: _api(library, path, app_id),
        )
