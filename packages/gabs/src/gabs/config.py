"""The bridge's configuration: ``<config-dir>/config.json`` and the per-game runtime folders.

The file has the Go bridge's shape, so existing configs keep working::

    {"version": "1.0",
     "games": {"rimworld": {"id": "rimworld", "name": "RimWorld", "launchMode": "DirectPath",
                            "target": "/path/to/game", "args": [], "workingDir": "/path",
                            "env": {"KEY": "value"}, "description": "..."}}}

plus optional keys of our own, per game (``attention``, ``exposeGameTools``, ``timeouts``,
``gabpPort``, ``requiredContext``) and for the whole bridge (``bridge``: HTTP settings).
Keys the Go bridge knows but this bridge does not use (``profiles``, ``lifecycle``,
``toolNormalization``, ...) are accepted, kept on save and reported by :attr:`GabsConfig.notes`;
any other unknown key is an error.

Where the config lives: an explicit directory, else ``$GABS_CONFIG_DIR``, else ``~/.gabs``
(:func:`resolve_config_dir`). Each game gets ``<config-dir>/<gameId>/`` for its log and the
``bridge.json`` diagnostics (:func:`game_runtime_dir`).

Every validation problem is reported with its JSON path and the rule it breaks, e.g.
``$.games.rimworld.launchMode: must be one of DirectPath, CustomCommand, SteamAppId,
EpicAppId``. The file may hold secrets (game ``env``), so it is written atomically with mode
0600.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic_core import ErrorDetails, PydanticCustomError

from gabp.handoff import write_secret_file

__all__ = [
    "CONFIG_DIR_ENV",
    "CONFIG_FILE_NAME",
    "CONFIG_VERSION",
    "GAME_ID_PATTERN",
    "LAUNCHABLE_MODES",
    "AttentionMode",
    "AttentionSettings",
    "BridgeSettings",
    "ConfigError",
    "ConfigProblem",
    "GabsConfig",
    "GameConfig",
    "GameTimeouts",
    "LaunchMode",
    "UnknownGameError",
    "config_json_schema",
    "game_runtime_dir",
    "resolve_config_dir",
]

CONFIG_DIR_ENV: Final = "GABS_CONFIG_DIR"
CONFIG_FILE_NAME: Final = "config.json"
CONFIG_VERSION: Final = "1.0"
#: A game id: a letter or digit, then up to 63 letters, digits, ``_`` or ``-``.
GAME_ID_PATTERN: Final = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"
_GAME_ID: Final = re.compile(GAME_ID_PATTERN)

LaunchMode = Literal["DirectPath", "CustomCommand", "SteamAppId", "EpicAppId"]
#: The launch modes this bridge can start; the store modes are read but refused at start.
LAUNCHABLE_MODES: Final[tuple[str, ...]] = ("DirectPath", "CustomCommand")
AttentionMode = Literal["off", "observe", "gate"]

# Keys the Go bridge understands that this bridge accepts, keeps and ignores.
_GO_GAME_KEYS: Final = (
    "stopProcessName",
    "gabpMode",
    "gabpHost",
    "defaultProfile",
    "profiles",
    "launchInputs",
    "lifecycle",
)
_GO_TOP_KEYS: Final = ("toolNormalization", "apiKey", "portRanges", "timeouts", "stripOutputSchema")


# ---------------------------------------------------------------------------------------------
# Errors


@dataclass(frozen=True)
class ConfigProblem:
    """One thing wrong with a config: where (a JSON path such as ``$.games.x.target``) and why."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class ConfigError(ValueError):
    """The configuration cannot be read, is invalid, or an operation on it is refused.

    ``problems`` lists each validation problem (empty for errors that are not about the
    contents, such as an unreadable file); ``source`` is the file, when there is one.
    """

    def __init__(
        self,
        message: str,
        problems: Iterable[ConfigProblem] = (),
        *,
        source: Path | None = None,
    ) -> None:
        self.problems: tuple[ConfigProblem, ...] = tuple(problems)
        self.source = source
        self.summary = message
        lines = [message, *(f"  {problem}" for problem in self.problems)]
        super().__init__("\n".join(lines))


class UnknownGameError(ConfigError, LookupError):
    """No game with this id is configured."""

    def __init__(self, game_id: str, known: Iterable[str]) -> None:
        self.game_id = game_id
        self.known: tuple[str, ...] = tuple(sorted(known))
        listing = ", ".join(self.known) if self.known else "none"
        super().__init__(f"no game {game_id!r} is configured (configured games: {listing})")


# ---------------------------------------------------------------------------------------------
# Models


class _Model(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="forbid",
        strict=True,
        frozen=True,
    )


def _check_no_nul(value: str, what: str) -> str:
    if "\x00" in value:
        raise ValueError(f"{what} must not contain a NUL character")
    return value


class AttentionSettings(_Model):
    """How the bridge treats the game's attention items.

    ``mode``: ``off`` (ignored), ``observe`` (shown, never blocks) or ``gate`` (game-bound
    calls refused while a blocking item is open, except ``allow``-listed tools).
    ``fail_closed``: when the game supports attention but cannot be asked, refuse calls.
    """

    mode: AttentionMode = "gate"
    allow: list[str] = Field(default_factory=list)
    fail_closed: bool = True

    @field_validator("allow")
    @classmethod
    def _tool_names(cls, value: list[str]) -> list[str]:
        for name in value:
            if not name.strip():
                raise ValueError("tool names must not be empty")
            if name != name.strip():
                raise ValueError(f"tool name {name!r} must not start or end with whitespace")
        return value


class GameTimeouts(_Model):
    """Seconds: starting (launch until GABP accepts), a game call, the stop grace period before
    a forced kill, and attaching to an already running game."""

    start_seconds: float = Field(default=30.0, gt=0)
    call_seconds: float = Field(default=30.0, gt=0)
    stop_grace_seconds: float = Field(default=5.0, ge=0)
    connect_seconds: float = Field(default=10.0, gt=0)


class GameConfig(_Model):
    """One game entry of ``config.json`` (the Go bridge's fields plus ours)."""

    id: str = Field(pattern=GAME_ID_PATTERN)
    name: str = Field(min_length=1)
    launch_mode: LaunchMode
    target: str
    args: list[str] = Field(default_factory=list)
    working_dir: str | None = None
    env: dict[str, str] = Field(default_factory=dict)
    unset_env: list[str] = Field(default_factory=list)
    description: str | None = None
    # Ours.
    attention: AttentionSettings = Field(default_factory=AttentionSettings)
    expose_game_tools: bool = False
    timeouts: GameTimeouts = Field(default_factory=GameTimeouts)
    gabp_port: int | None = Field(default=None, ge=1, le=65535)
    max_concurrent_requests: int | None = Field(default=None, ge=1, le=1024)
    """Requests the bridge sends this game at once; replaces what the game declares
    (``capabilities.extensions.concurrency.maxConcurrentRequests``, else 1)."""
    required_context: dict[str, Any] | None = None
    # The Go bridge's, accepted and kept, not used.
    stop_process_name: str | None = None
    gabp_mode: Any = None
    gabp_host: Any = None
    default_profile: Any = None
    profiles: Any = None
    launch_inputs: Any = None
    lifecycle: Any = None

    @field_validator("target")
    @classmethod
    def _target(cls, value: str) -> str:
        return _check_no_nul(value, "target")

    @field_validator("args")
    @classmethod
    def _args(cls, value: list[str]) -> list[str]:
        for arg in value:
            _check_no_nul(arg, "arguments")
        return value

    @field_validator("working_dir")
    @classmethod
    def _working_dir(cls, value: str | None) -> str | None:
        return value if value is None else _check_no_nul(value, "workingDir")

    @field_validator("env")
    @classmethod
    def _env(cls, value: dict[str, str]) -> dict[str, str]:
        for key, item in value.items():
            _check_env_name(key)
            _check_no_nul(item, f"the value of {key}")
        return value

    @field_validator("unset_env")
    @classmethod
    def _unset_env(cls, value: list[str]) -> list[str]:
        for key in value:
            _check_env_name(key)
        return value

    @property
    def launchable(self) -> bool:
        """Whether this bridge can start the game (``DirectPath`` or ``CustomCommand``)."""
        return self.launch_mode in LAUNCHABLE_MODES

    def to_json(self) -> dict[str, Any]:
        """The entry as written to ``config.json``: camelCase, only keys that were given."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)

    def notes(self, path: str) -> list[ConfigProblem]:
        """Keys present for the Go bridge that this bridge ignores."""
        present = self.model_dump(by_alias=True, exclude_unset=True)
        return [
            ConfigProblem(f"{path}.{key}", "a Go-bridge setting this bridge does not use; kept")
            for key in _GO_GAME_KEYS
            if key in present
        ]


def _check_env_name(name: str) -> None:
    if not name:
        raise ValueError("environment variable names must not be empty")
    if "=" in name or "\x00" in name:
        raise ValueError(f"environment variable name {name!r} must not contain '=' or NUL")


class BridgeSettings(_Model):
    """Bridge-wide settings for the Streamable HTTP transport (all optional)."""

    host: str | None = None
    port: int | None = Field(default=None, ge=0, le=65535)
    token_file: str | None = None
    allowed_origins: list[str] | None = None
    ledger_jsonl: bool = False
    """Also append the call ledger to ``<config-dir>/ledger.jsonl`` (bounded, rotated, 0600)."""


class _Document(_Model):
    """The whole ``config.json`` document."""

    model_config = ConfigDict(frozen=False)

    version: Literal["1.0"] = CONFIG_VERSION
    games: dict[str, GameConfig] = Field(default_factory=dict)
    bridge: BridgeSettings | None = None
    context_templates: list[dict[str, Any]] | None = None
    """Context-assembly templates (``gabs.context``); validated when the bridge starts."""
    # The Go bridge's, accepted and kept, not used.
    tool_normalization: Any = None
    api_key: Any = None
    port_ranges: Any = None
    timeouts: Any = None
    strip_output_schema: Any = None

    @model_validator(mode="after")
    def _ids_match_keys(self) -> _Document:
        for key, game in self.games.items():
            if game.id != key:
                raise PydanticCustomError(
                    "game_id_mismatch",
                    "the game under key {key} has id {id}",
                    {"key": key, "id": game.id},
                )
        return self


# ---------------------------------------------------------------------------------------------
# Turning pydantic errors into paths and rules

_PLAIN_KEY: Final = re.compile(r"[A-Za-z0-9_-]+")

_RULES: Final[dict[str, str]] = {
    "missing": "is required",
    "extra_forbidden": "is not a known key",
    "string_type": "must be a string",
    "bool_type": "must be true or false",
    "int_type": "must be an integer",
    "int_from_float": "must be an integer",
    "float_type": "must be a number",
    "list_type": "must be an array",
    "tuple_type": "must be an array",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "finite_number": "must be a finite number",
}


def _json_path(loc: Iterable[int | str]) -> str:
    path = "$"
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif _PLAIN_KEY.fullmatch(part):
            path += f".{part}"
        else:
            path += f"[{json.dumps(part, ensure_ascii=False)}]"
    return path


def _number(value: object) -> str:
    return f"{value:g}" if isinstance(value, int | float) else str(value)


def _rule(error: ErrorDetails) -> str:
    kind = error["type"]
    ctx = error.get("ctx") or {}
    if kind in _RULES:
        return _RULES[kind]
    if kind == "literal_error":
        expected = str(ctx.get("expected", "")).replace("'", "").replace(" or ", ", ")
        return f"must be one of {expected}"
    if kind == "string_pattern_mismatch":
        return f"must match {ctx.get('pattern')}"
    if kind == "string_too_short":
        return "must not be empty"
    if kind == "greater_than":
        return f"must be greater than {_number(ctx.get('gt'))}"
    if kind == "greater_than_equal":
        return f"must be at least {_number(ctx.get('ge'))}"
    if kind == "less_than_equal":
        return f"must be at most {_number(ctx.get('le'))}"
    if kind == "value_error":
        return str(ctx.get("error", error["msg"]))
    return error["msg"][:1].lower() + error["msg"][1:]


def _problems_from(exc: ValidationError) -> list[ConfigProblem]:
    problems = []
    for error in exc.errors(include_url=False):
        if error["type"] == "game_id_mismatch":
            continue  # reported by _key_problems, with a better path
        loc = tuple(error["loc"])
        # A dict's keys fail with a trailing "[key]" location element.
        if loc and loc[-1] == "[key]":
            loc = loc[:-1]
        problems.append(ConfigProblem(_json_path(loc), _rule(error)))
    return problems


def _key_problems(document: object) -> list[ConfigProblem]:
    """Game keys that are not valid ids, and entries whose ``id`` differs from their key."""
    if not isinstance(document, Mapping):
        return []
    games = document.get("games")
    if not isinstance(games, Mapping):
        return []
    problems = []
    for key, entry in games.items():
        path = _json_path(("games", key))
        if not _GAME_ID.fullmatch(key):
            problems.append(ConfigProblem(path, f"game ids must match {GAME_ID_PATTERN}"))
        if isinstance(entry, Mapping) and isinstance(entry.get("id"), str) and entry["id"] != key:
            problems.append(ConfigProblem(f"{path}.id", f"must equal the key {json.dumps(key)}"))
    return problems


def _validate_document(document: object) -> _Document:
    if not isinstance(document, Mapping):
        raise ConfigError("invalid config", [ConfigProblem("$", "must be an object")])
    problems = _key_problems(document)
    try:
        parsed = _Document.model_validate(document)
    except ValidationError as exc:
        problems += _problems_from(exc)
    if problems:
        problems.sort(key=lambda problem: problem.path)
        raise ConfigError("invalid config", problems)
    return parsed


# ---------------------------------------------------------------------------------------------
# Locations


def resolve_config_dir(
    explicit: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None
) -> Path:
    """The config directory: ``explicit``, else ``$GABS_CONFIG_DIR``, else ``~/.gabs``."""
    if explicit is not None and str(explicit):
        return Path(explicit).expanduser()
    if env is None:
        env = os.environ
    from_env = env.get(CONFIG_DIR_ENV)
    if from_env:
        return Path(from_env).expanduser()
    return Path.home() / ".gabs"


def game_runtime_dir(config_dir: str | os.PathLike[str], game_id: str) -> Path:
    """``<config-dir>/<gameId>/``: the game's log and ``bridge.json`` diagnostics."""
    if not _GAME_ID.fullmatch(game_id):
        raise ConfigError(f"invalid game id {game_id!r}: must match {GAME_ID_PATTERN}")
    return Path(config_dir) / game_id


# ---------------------------------------------------------------------------------------------
# The config


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    duplicates = []
    for key, value in pairs:
        if key in result:
            duplicates.append(key)
        result[key] = value
    if duplicates:
        raise _DuplicateKeyError(duplicates[0])
    return result


class _DuplicateKeyError(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


class GabsConfig:
    """The games and bridge settings of one config directory.

    Build it with :meth:`load` (a missing file is an empty config), change it with
    :meth:`add_game` / :meth:`remove_game`, write it with :meth:`save`.
    """

    def __init__(self, config_dir: str | os.PathLike[str] | None = None) -> None:
        self.config_dir = resolve_config_dir(config_dir)
        self._document = _Document()

    # -- loading and saving --

    @classmethod
    def load(cls, config_dir: str | os.PathLike[str] | None = None) -> GabsConfig:
        """Read ``<config-dir>/config.json``; raise :class:`ConfigError` if it is unusable."""
        config = cls(config_dir)
        path = config.path
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return config
        except OSError as exc:
            raise ConfigError(f"cannot read {path}: {exc.strerror or exc}", source=path) from None
        config._document = cls._parse(raw, path)
        return config

    @classmethod
    def from_json(
        cls, document: object, config_dir: str | os.PathLike[str] | None = None
    ) -> GabsConfig:
        """A config from an already parsed document (checked like a file)."""
        config = cls(config_dir)
        config._document = _validate_document(document)
        return config

    @staticmethod
    def _parse(raw: bytes, path: Path) -> _Document:
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{path} is not UTF-8 (byte {exc.start})", source=path) from None
        try:
            document = json.loads(text, object_pairs_hook=_reject_duplicate_keys)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"{path} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
                source=path,
            ) from None
        except _DuplicateKeyError as exc:
            raise ConfigError(
                f"{path} is not valid: the key {json.dumps(exc.key)} appears twice in one object",
                source=path,
            ) from None
        try:
            return _validate_document(document)
        except ConfigError as exc:
            raise ConfigError(f"invalid config {path}", exc.problems, source=path) from None

    @property
    def path(self) -> Path:
        """``<config-dir>/config.json``."""
        return self.config_dir / CONFIG_FILE_NAME

    def to_json(self) -> dict[str, Any]:
        """The document as :meth:`save` writes it (``version`` and ``games`` always present)."""
        document: dict[str, Any] = {
            "version": self._document.version,
            "games": {key: game.to_json() for key, game in self._document.games.items()},
        }
        rest = self._document.model_dump(
            mode="json", by_alias=True, exclude_unset=True, exclude={"version", "games"}
        )
        document.update(rest)
        return document

    def save(self) -> Path:
        """Write the config atomically with mode 0600 (it may hold secrets); return its path."""
        data = json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"
        try:
            write_secret_file(self.path, data.encode("utf-8"))
        except OSError as exc:
            raise ConfigError(
                f"cannot write {self.path}: {exc.strerror or exc}", source=self.path
            ) from None
        return self.path

    # -- games --

    @property
    def version(self) -> str:
        return self._document.version

    @property
    def games(self) -> Mapping[str, GameConfig]:
        """The games by id (a read-only view; use :meth:`add_game` / :meth:`remove_game`)."""
        return dict(self._document.games)

    @property
    def context_templates(self) -> list[dict[str, Any]]:
        return list(self._document.context_templates or [])

    @property
    def bridge(self) -> BridgeSettings:
        """The bridge-wide settings (defaults when the file has none)."""
        return self._document.bridge or BridgeSettings()

    def game(self, game_id: str) -> GameConfig:
        """The game with this id, or :class:`UnknownGameError` naming the configured ones."""
        try:
            return self._document.games[game_id]
        except KeyError:
            raise UnknownGameError(game_id, self._document.games) from None

    def add_game(self, game: GameConfig, *, replace: bool = False) -> None:
        """Add a game; an existing id is refused unless ``replace``."""
        if game.id in self._document.games and not replace:
            raise ConfigError(
                f"a game with id {game.id!r} is already configured (replace it explicitly)"
            )
        games = dict(self._document.games)
        games[game.id] = game
        self._document.games = games

    def remove_game(self, game_id: str) -> GameConfig:
        """Remove a game and return its entry; :class:`UnknownGameError` if there is none."""
        removed = self.game(game_id)
        games = dict(self._document.games)
        del games[game_id]
        self._document.games = games
        return removed

    def game_dir(self, game_id: str) -> Path:
        """``<config-dir>/<gameId>/``."""
        return game_runtime_dir(self.config_dir, game_id)

    @property
    def notes(self) -> list[ConfigProblem]:
        """Go-bridge keys that are present and kept, but not used by this bridge."""
        notes = []
        present = self._document.model_dump(by_alias=True, exclude_unset=True)
        for key in _GO_TOP_KEYS:
            if key in present:
                notes.append(
                    ConfigProblem(f"$.{key}", "a Go-bridge setting this bridge does not use; kept")
                )
        for key, game in self._document.games.items():
            notes += game.notes(_json_path(("games", key)))
        return notes

    def __repr__(self) -> str:
        return f"GabsConfig(config_dir={str(self.config_dir)!r}, games={sorted(self.games)!r})"


def config_json_schema() -> dict[str, Any]:
    """A JSON Schema (draft 2020-12) of ``config.json``, generated from the models."""
    schema = _Document.model_json_schema(by_alias=True)
    schema["title"] = "GABS bridge configuration"
    return schema
