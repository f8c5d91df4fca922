"""The languages the simulated game has installed, as RimWorld names them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["LANGUAGES", "Language", "display_name"]


@dataclass(frozen=True)
class Language:
    id: str
    folder_name: str
    friendly_english: str
    friendly_native: str


LANGUAGES: Final[tuple[Language, ...]] = (
    Language("English", "English", "English", "English"),
    Language("German", "German (Deutsch)", "German", "Deutsch"),
    Language("French", "French (Français)", "French", "Français"),
    Language("Japanese", "Japanese (日本語)", "Japanese", "日本語"),
    Language("Russian", "Russian (Русский)", "Russian", "Русский"),
    Language("ChineseSimplified", "ChineseSimplified (简体中文)", "Chinese Simplified", "简体中文"),
)


def display_name(language: Language) -> str:
    if language.friendly_native == language.friendly_english:
        return language.friendly_english
    return f"{language.friendly_native} ({language.friendly_english})"
