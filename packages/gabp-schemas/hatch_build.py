"""Build hook: put the repository's schema tree into the sdist and the wheel.

The tree lives once, at the repository root (``../../schemas`` from here). An sdist built
from the repository carries it as ``schemas/``; a wheel carries it as ``gabp_schemas/data``,
whether it is built from the repository or from that sdist. Editable installs get nothing:
the package then reads the repository's tree directly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

_MARKER = Path("1.0") / "envelope.schema.json"


class SchemaTreeBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def _schema_tree(self) -> Path:
        root = Path(self.root)
        for candidate in (root / "schemas", root.parent.parent / "schemas"):
            if (candidate / _MARKER).is_file():
                return candidate.resolve()
        raise FileNotFoundError(
            f"no GABP schema tree next to {root} (schemas/) or at the repository root "
            "(../../schemas)"
        )

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name == "wheel" and version == "editable":
            return
        destination = {"wheel": "gabp_schemas/data", "sdist": "schemas"}.get(self.target_name)
        if destination is not None:
            build_data["force_include"][str(self._schema_tree())] = destination
