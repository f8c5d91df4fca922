"""Reloading the config while the bridge runs, keeping the last good version.

:meth:`ConfigStore.snapshot` looks at ``config.json`` on every call and parses it again only
when its bytes changed (no file watcher: a save, in place or by rename, is seen on the next
call). The bytes are read again only when the file's identity, size or times changed since they
were last read, or when they were read less than a second after the file was written (a second
write within the file system's timestamp granularity would otherwise go unseen), so an unchanged
file costs one ``stat`` per call, and so does a file that is still missing. An invalid
file is parsed once per content and its error kept; until it is fixed, the last good config
keeps answering reads and :attr:`Snapshot.error` tells callers to refuse starts
(``config_invalid``). What reloads is the ``games`` part; the top-level settings are read when
the bridge starts.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from typing import Final

from ._file import GabsConfig, config_revision
from ._issues import ConfigError, read_failure

__all__ = ["ConfigStore", "Snapshot"]

#: A file read this soon after its last write is read again on the next look.
_SETTLED_NS: Final = 1_000_000_000


#: The signature of a file that is not there.
_MISSING: Final[tuple[int, ...]] = ()


def _signature(path: str) -> tuple[int, ...] | None:
    """What changes when the file does: identity, size, modification and change times;
    :data:`_MISSING` when there is no file, None when it cannot be looked at."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return _MISSING
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


@dataclass(frozen=True)
class Snapshot:
    """A config to use now, and the error of the file on disk when it is invalid."""

    config: GabsConfig
    error: ConfigError | None = None

    @property
    def revision(self) -> str:
        return self.config.revision


class ConfigStore:
    """The config of one directory, re-read when its file changes."""

    def __init__(self, config: GabsConfig) -> None:
        self._lock = threading.Lock()
        self._current = config
        self._current_revision = config.revision if config.exists else None
        self._invalid_revision: str | None = None
        self._invalid_error: ConfigError | None = None
        self._path = str(config.path)
        # the signature of the file when its bytes were last read, once it is settled
        self._settled: tuple[int, ...] | None = None

    @property
    def path(self) -> str:
        return self._path

    @property
    def current(self) -> GabsConfig:
        """The last good config, without looking at the file."""
        return self._current

    def snapshot(self) -> Snapshot:
        """The config as the file says now, or the last good one with the file's error."""
        with self._lock:
            signature = _signature(self._path)
            if signature is not None and signature == self._settled:
                if self._invalid_revision is not None and self._invalid_error is not None:
                    return Snapshot(self._current, self._invalid_error)
                return Snapshot(self._current)
            if signature == _MISSING and self._current_revision is None:
                return Snapshot(self._current)  # still no file, as when it was last looked at
            return self._read(signature)

    def _read(self, signature: tuple[int, ...] | None) -> Snapshot:
        path = self._current.path
        self._settled = None
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            if self._current_revision is None:
                return Snapshot(self._current)
            config = GabsConfig(self._current.config_dir)
            self._publish(config, None)
            return Snapshot(config)
        except OSError as exc:
            error = ConfigError(read_failure(path, exc), source=path, revision="unreadable")
            return Snapshot(self._current, error)
        if signature and time.time_ns() - signature[3] >= _SETTLED_NS:
            self._settled = signature
        revision = config_revision(raw)
        if revision == self._current_revision:
            self._invalid_revision = self._invalid_error = None
            return Snapshot(self._current)
        if revision == self._invalid_revision and self._invalid_error is not None:
            return Snapshot(self._current, self._invalid_error)
        config = GabsConfig(self._current.config_dir)
        try:
            config._apply_bytes(raw)
        except ConfigError as exc:
            self._invalid_revision = revision
            self._invalid_error = exc
            return Snapshot(self._current, exc)
        self._publish(config, revision)
        return Snapshot(config)

    def _publish(self, config: GabsConfig, revision: str | None) -> None:
        self._current = config
        self._current_revision = revision
        self._invalid_revision = None
        self._invalid_error = None
