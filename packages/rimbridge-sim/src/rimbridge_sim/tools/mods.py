"""Mods: the installed mods and their load order (``Config/ModsConfig.xml``), and mod
settings read, changed, written to and reloaded from ``Config/Mod_<id>_<Type>.xml``."""

from __future__ import annotations

from typing import Any

from rimbridge_annotations import parameter, tool
from rimbridge_sim.calls import call_spec
from rimbridge_sim.host import ToolHost
from rimbridge_sim.world import MissingArgumentError, RefusedError
from rimbridge_sim.world._mod_list import INSTALLED_MODS, ModInfo
from rimbridge_sim.world._mod_settings import check_graph_bounds

__all__ = ["ModTools"]

_MOD_ID = "A modId from rimworld/list_mods, or an exact package id, name or folder name."
_SETTINGS_ID = (
    "A modId from rimworld/list_mod_settings_surfaces, or an exact package id, mod name, "
    "handle type or settings category."
)
_DEPTH = "How deep to describe nested settings."
_ENTRIES = "Most entries to show of any list or object."
_TREE = "root {name, path, valueKind, typeName, value, count, truncated, children}"


class ModTools:
    def __init__(self, host: ToolHost) -> None:
        self.host = host

    def _failure(
        self, error: RefusedError | MissingArgumentError, requested: str, mod: ModInfo | None = None
    ) -> dict[str, Any]:
        mods = self.host.world.mods
        return {
            "success": False,
            "message": error.message,
            "requestedModId": requested,
            "mod": None if mod is None else mods.describe(mod),
            "configurationStatus": mods.status(),
            "code": error.code,
        }

    @tool(
        "rimworld/list_mods",
        "List the installed mods, whether each is enabled now and whether it was loaded in "
        "this session (a difference means a restart is needed).",
        title="List mods",
        result_description="{success, includeInactive, modCount, activeCount, "
        "loadedSessionModCount, restartRequired, restartReasons, sessionMismatchCount, mods: "
        "[{modId, packageId, name, folderName, source, authors, version, official, isCoreMod, "
        "enabled, loadedInSession, activeLoadOrder}]}.",
    )
    @parameter("include_inactive", "Include installed mods that are not enabled.")
    @call_spec(world=True)
    def list_mods(self, include_inactive: bool = True) -> dict[str, Any]:
        mods = self.host.world.mods
        listed = [
            mods.describe(m)
            for m in sorted(
                INSTALLED_MODS,
                key=lambda m: (
                    m.package_id not in mods.active,
                    mods.active.index(m.package_id) if m.package_id in mods.active else 0,
                    m.name,
                ),
            )
            if include_inactive or m.package_id in mods.active
        ]
        status = mods.status()
        return {
            "success": True,
            "includeInactive": include_inactive,
            "modCount": len(listed),
            "activeCount": len(mods.active),
            "loadedSessionModCount": len(mods.loaded),
            "restartRequired": status["restartRequired"],
            "restartReasonCount": status["restartReasonCount"],
            "restartReasons": status["restartReasons"],
            "sessionMismatchCount": status["sessionMismatchCount"],
            "mods": listed,
        }

    @tool(
        "rimworld/get_mod_configuration_status",
        "Check the active load order: ordering problems, and whether it differs from what this "
        "session loaded (then a restart is needed).",
        title="Get mod configuration status",
        result_description="{success, configPath, installedModCount, activeModCount, "
        "loadedSessionModCount, configurationIssueCount, orderingIssueCount, "
        "sessionMismatchCount, restartRequired, restartReasons, currentConfigurationHash, "
        "loadedSessionHash, currentActiveMod, currentActiveModIds, loadedSessionModIds, "
        "activeMods, loadedSessionMods}.",
    )
    @call_spec(world=True, quick=True)
    def get_mod_configuration_status(self) -> dict[str, Any]:
        return self.host.world.mods.status()

    @tool(
        "rimworld/set_mod_enabled",
        "Enable or disable an installed mod in the configuration (takes effect after a "
        "restart) and save ModsConfig.xml unless save is false. Disabling Core needs "
        "allowDisableCore.",
        title="Set mod enabled",
        result_description="{success, requestedModId, changed, saved, previousEnabled, "
        "currentEnabled, message, mod, configurationStatus}.",
    )
    @parameter("mod_id", _MOD_ID)
    @parameter("enabled", "True to enable, false to disable.")
    @parameter("save", "Write Config/ModsConfig.xml now.")
    @parameter("allow_disable_core", "Allow disabling the Core mod.")
    @call_spec(world=True)
    def set_mod_enabled(
        self, mod_id: str, enabled: bool, save: bool = True, allow_disable_core: bool = False
    ) -> dict[str, Any]:
        mods = self.host.world.mods
        mod_id = mod_id.strip()  # the mod answers with the trimmed request
        try:
            mod = mods.resolve(mod_id)
        except (RefusedError, MissingArgumentError) as error:
            return self._failure(error, mod_id)
        try:
            previous = mods.set_enabled(mod, enabled, allow_disable_core)
        except RefusedError as error:
            # The mod's failure names the resolved mod.
            return self._failure(error, mod_id, mod)
        saved = save and previous != enabled
        if saved:
            mods.save()
        return {
            "success": True,
            "requestedModId": mod_id,
            "changed": previous != enabled,
            "saved": saved,
            "previousEnabled": previous,
            "currentEnabled": enabled,
            "message": f"{'Enabled' if enabled else 'Disabled'} mod '{mod.name}'."
            if previous != enabled
            else f"Mod '{mod.name}' was already {'enabled' if enabled else 'disabled'}.",
            "mod": mods.describe(mod),
            "configurationStatus": mods.status(),
        }

    @tool(
        "rimworld/reorder_mod",
        "Move an enabled mod to a 0-based position in the active load order and save "
        "ModsConfig.xml unless save is false.",
        title="Reorder mod",
        result_description="{success, requestedModId, changed, saved, previousIndex, "
        "targetIndex, currentIndex, message, mod, configurationStatus}.",
    )
    @parameter("mod_id", _MOD_ID)
    @parameter("target_index", "The 0-based position in the active load order.")
    @parameter("save", "Write Config/ModsConfig.xml now.")
    @call_spec(world=True)
    def reorder_mod(self, mod_id: str, target_index: int, save: bool = True) -> dict[str, Any]:
        mods = self.host.world.mods
        mod_id = mod_id.strip()  # the mod answers with the trimmed request
        try:
            mod = mods.resolve(mod_id)
        except (RefusedError, MissingArgumentError) as error:
            return self._failure(error, mod_id)
        try:
            previous = mods.reorder(mod, target_index, mod_id)
        except RefusedError as error:
            # The mod's failure names the resolved mod.
            return self._failure(error, mod_id, mod)
        changed = previous != target_index
        if save and changed:
            mods.save()
        return {
            "success": True,
            "requestedModId": mod_id,
            "changed": changed,
            "saved": save and changed,
            "previousIndex": previous,
            "targetIndex": target_index,
            "currentIndex": mods.active.index(mod.package_id),
            "message": f"Moved mod '{mod.name}' to active load-order index {target_index}."
            if changed
            else f"Mod '{mod.name}' was already at active load-order index {target_index}.",
            "mod": mods.describe(mod),
            "configurationStatus": mods.status(),
        }

    @tool(
        "rimworld/list_mod_settings_surfaces",
        "List the loaded mods that have a settings window or a ModSettings object.",
        title="List mod settings surfaces",
        result_description="{success, surfaceCount, surfaces: [{modId, packageId, name, "
        "settingsType, settingsCategory, hasSettingsWindow, hasPersistentState, "
        "supportsRead}]}.",
    )
    @parameter("include_without_settings", "Also list loaded mods without any settings.")
    @call_spec(world=True)
    def list_mod_settings_surfaces(self, include_without_settings: bool = False) -> dict[str, Any]:
        store = self.host.world.mod_settings
        surfaces = [store.describe_surface(m) for m in store.surfaces(include_without_settings)]
        return {"success": True, "surfaceCount": len(surfaces), "surfaces": surfaces}

    def _settings_failure(
        self, message: str, requested: str, mod: ModInfo, code: str = RefusedError.code
    ) -> dict[str, Any]:
        """A refusal about a resolved mod: the mod's answer names it (``mod``)."""
        surface = self.host.world.mod_settings.describe_surface(mod)
        return {
            "success": False,
            "message": message,
            "requestedModId": requested,
            "mod": surface,
            "code": code,
        }

    def _settings(
        self, mod_id: str, max_depth: int, max_entries: int, read: bool = False, **extra: Any
    ) -> dict[str, Any]:
        """A settings answer; only the plain read names the settings type, as in the mod."""
        store = self.host.world.mod_settings
        mod = store.resolve(mod_id)
        store.require_settings(mod, mod_id)
        tree = store.tree(mod, max_depth, max_entries)
        return {
            "success": True,
            "requestedModId": mod_id,
            **extra,
            "mod": store.describe_surface(mod),
            **({"settingsType": mod.settings_type} if read else {}),
            "root": tree,
            # the mod counts the root's children: 0 when maxDepth 0 cuts the root off
            "topLevelSettingCount": len(tree["children"]),
        }

    @tool(
        "rimworld/get_mod_settings",
        "Read a loaded mod's settings as a tree of named values with their field paths.",
        title="Get mod settings",
        result_description=f"{{success, requestedModId, mod, settingsType, {_TREE}, "
        "topLevelSettingCount}.",
    )
    @parameter("mod_id", _SETTINGS_ID)
    @parameter("max_depth", _DEPTH)
    @parameter("max_collection_entries", _ENTRIES)
    @call_spec(world=True)
    def get_mod_settings(
        self, mod_id: str, max_depth: int = 4, max_collection_entries: int = 32
    ) -> dict[str, Any]:
        mod_id = mod_id.strip()  # the mod answers with the trimmed request
        store = self.host.world.mod_settings
        try:
            mod = store.resolve(mod_id)
        except (RefusedError, MissingArgumentError) as error:
            return _unresolved(error, mod_id)
        try:
            store.require_settings(mod, mod_id)
        except RefusedError as error:
            return self._settings_failure(error.message, mod_id, mod)
        return self._settings(mod_id, max_depth, max_collection_entries, read=True)

    @tool(
        "rimworld/update_mod_settings",
        "Set mod settings by field path (fillPercent, limits.meals, allowedDefs[0]), in "
        "ordinal path order; a field name may differ in case, an index past the end grows "
        "the list, and values are converted to the field's type. If one cannot be set, "
        "nothing changes. Written to the settings file unless write is false.",
        title="Update mod settings",
        result_description=f"{{success, requestedModId, wroteSettings, changed, updateCount, "
        f"updates: [{{path, typeName, changed, previous, current (value graphs like root), "
        f"previousValue, value}}], mod, {_TREE}, "
        "topLevelSettingCount}.",
    )
    @parameter("mod_id", _SETTINGS_ID)
    @parameter("values", "An object of field path to new value.")
    @parameter("write", "Write the settings file now.")
    @parameter("max_depth", _DEPTH)
    @parameter("max_collection_entries", _ENTRIES)
    @call_spec(world=True)
    def update_mod_settings(
        self,
        mod_id: str,
        values: dict[str, Any],
        write: bool = True,
        max_depth: int = 4,
        max_collection_entries: int = 32,
    ) -> dict[str, Any]:
        mod_id = mod_id.strip()  # the mod answers with the trimmed request
        store = self.host.world.mod_settings
        try:
            mod = store.resolve(mod_id)
        except (RefusedError, MissingArgumentError) as error:
            return _unresolved(error, mod_id)
        try:
            store.require_settings(mod, mod_id)
            if not values:
                raise MissingArgumentError("At least one settings path/value pair is required.")
        except (RefusedError, MissingArgumentError) as error:
            return self._settings_failure(error.message, mod_id, mod, error.code)
        # The mod applies and writes the values before its tree refuses bad bounds; the sim
        # refuses them first, so a failed call changes nothing.
        check_graph_bounds(max_depth, max_collection_entries)
        try:
            updates = store.update(mod, values)
        except (RefusedError, MissingArgumentError) as error:
            message = f"Updating mod settings for '{mod_id}' failed: {error.message}"
            return self._settings_failure(message, mod_id, mod, error.code)
        if write:
            store.write(mod)
        return self._settings(
            mod_id,
            max_depth,
            max_collection_entries,
            wroteSettings=write,
            changed=any(u["changed"] for u in updates),
            updateCount=len(updates),
            updates=updates,
        )

    @tool(
        "rimworld/reload_mod_settings",
        "Read a mod's settings back from its settings file, dropping unsaved changes "
        "(defaults when no file was written yet).",
        title="Reload mod settings",
        result_description=f"{{success, requestedModId, message, mod, {_TREE}, "
        "topLevelSettingCount}.",
    )
    @parameter("mod_id", _SETTINGS_ID)
    @parameter("max_depth", _DEPTH)
    @parameter("max_collection_entries", _ENTRIES)
    @call_spec(world=True)
    def reload_mod_settings(
        self, mod_id: str, max_depth: int = 4, max_collection_entries: int = 32
    ) -> dict[str, Any]:
        mod_id = mod_id.strip()  # the mod answers with the trimmed request
        store = self.host.world.mod_settings
        try:
            mod = store.resolve(mod_id)
        except (RefusedError, MissingArgumentError) as error:
            return _unresolved(error, mod_id)
        try:
            store.require_settings(mod, mod_id)
        except RefusedError as error:
            return self._settings_failure(error.message, mod_id, mod)
        # As for an update, bad bounds are refused before the settings are replaced.
        check_graph_bounds(max_depth, max_collection_entries)
        try:
            store.reload(mod)
        except RefusedError as error:
            return self._settings_failure(error.message, mod_id, mod)
        message = f"Reloaded mod settings for '{mod_id}' from disk."
        return self._settings(mod_id, max_depth, max_collection_entries, message=message)

    @tool(
        "rimworld/open_mod_settings",
        "Open a mod's settings window (closing open mod-settings windows first unless "
        "replaceExisting is false). Its checkboxes change the settings in memory; closing "
        "the window writes them, as RimWorld's dialog does.",
        title="Open mod settings",
        result_description="{success, changed, requestedModId, replaceExisting, "
        "closedExistingDialogCount, message, mod, dialog {windowType, windowId, mod}, before, "
        "after}.",
    )
    @parameter("mod_id", _SETTINGS_ID)
    @parameter("replace_existing", "Close open mod-settings windows first.")
    @call_spec(world=True)
    def open_mod_settings(self, mod_id: str, replace_existing: bool = True) -> dict[str, Any]:
        world = self.host.world
        store = world.mod_settings
        mod_id = mod_id.strip()  # the mod answers with the trimmed request
        try:
            mod = store.resolve(mod_id)
        except (RefusedError, MissingArgumentError) as error:
            return _unresolved(error, mod_id)
        if not mod.has_window:
            return self._settings_failure(
                f"Mod '{mod_id}' does not expose a settings dialog.", mod_id, mod
            )
        before = world.windows.ui_state()
        surface_id = store.surface_id(mod)
        open_dialogs = world.windows.matching("Verse.Dialog_ModSettings")
        same = [
            w
            for w in open_dialogs
            if ((w.semantic_details or {}).get("mod") or {}).get("modId") == surface_id
        ]
        if same and not replace_existing:  # the mod leaves that dialog alone and says so
            return {
                "success": True,
                "changed": False,
                "requestedModId": mod_id,
                "message": f"Settings dialog for '{mod_id}' is already open.",
                "mod": store.describe_surface(mod),
                "dialog": same[-1].semantic_details,
                "before": before,
                "after": before,
            }
        closed = 0
        if replace_existing:
            for window in world.windows.matching("Verse.Dialog_ModSettings"):
                world.windows.close(window)
                closed += 1
        toggles = [(k, "toggle") for k, v in store.values(mod).items() if isinstance(v, bool)]
        window = world.windows.open(
            "Verse.Dialog_ModSettings",
            mod.name,
            semantic_kind="mod_settings",
            buttons=[*toggles, ("Close", "close")],
            details={"modId": store.surface_id(mod)},
            content_height=900.0,
        )
        # as RimWorld's Dialog_ModSettings: the checkboxes change the mod's settings in
        # memory, and closing the dialog (PreClose) writes them (Mod.WriteSettings)
        window.force_pause = window.absorb_input = True  # as Dialog_ModSettings sets them
        window.settings = lambda: store.values(mod)
        window.on_close = lambda: store.write(mod)
        surface = store.describe_surface(mod)
        dialog = {"windowType": window.type, "windowId": window.id, "mod": surface}
        window.semantic_details = dialog
        return {
            "success": True,
            "changed": True,
            "requestedModId": mod_id,
            "replaceExisting": replace_existing,
            "closedExistingDialogCount": closed,
            "message": f"Opened mod settings dialog for '{mod_id}'.",
            "mod": surface,
            "dialog": dialog,
            "before": before,
            "after": world.windows.ui_state(),
        }


def _unresolved(error: RefusedError | MissingArgumentError, mod_id: str) -> dict[str, Any]:
    """A settings tool whose mod id matches no mod, in the mod's shape (the
    message and the id asked for), then the sim's ``code``."""
    return {
        "success": False,
        "message": error.message,
        "requestedModId": mod_id,
        "code": error.code,
    }
