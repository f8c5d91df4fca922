"""Mod settings: the ``ModSettings`` objects of loaded mods, read as a tree, changed by field
path (``limits.meals``, ``allowedDefs[0]``), written to and reloaded from
``Config/Mod_<packageId>_<Type>.xml`` in RimWorld's format. Part of ``world.mods``."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from typing import Any, Final
from xml.sax.saxutils import escape

from rimbridge_sim.world._core import WorldCore
from rimbridge_sim.world._mod_list import INSTALLED_MODS, ModInfo, ModList
from rimbridge_sim.world._selection import stable_hash
from rimbridge_sim.world._settings_paths import convert, locate
from rimbridge_sim.world.errors import (
    InvalidArgumentError,
    MissingArgumentError,
    NotFoundError,
    RefusedError,
    argument_out_of_range,
)
from rimbridge_sim.world.model import LogLevel

__all__ = ["ModSettingsStore", "check_graph_bounds"]


_WIRE_KINDS: Final = {"bool": "boolean", "int": "number", "float": "number", "list": "array"}
"""The mod's value kinds (``SemanticValueGraph``) for the sim's own."""


def check_graph_bounds(max_depth: int, max_entries: int) -> None:
    """Refuse the bounds of a settings tree as the mod's ``SemanticValueGraph`` does: an
    ``ArgumentOutOfRangeException`` naming its option, the depth checked first. The mod's
    settings tools do not catch it, so the call fails."""
    if max_depth < 0:
        raise InvalidArgumentError(argument_out_of_range("MaxDepth"))
    if max_entries <= 0:
        raise InvalidArgumentError(argument_out_of_range("MaxCollectionEntries"))


def _kind(value: Any) -> str:
    if value is None:  # a list item nothing was set to yet
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    return "object"


class ModSettingsStore:
    def __init__(self, world: WorldCore, mods: ModList) -> None:
        self._world = world
        self._mods = mods

    def surface_id(self, mod: ModInfo) -> str:
        # the mod hashes the full name of the mod's Mod class (the handle type)
        return f"mod-settings:{mod.package_id}:{stable_hash(_handle_type(mod))}"

    def resolve(self, query: str) -> ModInfo:
        """The loaded mod a query names, as the mod resolves it: its surface id exactly, else
        the one loaded mod whose package id, name, handle type or settings category equals
        it (case ignored). Whether it has settings is each tool's own check."""
        wanted = query.strip()
        if not wanted:
            raise MissingArgumentError(
                "A mod id, package id, settings category, or handle type is required."
            )
        loaded = self.surfaces(include_without_settings=True)
        for mod in loaded:
            if self.surface_id(mod) == wanted:
                return mod
        matches = [mod for mod in loaded if wanted.lower() in self._names(mod)]
        if len(matches) > 1:
            raise RefusedError(
                f"Query '{wanted}' matched multiple loaded mods: "
                f"{', '.join(self.surface_id(m) for m in matches)}. Use the exact modId from "
                "rimworld/list_mod_settings_surfaces."
            )
        if not matches:
            raise NotFoundError(
                f"Could not find a loaded mod settings surface matching '{wanted}'."
            )
        return matches[0]

    @staticmethod
    def _names(mod: ModInfo) -> set[str]:
        handle = f"{mod.folder}Mod"
        names = {mod.package_id, mod.name, f"{mod.folder}.{handle}", handle}
        return {n.lower() for n in names | ({mod.name} if mod.has_window else set())}

    def require_settings(self, mod: ModInfo, query: str) -> None:
        """Refuse a mod without a ``ModSettings`` object, naming the (trimmed) request."""
        if mod.settings_type is None:
            raise RefusedError(
                f"Mod '{query}' does not currently expose a persistent ModSettings instance."
            )

    def describe_surface(self, mod: ModInfo) -> dict[str, Any]:
        return {
            "modId": self.surface_id(mod),
            "packageId": mod.package_id,
            "packageIdPlayerFacing": mod.package_id,
            "name": mod.name,
            "folderName": mod.folder,
            "authors": mod.authors,
            "version": mod.version,
            "rootDir": mod.root_dir,
            "handleType": _handle_type(mod),
            "handleTypeName": f"{mod.folder}Mod",
            "settingsType": mod.settings_type,
            "settingsCategory": mod.name if mod.has_window else None,
            "settingsCategoryError": None,
            "hasSettingsWindow": mod.has_window,
            "hasPersistentState": mod.settings_type is not None,
            "supportsRead": mod.settings_type is not None,
        }

    def surfaces(self, include_without_settings: bool) -> list[ModInfo]:
        # the mod lists its loaded handles ordered by package id (case ignored)
        return sorted(
            (
                mod
                for mod in INSTALLED_MODS
                if mod.package_id in self._mods.loaded
                and (include_without_settings or mod.settings_type is not None or mod.has_window)
            ),
            key=lambda mod: mod.package_id.lower(),
        )

    def values(self, mod: ModInfo) -> dict[str, Any]:
        return self._mods.settings[mod.package_id]

    def tree(self, mod: ModInfo, max_depth: int, max_entries: int) -> dict[str, Any]:
        # the mod's graph root has an empty name and path and the settings class's type
        check_graph_bounds(max_depth, max_entries)
        root = self._node("", "", self.values(mod), 0, max_depth, max_entries)
        root["typeName"] = mod.settings_type or root["typeName"]
        return root

    def _node(
        self, name: str, path: str, value: Any, depth: int, max_depth: int, max_entries: int
    ) -> dict[str, Any]:
        kind = _kind(value)
        node: dict[str, Any] = {
            "name": name,
            "path": path,
            "valueKind": _WIRE_KINDS.get(kind, kind),
            "typeName": {
                "bool": "System.Boolean",
                "int": "System.Int32",
                "float": "System.Single",
                "string": "System.String",
                "list": "System.Collections.Generic.List`1",
            }.get(kind, None if kind == "null" else "object"),
            "value": value if kind not in ("list", "object") else None,
            "count": len(value) if kind in ("list", "object") else None,
            "truncated": False,
            "children": [],
        }
        if kind not in ("list", "object"):
            return node
        if depth >= max_depth:
            # as the mod: a container at the depth limit is cut off, with the count a
            # collection has (an object's field count is not known without describing it)
            node["truncated"] = True
            node["count"] = len(value) if kind == "list" else None
            return node
        if isinstance(value, dict):
            # an object's fields in ordinal name order, all of them (the entry limit is for
            # collections)
            items: list[tuple[Any, Any]] = sorted(value.items(), key=lambda item: item[0])
        else:
            items = list(enumerate(value))[:max_entries]
            node["truncated"] = len(value) > max_entries
        for key, child in items:
            if isinstance(key, int):  # a list item is named by its index in brackets
                child_name, child_path = f"[{key}]", f"{path}[{key}]"
            else:
                child_name, child_path = key, f"{path}.{key}" if path else key
            node["children"].append(
                self._node(child_name, child_path, child, depth + 1, max_depth, max_entries)
            )
        return node

    # -- updating ----------------------------------------------------------------------------

    def update(self, mod: ModInfo, values: dict[str, Any]) -> list[dict[str, Any]]:
        """Apply every ``path: value`` in ordinal path order, as the mod does, each seeing
        the ones before it; all or nothing (a refusal leaves the settings as they were).
        Returns the mod's update records."""
        settings = _copy(self.values(mod))
        type_name = mod.settings_type or "object"
        updates = []
        for path in sorted(values):
            container, key, created = locate(settings, path, type_name)
            previous = None if created else container[key]
            converted = convert(path, container[key], values[path])
            container[key] = converted
            before = self._node("", "", previous, 0, 4, 32)  # the mod's default graph limits
            after = self._node("", "", converted, 0, 4, 32)
            updates.append(
                {
                    # the mod's update record: the field's type and both values as graphs
                    "path": path.strip(),
                    "typeName": (before if previous is not None else after)["typeName"],
                    "changed": previous != converted,
                    "previous": before,
                    "current": after,
                    "previousValue": previous,
                    "value": converted,
                }
            )
        self._mods.settings[mod.package_id] = settings
        return updates

    # -- files -------------------------------------------------------------------------------

    def file_name(self, mod: ModInfo) -> str:
        type_name = (mod.settings_type or "Mod").rsplit(".", 1)[-1]
        return f"Config/Mod_{mod.package_id}_{type_name}.xml"

    def write(self, mod: ModInfo) -> str:
        body = "\n".join(_xml_lines(self.values(mod), 2))
        text = (
            '<?xml version="1.0" encoding="utf-8"?>\n<SettingsBlock>\n'
            f'  <ModSettings Class="{escape(mod.settings_type or "")}">\n{body}\n'
            "  </ModSettings>\n</SettingsBlock>\n"
        )
        stored = self._world.storage.write(self.file_name(mod), text.encode("utf-8"))
        self._world.emit(LogLevel.INFO, f"Wrote settings of {mod.name}", "mods")
        return stored.path

    def reload(self, mod: ModInfo) -> bool:
        """Read the settings file back (defaults when there is none); True when a file was
        read."""
        data = self._world.storage.read(self.file_name(mod))
        defaults = next(m.settings for m in INSTALLED_MODS if m.package_id == mod.package_id)
        if data is None:
            self._mods.settings[mod.package_id] = _copy(defaults)
            return False
        root = ElementTree.fromstring(data.decode("utf-8"))
        block = root.find("ModSettings")
        if block is None:
            raise RefusedError(f"{self.file_name(mod)} has no ModSettings element.")
        self._mods.settings[mod.package_id] = _read(block, defaults)
        return True


def _handle_type(mod: ModInfo) -> str:
    return f"{mod.folder}.{mod.folder}Mod"


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _xml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"
    return escape(str(value))


def _xml_lines(values: dict[str, Any], depth: int) -> list[str]:
    pad = "  " * depth
    lines = []
    for key, value in values.items():
        if isinstance(value, dict):
            lines += [f"{pad}<{key}>", *_xml_lines(value, depth + 1), f"{pad}</{key}>"]
        elif isinstance(value, list):
            items = [
                f'{pad}  <li IsNull="True" />' if v is None else f"{pad}  <li>{_xml_value(v)}</li>"
                for v in value
            ]
            lines += [f"{pad}<{key}>", *items, f"{pad}</{key}>"]
        else:
            lines.append(f"{pad}<{key}>{_xml_value(value)}</{key}>")
    return lines


def _parse(text: str, like: Any) -> Any:
    if isinstance(like, bool):
        return text.strip().lower() == "true"
    if isinstance(like, int):
        return int(text.strip())
    if isinstance(like, float):
        return float(text.strip())
    return text


def _read(element: ElementTree.Element, defaults: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, default in defaults.items():
        child = element.find(key)
        if child is None:
            result[key] = _copy(default)
        elif isinstance(default, dict):
            result[key] = _read(child, default)
        elif isinstance(default, list):
            like = default[0] if default else ""
            result[key] = [
                None if li.get("IsNull") == "True" else _parse(li.text or "", like)
                for li in child.findall("li")
            ]
        else:
            result[key] = _parse(child.text or "", default)
    return result
