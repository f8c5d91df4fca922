"""Resources: named, URI-addressed game data a bridge can list and read."""

from __future__ import annotations

import fnmatch
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio.to_thread

from gabp.messages import schema_regex

__all__ = ["RESOURCE_URI_PATTERN", "Resource", "ResourceRegistry"]

RESOURCE_URI_PATTERN = r"^gabp://[a-z0-9][a-z0-9._-]*/\S*$"
_URI = schema_regex(RESOURCE_URI_PATTERN)


@dataclass
class Resource:
    """A resource: static ``content`` or a ``provider`` (sync or async) called on each read."""

    uri: str
    name: str
    content: Any = None
    provider: Callable[[], Any] | None = None
    description: str | None = None
    mime_type: str | None = "application/json"

    def __post_init__(self) -> None:
        if not _URI.match(self.uri):
            raise ValueError(f"resource URI {self.uri!r} must look like gabp://<namespace>/<path>")
        if not self.name:
            raise ValueError(f"resource {self.uri} needs a name")
        if (self.content is None) == (self.provider is None):
            raise ValueError(f"resource {self.uri} needs exactly one of content and provider")

    @property
    def namespace(self) -> str:
        return self.uri[len("gabp://") :].split("/", 1)[0]

    def descriptor(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"uri": self.uri, "name": self.name}
        if self.description:
            entry["description"] = self.description
        if self.mime_type:
            entry["mimeType"] = self.mime_type
        return entry

    async def read(self) -> dict[str, Any]:
        """The ``resources/read`` result: ``{content, mimeType?}``."""
        if self.provider is None:
            content = self.content
        elif inspect.iscoroutinefunction(self.provider):
            content = await self.provider()
        else:
            content = await anyio.to_thread.run_sync(self.provider)
        result: dict[str, Any] = {"content": content}
        if self.mime_type:
            result["mimeType"] = self.mime_type
        return result


class ResourceRegistry:
    def __init__(self) -> None:
        self._resources: dict[str, Resource] = {}

    def add(self, resource: Resource) -> Resource:
        if resource.uri in self._resources:
            raise ValueError(f"a resource {resource.uri} is already registered")
        self._resources[resource.uri] = resource
        return resource

    def get(self, uri: str) -> Resource | None:
        return self._resources.get(uri)

    def uris(self) -> list[str]:
        return list(self._resources)

    def list(
        self, *, pattern: str | None = None, namespace: str | None = None
    ) -> list[dict[str, Any]]:
        """Descriptors of the resources whose URI matches the glob ``pattern`` and whose
        namespace is ``namespace`` (both optional)."""
        return [
            resource.descriptor()
            for resource in self._resources.values()
            if (pattern is None or fnmatch.fnmatchcase(resource.uri, pattern))
            and (namespace is None or resource.namespace == namespace)
        ]
