"""The installed mods, the active load order (``Config/ModsConfig.xml``) and how it differs
from the session RimWorld loaded at start. A subsystem of the world (``world.mods``)."""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final
from xml.sax.saxutils import escape

from rimbridge_sim.config import MOD_VERSION
from rimbridge_sim.world._core import WorldCore
from rimbridge_sim.world._selection import stable_hash
from rimbridge_sim.world.errors import MissingArgumentError, NotFoundError, RefusedError
from rimbridge_sim.world.model import LogLevel

__all__ = ["INSTALLED_MODS", "ModInfo", "ModList"]


@dataclass(frozen=True)
class ModInfo:
    package_id: str
    name: str
    folder: str
    source: str
    """``Official``, ``SteamWorkshop`` or ``LocalMods``."""
    authors: str
    version: str
    settings_type: str | None = None
    """The ``ModSettings`` class, when the mod has settings."""
    settings: dict[str, Any] = field(default_factory=dict)
    """Default settings values."""
    has_window: bool = False

    @property
    def root_dir(self) -> str:
        base = {"Official": "Data", "SteamWorkshop": "steamapps/workshop/content/294100"}
        return f"{base.get(self.source, 'Mods')}/{self.folder}"

    @property
    def mod_id(self) -> str:
        return f"mod-config:{self.package_id}:{stable_hash(self.root_dir)}"

    @property
    def official(self) -> bool:
        return self.source == "Official"

    @property
    def core(self) -> bool:
        return self.package_id == "ludeon.rimworld"


INSTALLED_MODS: Final[tuple[ModInfo, ...]] = (
    ModInfo(
        "brrainz.harmony", "Harmony", "2009463077", "SteamWorkshop", "Andreas Pardeike", "2.3.3"
    ),
    ModInfo("ludeon.rimworld", "Core", "Core", "Official", "Ludeon Studios", "1.6.4850"),
    ModInfo(
        "ludeon.rimworld.royalty", "Royalty", "Royalty", "Official", "Ludeon Studios", "1.6.4850"
    ),
    ModInfo(
        "brrainz.rimbridgeserver",
        "RimBridgeServer",
        "RimBridgeServer",
        "LocalMods",
        "Andreas Pardeike",
        MOD_VERSION,  # About.xml's modVersion, as get_bridge_status reports it
    ),
    ModInfo(
        "sim.tidystockpiles",
        "Tidy Stockpiles",
        "TidyStockpiles",
        "LocalMods",
        "GABP workspace",
        "1.2.0",
        "TidyStockpiles.TidySettings",
        {
            "enabled": True,
            "fillPercent": 100,
            "haulPriority": "Normal",
            "sortSpeed": 1.5,
            "allowedDefs": ["Steel", "WoodLog"],
            "limits": {"meals": 20, "medicine": 10},
        },
        has_window=True,
    ),
    ModInfo(
        "sim.colonyjournal",
        "Colony Journal",
        "ColonyJournal",
        "LocalMods",
        "GABP workspace",
        "0.4.1",
        "ColonyJournal.JournalSettings",
        {"logIncidents": True, "verbosity": 2},
        has_window=True,
    ),
    ModInfo(
        "sim.prettywalls", "Pretty Walls", "PrettyWalls", "LocalMods", "GABP workspace", "2.0.0"
    ),
)
_DEFAULT_ACTIVE: Final = (
    "brrainz.harmony",
    "ludeon.rimworld",
    "ludeon.rimworld.royalty",
    "brrainz.rimbridgeserver",
    "sim.tidystockpiles",
)
CONFIG_FILE: Final = "Config/ModsConfig.xml"


def _fingerprint(mod_ids: Iterable[str]) -> str:
    """The mod's configuration fingerprint: 16 hex digits of the SHA-256 of the ids, one a
    line."""
    return hashlib.sha256("\n".join(mod_ids).encode("utf-8")).hexdigest()[:16]


class ModList:
    """Installed mods, the active order, and saving it."""

    def __init__(self, world: WorldCore) -> None:
        self._world = world
        self.active: list[str] = list(_DEFAULT_ACTIVE)
        self.loaded: tuple[str, ...] = tuple(_DEFAULT_ACTIVE)
        """What the running session loaded at start (changes need a restart)."""
        self.settings: dict[str, dict[str, Any]] = {
            mod.package_id: copy.deepcopy(mod.settings) for mod in INSTALLED_MODS if mod.settings
        }

    def resolve(self, query: str) -> ModInfo:
        """The installed mod a query names, as the mod resolves it: its modId exactly, else
        the one mod whose package id, name, folder or root dir equals it (case ignored)."""
        wanted = query.strip()
        if not wanted:
            raise MissingArgumentError(
                "A mod id, package id, package id (player-facing), name, folder name, or root "
                "path is required."
            )
        for mod in INSTALLED_MODS:
            if mod.mod_id == wanted:
                return mod
        matches = [
            mod
            for mod in INSTALLED_MODS
            if wanted.lower()
            in (n.lower() for n in (mod.package_id, mod.name, mod.folder, mod.root_dir))
        ]
        if len(matches) > 1:
            raise RefusedError(
                f"Query '{wanted}' matched multiple installed mods: "
                f"{', '.join(m.mod_id for m in matches)}. Use the exact modId from "
                "rimworld/list_mods."
            )
        if not matches:
            raise NotFoundError(f"Could not find an installed mod matching '{wanted}'.")
        return matches[0]

    def restart_reasons(self) -> list[str]:
        """The mod's reason codes: none, or the one that says how the session differs."""
        if tuple(self.active) == self.loaded:
            return []
        if set(self.active) != set(self.loaded):
            return ["active_mod_set_differs_from_loaded_session"]
        return ["active_mod_order_differs_from_loaded_session"]

    def _matches_session(self, mod: ModInfo) -> bool:
        """The mod's MatchesLoadedSession: loaded exactly when enabled, at the same index."""
        enabled = mod.package_id in self.active
        if enabled != (mod.package_id in self.loaded):
            return False
        return not enabled or self.active.index(mod.package_id) == self.loaded.index(mod.package_id)

    def describe(self, mod: ModInfo) -> dict[str, Any]:
        """The mod's mod entry (``ToResponseEntry``); the sim's mods declare no load-order
        rules or dependencies, so those lists are empty."""
        enabled = mod.package_id in self.active
        loaded = mod.package_id in self.loaded
        ordering = enabled and any(mod.package_id in pair for pair in self._ordering_pairs())
        return {
            "modId": mod.mod_id,
            "packageId": mod.package_id,
            "packageIdPlayerFacing": mod.package_id,
            "packageIdNonUnique": mod.package_id,
            "name": mod.name,
            "shortName": mod.name,
            "folderName": mod.folder,
            "rootDir": mod.root_dir,
            "source": mod.source,
            "authors": mod.authors,
            "version": mod.version,
            "official": mod.official,
            "onSteamWorkshop": mod.source == "SteamWorkshop",
            "isCoreMod": mod.core,
            "enabled": enabled,
            "loadedInSession": loaded,
            "activeLoadOrder": self.active.index(mod.package_id) if enabled else None,
            "loadedSessionOrder": self.loaded.index(mod.package_id) if loaded else None,
            "versionCompatible": True,
            "madeForNewerVersion": False,
            "hasConfigurationWarning": False,
            "configurationWarning": "",
            "hasVersionWarning": False,
            "hasOrderingIssues": ordering,
            "matchesLoadedSession": self._matches_session(mod),
            "unsatisfiedDependencies": [],
            "loadBefore": [],
            "loadAfter": [],
            "forceLoadBefore": [],
            "forceLoadAfter": [],
            "incompatibleWith": [],
        }

    def status(self) -> dict[str, Any]:
        reasons = self.restart_reasons()
        ordering = self._ordering_issues()
        return {
            "success": True,
            "configPath": f"{self._world.storage.root}/{CONFIG_FILE}",
            "installedModCount": len(INSTALLED_MODS),
            "activeModCount": len(self.active),
            "loadedSessionModCount": len(self.loaded),
            "configurationIssueCount": len(ordering),
            "configurationIssues": ordering,
            "versionWarningCount": 0,
            "orderingIssueCount": len(ordering),
            "unsatisfiedDependencyCount": 0,
            "sessionMismatchCount": sum(
                1 for mod in INSTALLED_MODS if not self._matches_session(mod)
            ),
            "restartRequired": bool(reasons),
            "restartReasonCount": len(reasons),
            "restartReasons": reasons,
            "currentConfigurationHash": _fingerprint(self.resolve(p).mod_id for p in self.active),
            "loadedSessionHash": _fingerprint(self.resolve(p).mod_id for p in self.loaded),
            "currentActiveMod": self.describe(self.resolve("brrainz.rimbridgeserver")),
            "currentActiveModIds": [self.resolve(p).mod_id for p in self.active],
            "loadedSessionModIds": [self.resolve(p).mod_id for p in self.loaded],
            "activeMods": [self.describe(self.resolve(p)) for p in self.active],
            "loadedSessionMods": [self.describe(self.resolve(p)) for p in self.loaded],
        }

    def _ordering_pairs(self) -> list[tuple[str, str, str]]:
        """The load-order rules the active list breaks: (first, then, text)."""
        order = {package: index for index, package in enumerate(self.active)}
        return [
            (first, then, text)
            for first, then, text in (
                ("brrainz.harmony", "ludeon.rimworld", "Harmony should load before Core."),
                ("ludeon.rimworld", "ludeon.rimworld.royalty", "Royalty must load after Core."),
            )
            if first in order and then in order and order[first] > order[then]
        ]

    def _ordering_issues(self) -> list[str]:
        return [text for _first, _then, text in self._ordering_pairs()]

    def set_enabled(self, mod: ModInfo, enabled: bool, allow_core: bool) -> bool:
        if mod.core and not enabled and not allow_core:
            raise RefusedError(
                f"Refusing to disable core mod '{mod.name}'. Pass allowDisableCore=true to "
                "override this guard."
            )
        was = mod.package_id in self.active
        if enabled and not was:
            self.active.append(mod.package_id)
        elif not enabled and was:
            self.active.remove(mod.package_id)
        return was

    def reorder(self, mod: ModInfo, index: int, query: str) -> int:
        """Move an active mod to ``index``; ``query`` is the trimmed request the refusals name."""
        if mod.package_id not in self.active:
            raise RefusedError(
                f"Mod '{query}' is not currently enabled, so it has no active load-order "
                "position to reorder."
            )
        if not 0 <= index < len(self.active):
            raise RefusedError(
                f"Target index {index} is out of range for the current active mod list "
                f"(0-{max(0, len(self.active) - 1)})."
            )
        previous = self.active.index(mod.package_id)
        self.active.remove(mod.package_id)
        self.active.insert(index, mod.package_id)
        return previous

    def save(self) -> str:
        """Write ``Config/ModsConfig.xml`` as RimWorld does; returns its path."""
        lines = [
            '<?xml version="1.0" encoding="utf-8"?>',
            "<ModsConfigData>",
            "  <version>1.6.4850</version>",
            "  <activeMods>",
            *(f"    <li>{escape(package)}</li>" for package in self.active),
            "  </activeMods>",
            "  <knownExpansions>",
            "    <li>ludeon.rimworld.royalty</li>",
            "  </knownExpansions>",
            "</ModsConfigData>",
            "",
        ]
        stored = self._world.storage.write(CONFIG_FILE, "\n".join(lines).encode("utf-8"))
        self._world.emit(LogLevel.INFO, "Saved ModsConfig.xml", "mods")
        return stored.path
