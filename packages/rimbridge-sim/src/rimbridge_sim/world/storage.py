"""Where the game keeps its files (saves, config, screenshots), behind a small protocol.

The world itself does no I/O: it hands bytes to a :class:`Storage`. :class:`MemoryStorage`
keeps them in memory (tests, a world without a data folder); :class:`DiskStorage` writes real
files under RimWorld's user data folder layout (``Saves/``, ``Config/``, ``Screenshots/``).
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

__all__ = ["DiskStorage", "FileInfo", "MemoryStorage", "Storage"]


@dataclass(frozen=True)
class FileInfo:
    relative: str
    path: str
    size_bytes: int
    modified: float
    """Unix time of the last write."""


class Storage(Protocol):
    """Files under one root, addressed by ``/``-separated relative paths."""

    @property
    def root(self) -> str: ...

    def write(self, relative: str, data: bytes) -> FileInfo: ...

    def read(self, relative: str) -> bytes | None: ...

    def remove(self, relative: str) -> bool: ...

    def stat(self, relative: str) -> FileInfo | None: ...

    def list(self, folder: str) -> list[FileInfo]: ...


class MemoryStorage:
    """Files in a dict (paths are shown under a pretend root)."""

    def __init__(self, root: str = "/rimworld") -> None:
        self._root = root
        self._files: dict[str, tuple[bytes, float]] = {}

    @property
    def root(self) -> str:
        return self._root

    def _info(self, relative: str, data: bytes, modified: float) -> FileInfo:
        return FileInfo(relative, f"{self._root}/{relative}", len(data), modified)

    def write(self, relative: str, data: bytes) -> FileInfo:
        now = time.time()
        self._files[relative] = (bytes(data), now)
        return self._info(relative, data, now)

    def read(self, relative: str) -> bytes | None:
        found = self._files.get(relative)
        return None if found is None else found[0]

    def remove(self, relative: str) -> bool:
        return self._files.pop(relative, None) is not None

    def stat(self, relative: str) -> FileInfo | None:
        found = self._files.get(relative)
        return None if found is None else self._info(relative, *found)

    def list(self, folder: str) -> list[FileInfo]:
        prefix = folder.rstrip("/") + "/"
        return [
            self._info(name, data, modified)
            for name, (data, modified) in sorted(self._files.items())
            if name.startswith(prefix) and "/" not in name[len(prefix) :]
        ]


class DiskStorage:
    """Real files under ``root``; writes are atomic (a temp file renamed into place)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self._path = Path(root).resolve()
        self._path.mkdir(parents=True, exist_ok=True)

    @property
    def root(self) -> str:
        return str(self._path)

    def _resolve(self, relative: str) -> Path:
        target = (self._path / relative).resolve()
        if self._path not in target.parents:
            raise ValueError(f"{relative!r} is outside the data folder")
        return target

    def _info(self, relative: str, target: Path) -> FileInfo:
        stat = target.stat()
        return FileInfo(relative, str(target), stat.st_size, stat.st_mtime)

    def write(self, relative: str, data: bytes) -> FileInfo:
        target = self._resolve(relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
            os.replace(temp, target)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
        return self._info(relative, target)

    def read(self, relative: str) -> bytes | None:
        target = self._resolve(relative)
        try:
            return target.read_bytes()
        except FileNotFoundError:
            return None

    def remove(self, relative: str) -> bool:
        target = self._resolve(relative)
        try:
            target.unlink()
        except FileNotFoundError:
            return False
        return True

    def stat(self, relative: str) -> FileInfo | None:
        target = self._resolve(relative)
        return self._info(relative, target) if target.is_file() else None

    def list(self, folder: str) -> list[FileInfo]:
        directory = self._resolve(folder) if folder else self._path
        if not directory.is_dir():
            return []
        prefix = folder.rstrip("/") + "/" if folder else ""
        return [
            self._info(prefix + entry.name, entry)
            for entry in sorted(directory.iterdir())
            if entry.is_file() and not entry.name.startswith(".tmp-")
        ]
