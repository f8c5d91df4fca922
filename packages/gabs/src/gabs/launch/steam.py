"""Finding a Steam game on disk, for ``SteamManaged``: the library folders
(``steamapps/libraryfolders.vdf``), the app manifest (``appmanifest_<appid>.acf``), the
install folder and its most likely game executable.

``$GABS_STEAM_LIBRARYFOLDERS`` (a path list) replaces the default ``libraryfolders.vdf``
locations, as in the Go bridge. The game is then started directly with ``SteamAppId`` and
``SteamGameId`` in its environment and a ``steam_appid.txt`` beside it, so Steam does not
restart it through the client and the bridge's environment survives. When the Steam client
cannot be seen, :func:`assist_client` starts it (``steam -silent``, ``open -a Steam``, or
``steam://open/main`` on Windows) and waits for it within a bounded budget, best effort.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from gabs.config import read_failure
from gabs.go_format import go_quote

from .vdf import SteamError, VdfError, parse_vdf

__all__ = [
    "SteamApp",
    "SteamError",
    "VdfError",
    "assist_client",
    "client_running",
    "ensure_appid_file",
    "library_folders",
    "open_client",
    "parse_vdf",
    "resolve_app",
]

LIBRARY_FOLDERS_ENV: Final = "GABS_STEAM_LIBRARYFOLDERS"
#: After a cold start the client needs a while before it launches games (the Go bridge's wait).
COLD_START_DELAY: Final = 20.0
_EXCLUDED: Final = (
    "crash",
    "unitycrashhandler",
    "uninstall",
    "unins",
    "redist",
    "vcredist",
    "dotnet",
    "dxsetup",
    "installer",
    "installscript",
    "helper",
)


@dataclass(frozen=True)
class SteamApp:
    """An installed Steam app and what to start."""

    app_id: str
    name: str
    install_dir: str
    library_path: Path
    install_path: Path
    executable: Path
    working_dir: Path
    appid_file: Path


def _candidate_files(env: Mapping[str, str]) -> list[Path]:
    override = env.get(LIBRARY_FOLDERS_ENV, "").strip()
    if override:
        return [Path(part) for part in override.split(os.pathsep) if part.strip()]
    home = Path.home()
    if sys.platform == "darwin":
        return [home / "Library/Application Support/Steam/steamapps/libraryfolders.vdf"]
    if sys.platform == "win32":
        roots = [env.get("ProgramFiles(x86)", ""), env.get("ProgramFiles", "")]
        return [Path(r) / "Steam/steamapps/libraryfolders.vdf" for r in roots if r]
    return [
        home / ".steam/steam/steamapps/libraryfolders.vdf",
        home / ".local/share/Steam/steamapps/libraryfolders.vdf",
    ]


def _library_root(path: str | Path) -> Path:
    root = Path(str(path).strip())
    return root.parent if root.name == "steamapps" else root


def library_folders(env: Mapping[str, str] | None = None) -> list[Path]:
    """Every Steam library folder named by the ``libraryfolders.vdf`` files found."""
    env = os.environ if env is None else env
    libraries: list[Path] = []
    errors: list[str] = []

    def add(path: str | Path) -> None:
        root = _library_root(path)
        if str(root) and root not in libraries:
            libraries.append(root)

    for manifest in _candidate_files(env):
        try:
            text = manifest.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            continue
        except OSError as exc:
            errors.append(f"{manifest}: {read_failure(manifest, exc)}")
            continue
        add(manifest.parent.parent)
        try:
            parsed = parse_vdf(text)
        except SteamError as exc:
            errors.append(f"{manifest}: {exc}")
            continue
        root = parsed.get("libraryfolders")
        for value in (root if isinstance(root, dict) else parsed).values():
            if isinstance(value, dict) and isinstance(value.get("path"), str):
                add(value["path"])
    if not libraries and errors:
        raise SteamError("failed to read Steam library folders: " + "; ".join(errors))
    return libraries


def _normalize(text: str) -> str:
    return "".join(char for char in text.lower() if char.isalpha() or char.isdecimal())


def _base_name(path: Path) -> str:
    """The file name without its last extension, as Go's ``filepath.Ext`` sees one (so
    ``.Game`` has no base name at all)."""
    dot = path.name.rfind(".")
    return path.name if dot < 0 else path.name[:dot]


def _score(path: Path, install: Path, name: str, install_dir: str) -> int:
    base = _normalize(_base_name(path).removesuffix(".app"))
    app = _normalize(name)
    folder = _normalize(install_dir)
    score = 0
    if base and base == app:
        score += 100
    elif base and base == folder:
        score += 95
    elif base and app and base in app:
        score += 70
    elif base and app and app in base:
        score += 65
    elif base and folder and folder in base:
        score += 60
    with contextlib.suppress(ValueError):
        score -= (len(path.relative_to(install).parts) - 1) * 5
    if "launcher" in path.name.lower():
        score -= 20
    return score


def _executable(path: Path) -> bool:
    if sys.platform == "win32":
        return path.suffix.lower() == ".exe" and path.is_file()
    return path.is_file() and os.access(path, os.X_OK)


def _walk_files(folder: Path, depth: int) -> list[Path]:
    """Files under ``folder`` down to two folders deep, in the order of Go's
    ``filepath.WalkDir`` (names sorted, each folder entered where its name sorts);
    unreadable folders are skipped and symlinked folders are not entered."""
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return []
    found: list[Path] = []
    for entry in entries:
        try:
            is_folder = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if not is_folder:
            found.append(Path(entry.path))
        elif depth < 2:
            found.extend(_walk_files(Path(entry.path), depth + 1))
    return found


def _find_executable(install: Path, name: str, install_dir: str) -> Path:
    candidates = [
        path
        for path in _walk_files(install, 0)
        if _executable(path) and not any(word in path.name.lower() for word in _EXCLUDED)
    ]
    if not candidates:
        raise SteamError(f"no likely game executable found in {install}")
    # A stable sort: equal scores keep the walk order, as in the Go bridge.
    candidates.sort(key=lambda p: -_score(p, install, name, install_dir))
    return candidates[0]


def _mac_bundle_executable(install: Path, name: str, install_dir: str) -> Path | None:
    bundles = sorted(install.glob("*.app"), key=lambda p: -_score(p, install, name, install_dir))
    if not bundles:
        return None
    macos = bundles[0] / "Contents" / "MacOS"
    try:
        plist = (bundles[0] / "Contents" / "Info.plist").read_text(errors="replace")
        match = re.search(r"<key>CFBundleExecutable</key>\s*<string>([^<]+)</string>", plist)
        if match and _executable(macos / match.group(1).strip()):
            return macos / match.group(1).strip()
    except OSError:
        pass
    found = sorted(
        (p for p in macos.iterdir() if _executable(p)),
        key=lambda p: -_score(p, install, name, install_dir),
    )
    if not found:
        raise SteamError(f"no executable files found in {macos}")
    return found[0]


def resolve_app(app_id: str, env: Mapping[str, str] | None = None) -> SteamApp:
    """The installed app with this id; :class:`SteamError` naming what was checked."""
    app_id = app_id.strip()
    if not app_id:
        raise SteamError("Steam app id is required")
    libraries = library_folders(env)
    if not libraries:
        raise SteamError("no Steam library folders found")
    checked = []
    for library in libraries:
        steamapps = library / "steamapps"
        manifest = steamapps / f"appmanifest_{app_id}.acf"
        checked.append(str(manifest))
        if not manifest.exists():
            continue
        try:
            text = manifest.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise SteamError(
                f"failed to read Steam app manifest {manifest}: {read_failure(manifest, exc)}"
            ) from None
        try:
            parsed = parse_vdf(text)
        except VdfError as exc:
            raise SteamError(f"failed to parse Steam app manifest {manifest}: {exc}") from None
        state = parsed.get("AppState")
        if not isinstance(state, dict):
            state = parsed
        install_dir = state.get("installdir")
        if not isinstance(install_dir, str) or not install_dir.strip():
            raise SteamError(f"Steam app manifest {manifest} does not contain installdir")
        found_name = state.get("name")
        name = found_name if isinstance(found_name, str) else ""
        install = steamapps / "common" / install_dir
        try:
            executable = (
                _mac_bundle_executable(install, name, install_dir)
                if sys.platform == "darwin"
                else None
            ) or _find_executable(install, name, install_dir)
        except OSError as exc:
            raise SteamError(
                f"failed to resolve executable for Steam app {app_id} at {install}: {exc}"
            ) from None
        except SteamError as exc:
            raise SteamError(
                f"failed to resolve executable for Steam app {app_id} at {install}: {exc}"
            ) from None
        return SteamApp(
            app_id=app_id,
            name=name,
            install_dir=install_dir,
            library_path=library,
            install_path=install,
            executable=executable,
            working_dir=executable.parent,
            appid_file=executable.parent / "steam_appid.txt",
        )
    raise SteamError(f"Steam app {app_id} was not found; checked manifests: {', '.join(checked)}")


def ensure_appid_file(app: SteamApp) -> None:
    """Write ``steam_appid.txt`` beside the executable (refusing a different id there)."""
    try:
        existing = app.appid_file.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        existing = ""
    if existing == app.app_id:
        return
    if existing:
        raise SteamError(
            f"{app.appid_file} already contains Steam app id {go_quote(existing)}, expected "
            f"{go_quote(app.app_id)}"
        )
    app.appid_file.write_text(app.app_id + "\n", encoding="utf-8")


def client_running() -> bool:
    """Whether a Steam client process can be seen (advisory only), looked for as the Go bridge
    looks: elsewhere than on Windows and macOS, a process named ``steam`` or one whose command
    line contains ``/steam``."""
    if sys.platform == "win32":
        commands = [["tasklist", "/FI", "IMAGENAME eq steam.exe"]]
    elif sys.platform == "darwin":
        commands = [["pgrep", "-f", "/Steam/Contents/MacOS/steam_osx"]]
    else:
        commands = [["pgrep", "-x", "steam"], ["pgrep", "-f", "/steam"]]
    for command in commands:
        try:
            done = subprocess.run(command, capture_output=True, timeout=5, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if sys.platform == "win32":
            if b"steam.exe" in done.stdout.lower():
                return True
        elif done.returncode == 0:
            return True
    return False


def client_start_command() -> list[str]:
    """The platform's command that brings the Steam client up in the background."""
    if sys.platform == "win32":
        return ["cmd", "/c", "start", "", "steam://open/main"]
    if sys.platform == "darwin":
        return ["open", "-a", "Steam"]
    return ["steam", "-silent"]


def open_client() -> str | None:
    """Start the Steam client, detached (no waiting); why it could not be started, or None.

    The client outlives this call, so a daemon thread waits for it: its exit status is
    collected when it ends (no zombie left behind), and its ``Popen`` is never dropped while
    the process runs (Python would finalise it with a ResourceWarning)."""
    try:
        process = subprocess.Popen(
            client_start_command(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as exc:
        return f"cannot start the Steam client: {exc}"
    threading.Thread(target=process.wait, name="steam-client-wait", daemon=True).start()
    return None


def assist_client(budget: float) -> str | None:
    """Start the Steam client and wait until it can be seen, never longer than ``budget``
    seconds (then a short settling wait, also within the budget). Best effort: returns why it
    did not complete, or None. Blocking: run it in a worker thread."""
    if budget <= 0:
        return "no time left for starting the Steam client"
    deadline = time.monotonic() + budget
    problem = open_client()
    if problem is not None:
        return problem
    while not client_running():
        if time.monotonic() >= deadline:
            return f"the Steam client did not become visible within {budget:.0f}s"
        time.sleep(0.25)
    time.sleep(max(0.0, min(COLD_START_DELAY, deadline - time.monotonic())))
    return None
