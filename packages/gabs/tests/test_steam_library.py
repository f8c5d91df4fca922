"""Steam libraries and app manifests read as the Go bridge reads them: its lenient KeyValues
parser, and its error texts for files that cannot be read or parsed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gabs.launch.steam import SteamError, client_running, library_folders, resolve_app
from gabs.launch.vdf import VdfError, parse_vdf

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX executable bits")


def test_an_object_left_open_at_the_end_is_closed_there() -> None:
    assert parse_vdf('"AppState" { "installdir" "Game"') == {"AppState": {"installdir": "Game"}}


def test_one_stray_closing_brace_at_the_end_is_ignored_but_not_text_after_it() -> None:
    assert parse_vdf('"a" { "b" "c" } }') == {"a": {"b": "c"}}
    with pytest.raises(VdfError, match=r'^unexpected token "x"$'):
        parse_vdf('"a" { "b" "c" } } "x" "y"')


def test_a_key_without_value_is_quoted_as_go_quotes_it() -> None:
    with pytest.raises(VdfError, match=r'^missing value for key "name"$'):
        parse_vdf('"AppState" { "installdir" "Game" "name" }')
    with pytest.raises(VdfError, match=r'^missing value for key "it\\"s"$'):
        parse_vdf('"it\\"s"')


def library(tmp_path: Path, manifest: str) -> tuple[Path, Path]:
    root = tmp_path / "Steam"
    (root / "steamapps").mkdir(parents=True)
    vdf = root / "steamapps" / "libraryfolders.vdf"
    vdf.write_text('"libraryfolders" { }\n', encoding="utf-8")
    acf = root / "steamapps" / "appmanifest_10.acf"
    acf.write_text(manifest, encoding="utf-8")
    game = root / "steamapps" / "common" / "Game" / "Game"
    game.parent.mkdir(parents=True)
    game.write_text("#!/bin/sh\n", encoding="utf-8")
    game.chmod(0o755)
    return vdf, acf


def test_a_manifest_that_does_not_parse_is_called_unparsable_not_unreadable(
    tmp_path: Path,
) -> None:
    vdf, acf = library(tmp_path, '"AppState" { "installdir" "Game" "name" }')
    with pytest.raises(SteamError) as raised:
        resolve_app("10", {"GABS_STEAM_LIBRARYFOLDERS": str(vdf)})
    assert str(raised.value) == (
        f'failed to parse Steam app manifest {acf}: missing value for key "name"'
    )


@posix_only
def test_a_truncated_manifest_still_resolves(tmp_path: Path) -> None:
    vdf, acf = library(tmp_path, '"AppState"\n{\n\t"installdir"\t"Game"\n')
    app = resolve_app("10", {"GABS_STEAM_LIBRARYFOLDERS": str(vdf)})
    assert app.executable == acf.parent / "common" / "Game" / "Game"


def test_a_manifest_that_is_a_folder_is_unreadable_in_go_words(tmp_path: Path) -> None:
    vdf, acf = library(tmp_path, "")
    acf.unlink()
    acf.mkdir()
    with pytest.raises(SteamError) as raised:
        resolve_app("10", {"GABS_STEAM_LIBRARYFOLDERS": str(vdf)})
    assert str(raised.value) == (
        f"failed to read Steam app manifest {acf}: read {acf}: is a directory"
    )


def test_an_unreadable_library_file_is_named_in_go_words(tmp_path: Path) -> None:
    folder = tmp_path / "libraryfolders.vdf"
    folder.mkdir()
    with pytest.raises(SteamError) as raised:
        library_folders({"GABS_STEAM_LIBRARYFOLDERS": str(folder)})
    assert str(raised.value) == (
        f"failed to read Steam library folders: {folder}: read {folder}: is a directory"
    )


@posix_only
def test_an_app_state_that_is_no_object_falls_back_to_the_top_level(tmp_path: Path) -> None:
    vdf, _ = library(tmp_path, '"AppState" "x" "installdir" "Game"')
    assert resolve_app("10", {"GABS_STEAM_LIBRARYFOLDERS": str(vdf)}).install_dir == "Game"


def install_with(tmp_path: Path, name: str, install_dir: str, files: list[str]) -> Path:
    root = tmp_path / "Steam"
    (root / "steamapps").mkdir(parents=True)
    vdf = root / "steamapps" / "libraryfolders.vdf"
    vdf.write_text('"libraryfolders" { }\n', encoding="utf-8")
    (root / "steamapps" / "appmanifest_10.acf").write_text(
        f'"AppState" {{ "name" "{name}" "installdir" "{install_dir}" }}', encoding="utf-8"
    )
    install = root / "steamapps" / "common" / install_dir
    for file in files:
        path = install / file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/bin/sh\n", encoding="utf-8")
        path.chmod(0o755)
    return vdf


@posix_only
def test_equal_candidates_keep_the_folder_walk_order(tmp_path: Path) -> None:
    # The Go bridge walks names in sorted order and enters ``a`` before ``a-b``; a plain
    # path sort would put ``a-b/y`` first.
    vdf = install_with(tmp_path, "Q", "Q", ["a-b/y", "a/x"])
    app = resolve_app("10", {"GABS_STEAM_LIBRARYFOLDERS": str(vdf)})
    assert app.executable.relative_to(app.install_path) == Path("a/x")


@posix_only
def test_names_are_compared_as_go_compares_them(tmp_path: Path) -> None:
    # ``.Game`` has no base name in Go (all extension), and ``²`` is no digit there.
    vdf = install_with(tmp_path, "Game²", "Game", [".Game", "Game2", "zGame"])
    app = resolve_app("10", {"GABS_STEAM_LIBRARYFOLDERS": str(vdf)})
    assert app.executable.name == "Game2"


@pytest.mark.skipif(sys.platform != "linux", reason="the Linux Steam client scan")
def test_a_process_whose_command_line_has_slash_steam_counts_as_a_steam_client() -> None:
    # the Go bridge's scan: a process named steam, or any command line containing "/steam"
    holder = subprocess.Popen(["sh", "-c", "sleep 30", "/opt/steam/steam.sh"])
    try:
        assert client_running()
    finally:
        holder.kill()
        holder.wait(timeout=10)
