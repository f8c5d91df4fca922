"""The game version the simulation reports is the 1.6 build the mod is compiled against
(``Krafs.Rimworld.Ref`` 1.6.4850 in its csproj; its About.xml supports 1.6)."""

from __future__ import annotations

from rimbridge_sim.world import World
from rimbridge_sim.world._mod_list import INSTALLED_MODS


def test_core_royalty_mods_config_and_saves_carry_the_1_6_build() -> None:
    world = World(3)
    versions = {m.package_id: m.version for m in INSTALLED_MODS}
    assert versions["ludeon.rimworld"] == versions["ludeon.rimworld.royalty"] == "1.6.4850"
    world.mods.save()
    config = world.storage.read("Config/ModsConfig.xml") or b""
    assert b"<version>1.6.4850</version>" in config
    world.start_debug_game(seed=3, map_size=(20, 20), colonists=1)
    world.save_game("v")
    assert b"<gameVersion>1.6.4850</gameVersion>" in (world.storage.read("Saves/v.rws") or b"")
