"""``<config-dir>/config.json``: where it is, loading it, changing it, writing it back.

The Go bridge's layout: the config at ``~/.gabs/config.json`` (or ``--configDir``), and a
folder per game, ``<config-dir>/<gameId>/``, for its runtime files. ``$GABS_CONFIG_DIR`` is
ours; a config found only in the platform's config folder (``~/.config/gabs`` and the like)
keeps working, with a note.

A file that is not JSON, has duplicated members or wrong top-level values is invalid as a
whole (:class:`~._issues.ConfigError`). A problem inside one game entry makes only that game
unusable (:attr:`GabsConfig.broken`); the others load. Unknown keys are warnings, except inside
``profiles``, ``launchInputs`` and ``lifecycle``, where they are errors, as in the Go bridge.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from gabp.handoff import write_secret_file

from ..go_format import go_quote
from ._issues import (
    PARSE_FAILED,
    READ_FAILED,
    ConfigError,
    ConfigIssue,
    UnknownGameError,
    game_pointer,
    read_failure,
)
from ._json import DecodeError, decode_document, duplicate_members
from ._layout import encode_document
from ._model import GameConfig, Settings
from ._read import read_game, read_settings
from ._rules import check_extensions, check_game_id, directory_key
from ._values import Values

__all__ = [
    "CONFIG_DIR_ENV",
    "CONFIG_FILE_NAME",
    "CONFIG_VERSION",
    "GabsConfig",
    "config_revision",
    "game_runtime_dir",
    "resolve_config_dir",
    "resolve_config_location",
]

#: The Go bridge's first line of a refused configuration, its problems follow.
_INVALID: Final = "invalid configuration:"

CONFIG_DIR_ENV: Final = "GABS_CONFIG_DIR"
CONFIG_FILE_NAME: Final = "config.json"
CONFIG_VERSION: Final = "1.0"


def config_revision(raw: bytes) -> str:
    """``sha256:`` and the first 12 hex digits of the content's hash (the Go bridge's form)."""
    return "sha256:" + hashlib.sha256(raw).hexdigest()[:12]


def _platform_config_dir(env: Mapping[str, str]) -> Path | None:
    home = Path.home()
    if sys.platform == "win32":
        appdata = env.get("APPDATA")
        return Path(appdata) / "gabs" if appdata else None
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "gabs"
    base = env.get("XDG_CONFIG_HOME") or str(home / ".config")
    return Path(base) / "gabs"


def resolve_config_location(
    explicit: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None
) -> tuple[Path, str | None]:
    """The config directory and, when an older location is used, a note saying so.

    ``explicit`` (``--configDir``), else ``$GABS_CONFIG_DIR``, else ``~/.gabs``; when
    ``~/.gabs/config.json`` does not exist but the platform's config folder has one, that
    folder is used and the note suggests moving it.
    """
    if explicit is not None and str(explicit):
        return Path(explicit).expanduser(), None
    env = os.environ if env is None else env
    from_env = env.get(CONFIG_DIR_ENV)
    if from_env:
        return Path(from_env).expanduser(), None
    default = Path.home() / ".gabs"
    if not (default / CONFIG_FILE_NAME).exists():
        legacy = _platform_config_dir(env)
        if legacy is not None and (legacy / CONFIG_FILE_NAME).is_file():
            note = (
                f"using {legacy / CONFIG_FILE_NAME}; the standard location is "
                f"{default / CONFIG_FILE_NAME} (move the file there, or pass --configDir)"
            )
            return legacy, note
    return default, None


def resolve_config_dir(
    explicit: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None
) -> Path:
    """The config directory (see :func:`resolve_config_location`)."""
    return resolve_config_location(explicit, env)[0]


def game_runtime_dir(config_dir: str | os.PathLike[str], game_id: str) -> Path:
    """``<config-dir>/<gameId>/``: the game's runtime files (claims, endpoint, launch log)."""
    problem = check_game_id(game_id)
    if problem is not None:
        raise ConfigError(f"invalid game id: {problem}")
    return Path(config_dir) / game_id


class _Parsed:
    def __init__(self, document: dict[str, Any]) -> None:
        values = Values()
        self.settings = read_settings(values, document)
        self.games: dict[str, GameConfig] = {}
        self.broken: dict[str, list[ConfigIssue]] = {}
        self.duplicated: dict[str, list[ConfigIssue]] = {}
        self.errors: list[ConfigIssue] = []
        raw_games = values.obj(document.get("games"), "/games") or {}
        self.document = document
        top = list(values.errors)
        values.errors.clear()
        owners: dict[str, str] = {}
        for game_id in sorted(raw_games):
            path = game_pointer(game_id)
            problem = check_game_id(game_id)
            if problem is not None:
                self.broken[game_id] = [
                    ConfigIssue(path, f"game ID is not addressable at runtime: {problem}")
                ]
                continue
            game = read_game(values, game_id, raw_games[game_id])
            issues = list(values.errors)
            values.errors.clear()
            key = directory_key(game_id)
            if key in owners:
                issues.append(
                    ConfigIssue(
                        path,
                        f"game ID {go_quote(game_id)} maps to the same runtime directory as "
                        f"{go_quote(owners[key])} on a case- or normalization-insensitive "
                        "filesystem; "
                        "use distinct IDs",
                    )
                )
            else:
                owners[key] = game_id
            if game is not None:
                issues += check_extensions(game)
            if issues or game is None:
                self.broken[game_id] = issues
            else:
                self.games[game_id] = game
        for issue in duplicate_members(document):
            owner = issue.owner()
            if owner is not None and owner in raw_games:
                self.broken.setdefault(owner, []).append(issue)
                self.duplicated.setdefault(owner, []).append(issue)
                self.games.pop(owner, None)
            else:
                top.append(issue)
        self.errors = top
        self.warnings = values.warnings


class GabsConfig:
    """The games and settings of one config directory.

    Build it with :meth:`load` (a missing file is an empty config), change it with
    :meth:`add_game` / :meth:`remove_game`, write it with :meth:`save`.
    """

    def __init__(self, config_dir: str | os.PathLike[str] | None = None) -> None:
        self.config_dir, self.location_note = resolve_config_location(config_dir)
        self.settings = Settings()
        self.revision = config_revision(b"")
        self.warnings: list[ConfigIssue] = []
        self._games: dict[str, GameConfig] = {}
        self._broken: dict[str, tuple[ConfigIssue, ...]] = {}
        # Entries with a member written twice: decoding kept the last, so a rewrite would
        # silently drop the other; :meth:`save` refuses while one of them is still there.
        self._duplicated: dict[str, tuple[ConfigIssue, ...]] = {}
        self._document: dict[str, Any] = {"version": CONFIG_VERSION, "games": {}}
        self.exists = False

    # -- loading and saving --

    @classmethod
    def load(cls, config_dir: str | os.PathLike[str] | None = None) -> GabsConfig:
        """Read ``<config-dir>/config.json``; :class:`ConfigError` if the file is unusable."""
        config = cls(config_dir)
        path = config.path
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return config
        except OSError as exc:
            raise ConfigError(
                READ_FAILED + read_failure(path, exc), source=path, revision="unreadable"
            ) from None
        config._apply_bytes(raw)
        return config

    def _apply_bytes(self, raw: bytes) -> None:
        path = self.path
        revision = config_revision(raw)
        try:
            document = decode_document(raw)
        except DecodeError as exc:
            raise ConfigError(PARSE_FAILED + str(exc), source=path, revision=revision) from None
        self._apply(document, source=path, revision=revision)
        self.exists = True

    @classmethod
    def from_json(
        cls, document: object, config_dir: str | os.PathLike[str] | None = None
    ) -> GabsConfig:
        """A config from an already parsed document (checked like a file)."""
        config = cls(config_dir)
        config._apply(
            document, source=None, revision=config_revision(json.dumps(document).encode())
        )
        return config

    def _apply(self, document: object, *, source: Path | None, revision: str) -> None:
        if not isinstance(document, dict):
            raise ConfigError(
                _INVALID,
                [ConfigIssue("", "must be a JSON object")],
                source=source,
                revision=revision,
            )
        parsed = _Parsed(document)
        if parsed.errors:
            raise ConfigError(_INVALID, parsed.errors, source=source, revision=revision)
        self.settings = parsed.settings
        self._games = parsed.games
        self._broken = {key: tuple(value) for key, value in parsed.broken.items()}
        self._duplicated = {key: tuple(value) for key, value in parsed.duplicated.items()}
        self.warnings = parsed.warnings
        self.revision = revision
        self._document = dict(document)
        # A file without ``version`` is rewritten with it empty, as the Go bridge decodes it.
        self._document.setdefault("version", "")
        games = document.get("games")
        self._document["games"] = dict(games) if isinstance(games, dict) else {}

    @property
    def path(self) -> Path:
        """``<config-dir>/config.json``."""
        return self.config_dir / CONFIG_FILE_NAME

    def to_json(self) -> dict[str, Any]:
        """The document as :meth:`save` writes it (``version`` and ``games`` always present)."""
        document = {"version": CONFIG_VERSION, **self._document}
        document["games"] = dict(self._document.get("games") or {})
        return document

    def save(self) -> Path:
        """Write the config atomically with mode 0600 (it may hold secrets), laid out as the Go
        bridge writes it (:func:`~._layout.encode_document`); return its path.

        An entry with a duplicated member is refused (:class:`ConfigError`): the decoded
        entry holds only the last of the two, and writing it would change the entry unseen.
        """
        if self._duplicated:
            raise ConfigError(
                "the file cannot be rewritten without losing a duplicated member; "
                "remove the duplicate first:",
                [issue for key in sorted(self._duplicated) for issue in self._duplicated[key]],
                source=self.path,
            )
        data = encode_document(self.to_json())
        try:
            write_secret_file(self.path, data)
        except OSError as exc:
            raise ConfigError(
                f"cannot write {self.path}: {exc.strerror or exc}", source=self.path
            ) from None
        self.revision = config_revision(data)
        self.exists = True
        return self.path

    # -- games --

    @property
    def version(self) -> str:
        version = self._document.get("version")
        return version if isinstance(version, str) else CONFIG_VERSION

    @property
    def games(self) -> Mapping[str, GameConfig]:
        """The usable games by id (a copy; use :meth:`add_game` / :meth:`remove_game`)."""
        return dict(self._games)

    @property
    def broken(self) -> Mapping[str, tuple[ConfigIssue, ...]]:
        """Games whose entry has errors, with them; they are listed but cannot be started."""
        return dict(self._broken)

    @property
    def game_ids(self) -> list[str]:
        """Every configured id, usable or broken, sorted."""
        return sorted({*self._games, *self._broken})

    @property
    def problems(self) -> list[ConfigIssue]:
        """Every error of every broken game entry."""
        return [issue for game_id in sorted(self._broken) for issue in self._broken[game_id]]

    def game_warnings(self, game_id: str) -> list[ConfigIssue]:
        """The warnings about one game's entry (unknown keys)."""
        return [issue for issue in self.warnings if issue.owner() == game_id]

    @property
    def global_warnings(self) -> list[ConfigIssue]:
        """Warnings that belong to no game (unknown top-level keys and the like)."""
        return [issue for issue in self.warnings if issue.owner() is None]

    @property
    def context_templates(self) -> list[dict[str, Any]]:
        return [dict(template) for template in self.settings.context_templates]

    @property
    def bridge(self) -> Any:
        """The bridge-wide HTTP settings of ours (:class:`~._model.BridgeSettings`)."""
        return self.settings.bridge

    def game(self, game_id: str) -> GameConfig:
        """The game with this id; :class:`UnknownGameError`, or :class:`ConfigError` naming
        the problems of a broken entry."""
        found = self._games.get(game_id)
        if found is not None:
            return found
        if game_id in self._broken:
            raise ConfigError(f"the entry of game {game_id!r} is invalid", self._broken[game_id])
        raise UnknownGameError(game_id, self.game_ids)

    def add_game(self, game: GameConfig, *, replace: bool = False) -> None:
        """Add a game (checked like a loaded entry); an existing id is refused unless
        ``replace``."""
        if game.id in self.game_ids and not replace:
            raise ConfigError(
                f"a game with id {game.id!r} is already configured (replace it explicitly)"
            )
        entry = game.to_json()
        checked = GabsConfig.from_json({"version": CONFIG_VERSION, "games": {game.id: entry}})
        if game.id in checked.broken:
            raise ConfigError(_INVALID, checked.broken[game.id])
        key = directory_key(game.id)
        for other in self.game_ids:
            if other != game.id and directory_key(other) == key:
                collision = (
                    f"game ID {go_quote(game.id)} maps to the same runtime directory as "
                    f"{go_quote(other)} on a case- or normalization-insensitive filesystem; "
                    "use distinct IDs"
                )
                raise ConfigError(_INVALID, [ConfigIssue(game_pointer(game.id), collision)])
        self._games[game.id] = checked.game(game.id)
        self._broken.pop(game.id, None)
        self._duplicated.pop(game.id, None)
        games = dict(self._document.get("games") or {})
        games[game.id] = entry
        self._document["games"] = games

    def remove_game(self, game_id: str) -> None:
        """Remove a game; :class:`UnknownGameError` if there is none."""
        if game_id not in self.game_ids:
            raise UnknownGameError(game_id, self.game_ids)
        self._games.pop(game_id, None)
        self._broken.pop(game_id, None)
        self._duplicated.pop(game_id, None)
        games = dict(self._document.get("games") or {})
        games.pop(game_id, None)
        self._document["games"] = games

    def raw_entry(self, game_id: str) -> Any:
        """The entry as written in the file."""
        return (self._document.get("games") or {}).get(game_id)

    def game_dir(self, game_id: str) -> Path:
        """``<config-dir>/<gameId>/``."""
        return game_runtime_dir(self.config_dir, game_id)

    def __repr__(self) -> str:
        return f"GabsConfig(config_dir={str(self.config_dir)!r}, games={self.game_ids!r})"
