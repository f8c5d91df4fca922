"""Two platform rules of the Go bridge (GABS 1.1.0; design/03, "Platform rules"; the T-DELIV
``.app`` and Windows cells): a macOS ``.app`` target of a path mode runs its inner executable,
found as ``launch.EffectiveBundleTarget`` finds it (checked here with ``platform="darwin"``),
and a Windows target that requires elevation fails its spawn with ``startErrorHintFor``'s hint."""

from __future__ import annotations

from pathlib import Path

from gabs.launch.bundle import bundle_target
from gabs.launch.spawn import start_error_hint

PLIST = b"""<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict>
  <key>CFBundleExecutable</key>
  <string> Runner </string>
</dict></plist>
"""


def bundle(tmp_path: Path, *executables: str, plist: bytes | None = None) -> Path:
    app = tmp_path / "Game.app"
    inner = app / "Contents" / "MacOS"
    inner.mkdir(parents=True)
    for name in executables:
        (inner / name).write_text("#!/bin/sh\n")
        (inner / name).chmod(0o755)
    (inner / "readme.txt").write_text("not executable")
    if plist is not None:
        (app / "Contents" / "Info.plist").write_bytes(plist)
    return app


def test_the_info_plist_names_the_executable(tmp_path: Path) -> None:
    app = bundle(tmp_path, "Runner", "Helper", plist=PLIST)
    assert bundle_target(str(app), "darwin") == str(app / "Contents" / "MacOS" / "Runner")


def test_without_a_readable_plist_the_only_executable_is_taken(tmp_path: Path) -> None:
    app = bundle(tmp_path, "Only", plist=b"bplist00\x00binary")
    assert bundle_target(str(app), "darwin") == str(app / "Contents" / "MacOS" / "Only")


def test_else_the_executable_named_as_the_bundle_and_else_the_target(tmp_path: Path) -> None:
    app = bundle(tmp_path, "Game", "Other")
    assert bundle_target(str(app), "darwin") == str(app / "Contents" / "MacOS" / "Game")
    (app / "Contents" / "MacOS" / "Game").unlink()
    (app / "Contents" / "MacOS" / "Third").write_text("")
    (app / "Contents" / "MacOS" / "Third").chmod(0o755)
    assert bundle_target(str(app), "darwin") == str(app)


def test_other_targets_and_other_systems_are_used_as_they_are(tmp_path: Path) -> None:
    app = bundle(tmp_path, "Runner", plist=PLIST)
    assert bundle_target(str(app), "linux") == str(app)
    assert bundle_target(str(tmp_path / "Missing.app"), "darwin") == str(tmp_path / "Missing.app")
    assert bundle_target("/usr/bin/true", "darwin") == "/usr/bin/true"


class ElevationRefused(OSError):
    winerror = 740


def test_a_windows_target_that_requires_elevation_gets_go_s_hint() -> None:
    # design/03, "Platform rules": a target that requires elevation fails spawn with a precise
    # hint (Go's startErrorHintFor); other errors and other systems get none.
    refused = ElevationRefused(13, "The requested operation requires elevation")
    assert start_error_hint(refused, "win32") == (
        "the target requires elevation; GABS does not elevate \u2014 remove the elevation "
        "requirement or launch it outside GABS"
    )
    assert start_error_hint(refused, "linux") == ""
    assert start_error_hint(OSError(13, "denied"), "win32") == ""
