"""The bridge-wide settings of ``config.json`` that shape the MCP surface (:class:`BridgeOptions`).

They are the Go bridge's top-level keys, read in this one place from the config document:

* ``apiKey``: a bearer token the HTTP transport accepts besides its own (see
  :mod:`gabs.transports.http`); never logged.
* ``toolNormalization``: ``{enableOpenAINormalization, maxToolNameLength,
  preserveOriginalName}``. On (the default), the core tools are listed under their
  strict-safe names (``games_list``) with the dotted name in ``_meta.originalName`` (and, with
  ``preserveOriginalName``, in the description); off, they are listed under the dotted names
  (``games.list``). Both spellings are always accepted.
* ``stripOutputSchema``: leave ``outputSchema`` out of ``tools/list`` (for hosts that reject it).

A value of the wrong type counts as absent (the config check reports it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gabs.config import GabsConfig

__all__ = ["BridgeOptions"]


@dataclass(frozen=True)
class BridgeOptions:
    """The Go bridge's top-level settings that this bridge honours."""

    api_key: str | None = None
    normalize_tool_names: bool = True
    max_tool_name_length: int = 64
    preserve_original_name: bool = True
    strip_output_schema: bool = False

    def __repr__(self) -> str:  # the API key stays out of logs and tracebacks
        key = "set" if self.api_key else "none"
        return (
            f"BridgeOptions(api_key={key}, normalize_tool_names={self.normalize_tool_names}, "
            f"strip_output_schema={self.strip_output_schema})"
        )

    @classmethod
    def from_document(cls, document: Mapping[str, Any]) -> BridgeOptions:
        api_key = document.get("apiKey")
        normalization = document.get("toolNormalization")
        options: dict[str, Any] = {}
        if isinstance(normalization, Mapping):
            enabled = normalization.get("enableOpenAINormalization")
            options["normalize_tool_names"] = enabled is True
            length = normalization.get("maxToolNameLength")
            if isinstance(length, int) and not isinstance(length, bool) and length > 0:
                options["max_tool_name_length"] = length
            options["preserve_original_name"] = normalization.get("preserveOriginalName") is True
        return cls(
            api_key=api_key if isinstance(api_key, str) and api_key.strip() else None,
            strip_output_schema=document.get("stripOutputSchema") is True,
            **options,
        )

    @classmethod
    def from_config(cls, config: GabsConfig) -> BridgeOptions:
        return cls.from_document(config.to_json())
