"""Text renderings of a game's configuration, shared by ``gabs games show`` and ``games_show``.

The words are the Go bridge's: the arguments label, the launch contexts (default profile,
profiles with their descriptions, launch inputs with type, enum, range, length, pattern and
profile scope) and the ``games_show`` text block, which carries everything a caller of
``games_start`` needs because not every MCP client shows structured content to a model.
"""

from __future__ import annotations

from gabs.config import INPUT_MAX_LENGTH_DEFAULT, GameConfig, LaunchInputConfig

__all__ = ["arguments_label", "describe_launch_contexts", "show_text"]


def arguments_label(game: GameConfig) -> str:
    """``Arguments``, or ``Base Arguments (...)`` when a profile appends to them."""
    if game.profiles:
        return "Base Arguments (a profile appends to these)"
    return "Arguments"


def _constraints(spec: LaunchInputConfig) -> str:
    parts = [spec.type]
    if spec.enum:
        parts.append("one of [" + ", ".join(spec.enum) + "]")
    if spec.minimum is not None and spec.maximum is not None:
        parts.append(f"range {spec.minimum}..{spec.maximum}")
    elif spec.minimum is not None:
        parts.append(f"minimum {spec.minimum}")
    elif spec.maximum is not None:
        parts.append(f"maximum {spec.maximum}")
    if spec.type == "string":
        max_length = spec.max_length if spec.max_length is not None else INPUT_MAX_LENGTH_DEFAULT
        parts.append(f"maxLength {max_length}")
        if spec.pattern:
            parts.append(f"pattern {spec.pattern} (RE2, full match)")
    if spec.profiles:
        parts.append("only for profiles [" + ", ".join(sorted(spec.profiles)) + "]")
    return ", ".join(parts)


def describe_launch_contexts(game: GameConfig) -> str:
    """The profiles and launch inputs as text; ``""`` for a game with neither."""
    out: list[str] = []
    if game.profiles:
        if game.default_profile:
            out.append(
                f"\nDefault Profile: {game.default_profile} (used by a start that names no "
                "profile)\n"
            )
        out.append("\nProfiles:\n")
        for name in sorted(game.profiles):
            marker = " (default)" if name == game.default_profile else ""
            description = game.profiles[name].description
            out.append(f"  {name}{marker}" + (f" - {description}" if description else "") + "\n")
    if game.launch_inputs:
        out.append("\nLaunch Inputs (only these may be supplied per start):\n")
        for name in sorted(game.launch_inputs):
            spec = game.launch_inputs[name]
            description = f" - {spec.description}" if spec.description else ""
            out.append(f"  {name}: {_constraints(spec)}{description}\n")
    return "".join(out)


def _termination(game: GameConfig) -> str:
    if not game.url_mode:
        return f"  Stop Process Name: {game.stop_process_name}\n" if game.stop_process_name else ""
    text = "\nGame Termination Configuration:\n"
    if game.stop_process_name:
        return text + (
            f"  ✓ Configured for proper game termination (process: {game.stop_process_name})\n"
        )
    if game.has_url_hook_alternative:
        return text + (
            "  ✓ Configured for proper game termination via lifecycle hooks (status + stop/kill)\n"
        )
    return text + (
        f"  ⚠️  Missing stopProcessName - GABS can start but cannot properly stop "
        f"{game.launch_mode} games\n"
        "     Add stopProcessName — or a game-level status hook plus a stop or kill hook — for "
        "proper termination.\n"
    )


def show_text(game: GameConfig, warnings: list[str]) -> str:
    """The ``games_show`` text: the entry, how to start it, its contexts and its warnings."""
    out = [
        f"Game Configuration: {game.id}\n\n",
        f"  ID: {game.id} ({game.name})\n",
        f"  Use gameId: '{game.id}' (or target: '{game.target}')\n",
        f"  Launch: {game.shown_launch_mode}\n",
    ]
    if game.working_dir:
        out.append(f"  Working Directory: {game.working_dir}\n")
    if game.args:
        out.append(f"  {arguments_label(game)}: {' '.join(game.args)}\n")
    out.append(_termination(game))
    if game.description:
        out.append(f"\nDescription: {game.description}\n")
    out.append(describe_launch_contexts(game))
    if warnings:
        out.append("\nConfiguration Warnings:\n")
        out.extend(f"  - {warning}\n" for warning in warnings)
    return "".join(out)
