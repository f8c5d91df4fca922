"""A macOS ``.app`` bundle as the target of a path mode: the executable inside it.

``DirectPath`` and ``CustomCommand`` run their target directly, never through LaunchServices
(``open``), which would drop the arguments and the environment. A target that is an ``.app``
directory on macOS is therefore run as its inner executable, found as the Go bridge finds it:
the ``CFBundleExecutable`` of an XML ``Contents/Info.plist``, else the only executable file in
``Contents/MacOS``, else ``Contents/MacOS/<bundle name>``. Any other target, and every target
on other systems, is used as it is.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Final

__all__ = ["bundle_target"]

_EXECUTABLE_KEY: Final = re.compile(
    rb"<key>\s*CFBundleExecutable\s*</key>\s*<string>([^<]+)</string>"
)


def bundle_target(target: str, platform: str = sys.platform) -> str:
    """The path a path mode runs for ``target`` (``platform`` is ``sys.platform``)."""
    if platform != "darwin" or not target.endswith(".app") or not os.path.isdir(target):
        return target
    inner = Path(target, "Contents", "MacOS")
    try:
        found = _EXECUTABLE_KEY.search(Path(target, "Contents", "Info.plist").read_bytes())
    except OSError:
        found = None
    if found is not None:
        named = inner / found.group(1).decode(errors="replace").strip()
        if named.exists():
            return str(named)
    try:
        candidates = [
            entry.name
            for entry in os.scandir(inner)
            if not entry.is_dir() and entry.stat().st_mode & 0o111
        ]
    except OSError:
        candidates = []
    if len(candidates) == 1:
        return str(inner / candidates[0])
    conventional = inner / Path(target).name.removesuffix(".app")
    return str(conventional) if conventional.exists() else target
