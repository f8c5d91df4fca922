"""The launch-context digests and the delivery verdict, as the Go bridge 1.1.0 pins and compares
them (``internal/process/context_delivery_test.go``, ``internal/mcp/context_delivery_mcp_test.go``;
design/03, "Delivery verification").

The digests here are byte for byte the Go bridge's: a claim the Go binary wrote (its salt and
digests pinned below, from a real ``gabs games start``) verifies against the same report.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from gabs.games import GameManager
from gabs.lifecycle import TrackRecord, context_hash
from gabs.lifecycle.digests import (
    argv_payload,
    compute_digests,
    evaluate_delivery,
    parse_observed,
    spawn_digests,
)
from gabs.mcp import ToolListNotifier, build_server
from gabs.runtime.claim import load_claim
from gabs.runtime.procs import process_start_time
from gabs_test_support import games_config, mcp_client

NOT_REPORTED = "the bridge reported no observed context (pre-report bridge)"

#: What the Go bridge pinned for ``/bin/sh -c 'exec sleep 30' 'x y'`` in ``/tmp`` with the
#: config env ``MOD=1`` and ``unsetEnv: [GONE]`` (the managed digests left out).
GO_DIGESTS = {
    "salt": "765ebcfb98a84cedbda59fa58c7e2238",
    "argvSha256": "336d11c9620487e63c8fd8c2467e66df05d7294f182fc830104bb5fc88f70b27",
    "cwdSha256": "409f436aeee5e6ea2a45d7db1603538c35735a8a8c2968d114803d49cdbfb0e8",
    "contextEnvSha256": {"MOD": "a14f74a21ca15a24c35dc433e6ef5711a154849a426987e8022c782f79376063"},
    "absentEnvNames": ["GONE"],
}


def report(**observed: Any) -> Any:
    return parse_observed({"agentId": "g", "observed": observed})


@pytest.mark.skipif(os.path.realpath("/tmp") != "/tmp", reason="/tmp is a link here")
def test_the_go_bridge_s_digests_verify_against_the_same_report() -> None:
    seen = report(
        argv=["/bin/sh", "-c", "exec sleep 30", "x y"],
        cwd="/tmp",
        envValues={"MOD": "1"},
        envAbsent=["GONE"],
    )
    assert evaluate_delivery(GO_DIGESTS, seen) == {
        "overall": "verified",
        "channels": {"argv": "verified", "cwd": "verified", "contextEnv": "verified"},
    }
    changed = report(argv=["sleep", "-c", "exec sleep 30", "x  y"], cwd="/", envValues={})
    assert evaluate_delivery(GO_DIGESTS, changed) == {
        "overall": "partial",
        "channels": {"argv": "mismatched", "cwd": "mismatched", "contextEnv": "unknown"},
        "reasons": {
            "argv": "the observed argument payload differs from the resolved launch arguments",
            "cwd": "the observed working directory differs from the resolved one",
            "contextEnv": "MOD unreported; absence of GONE unreported",
        },
    }


def test_digests_are_salted_and_hold_no_values() -> None:
    # TestContextDigestsAreSaltedAndValueFree.
    one = compute_digests(["-x"], "/", False, {"GABP_TOKEN": "secret-token"}, {}, [])
    two = compute_digests(["-x"], "/", False, {"GABP_TOKEN": "secret-token"}, {}, [])
    assert one["salt"] != two["salt"] and one["argvSha256"] != two["argvSha256"]
    assert "secret-token" not in json.dumps(one)
    assert sorted(one) == ["argvSha256", "cwdSha256", "managedEnvSha256", "salt"]


def test_the_argument_payload_leaves_out_a_cmd_wrapper_s_prefix() -> None:
    # TestArgvPayloadForDigest.
    assert argv_payload("C:\\Windows\\System32\\CMD.EXE", ["/C", "run.cmd", "-a"]) == ["-a"]
    assert argv_payload("cmd", ["/c"]) == ["/c"]
    assert argv_payload("/usr/bin/game", ["/c", "x", "-a"]) == ["/c", "x", "-a"]


def test_the_verdict_matrix(tmp_path: Path) -> None:
    pinned = compute_digests(
        ["-profile", "combat"],
        str(tmp_path),
        False,
        {"GABS_GAME_ID": "adventure"},
        {"CONTENT_SET": "combat-pack"},
        ["LEAK"],
    )
    full = {
        "argv": ["/elsewhere/game", "-profile", "combat"],  # argv[0] is not compared
        "cwd": str(tmp_path),
        "envValues": {"GABS_GAME_ID": "adventure", "CONTENT_SET": "combat-pack"},
        "envAbsent": ["LEAK"],
    }
    assert evaluate_delivery(pinned, report(**full))["overall"] == "verified"
    # No report at all: unknown, never partial.
    assert evaluate_delivery(pinned, None) == {
        "overall": "unknown",
        "channels": dict.fromkeys(["argv", "cwd", "managedEnv", "contextEnv"], "unknown"),
        "reasons": dict.fromkeys(["argv", "cwd", "managedEnv", "contextEnv"], NOT_REPORTED),
    }
    cases = [
        ({"envValues": {"GABS_GAME_ID": "adventure"}}, "unknown", "CONTENT_SET unreported"),
        (
            {"envValues": {"GABS_GAME_ID": "adventure", "CONTENT_SET": "x"}},
            "mismatched",
            "CONTENT_SET differs from the resolved value",
        ),
        (
            {"envValues": {**full["envValues"], "LEAK": "1"}, "envAbsent": []},
            "mismatched",
            "LEAK was meant to be absent but is present in the workload",
        ),
        ({"envAbsent": []}, "unknown", "absence of LEAK unreported"),
        (
            {"envValues": None, "envAbsent": None},
            "unknown",
            "CONTENT_SET unreported (the welcome omits the env lists); absence of LEAK "
            "unreported (the welcome omits the env lists)",
        ),
        (
            {"envAbsent": ["LEAK", "CONTENT_SET"]},
            "mismatched",
            "CONTENT_SET reported both present and absent (contradictory report)",
        ),
    ]
    for change, verdict, reason in cases:
        found = evaluate_delivery(pinned, report(**{**full, **change}))
        assert found["overall"] == "partial", change
        assert found["channels"]["contextEnv"] == verdict, change
        assert found["reasons"]["contextEnv"] == reason, change
    absent = evaluate_delivery(pinned, report(**{**full, "envValues": {}, "envAbsent": ["LEAK"]}))
    assert absent["reasons"]["managedEnv"] == (
        "GABS_GAME_ID unreported"  # neither present nor absent
    )
    gone = {
        **full,
        "envAbsent": ["LEAK", "GABS_GAME_ID"],
        "envValues": {"CONTENT_SET": "combat-pack"},
    }
    assert evaluate_delivery(pinned, report(**gone))["reasons"]["managedEnv"] == (
        "GABS_GAME_ID was expected present but is positively absent in the workload"
    )


def test_the_working_directory_is_compared_canonically(tmp_path: Path) -> None:
    # TestDeliveryCwdCanonicalization, TestDeliveryUnverifiableCwdCapsAtPartial,
    # TestDeliverySpawnCanonicalizationFailureIsUnknown.
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    pinned = compute_digests([], str(tmp_path / "link" / "."), False, {}, {}, [])
    seen = report(argv=["g"], cwd=str(real))
    assert evaluate_delivery(pinned, seen)["overall"] == "verified"
    missing = evaluate_delivery(pinned, report(argv=["g"], cwd=str(tmp_path / "gone")))
    assert missing["channels"]["cwd"] == "unknown"
    assert missing["reasons"]["cwd"] == (
        "the reported working directory could not be canonicalized: lstat "
        f"{tmp_path / 'gone'}: no such file or directory"
    )
    relative = compute_digests([], "game", True, {}, {}, [])
    assert evaluate_delivery(relative, seen) == {
        "overall": "partial",
        "channels": {"argv": "verified", "cwd": "unverifiable"},
        "reasons": {
            "cwd": "the working directory cannot be compared by contract (legacy relative "
            "workingDir)"
        },
    }
    lost = compute_digests([], str(tmp_path / "gone"), False, {}, {}, [])
    assert "cwdSha256" not in lost
    only_cwd = evaluate_delivery(lost, report(cwd=str(real)))
    assert only_cwd["overall"] == "unknown"  # nothing comparable and no mismatch
    assert only_cwd["reasons"] == {
        "argv": "argv not reported",
        "cwd": "the spawn-side working directory could not be canonicalized",
    }


def test_a_report_not_in_the_wire_shape_counts_as_none() -> None:
    assert parse_observed({"observed": {"argv": "x"}}) is None
    assert parse_observed({"observed": {"envValues": {"A": 1}}}) is None
    assert parse_observed({"observed": None}) is None
    assert parse_observed({}) is None


def test_a_launch_pins_what_the_wrapper_contract_forwards(tmp_path: Path) -> None:
    # TestSpawnDigestsCoverForwardEnvNames: the managed names, the config's as contextEnv.
    env = {
        "PATH": "/bin",
        "GABS_GAME_ID": "g",
        "GABP_TOKEN": "t" * 64,
        "MOD": "1",
        "GABS_ABSENT_ENV": "GONE",
        "GABS_FORWARD_ENV": "GABP_TOKEN,GABS_ABSENT_ENV,GABS_FORWARD_ENV,GABS_GAME_ID,MOD",
    }
    pinned = spawn_digests("/bin/game", ["-a"], str(tmp_path), env, ["MOD"])
    assert sorted(pinned["managedEnvSha256"]) == [
        "GABP_TOKEN",
        "GABS_ABSENT_ENV",
        "GABS_FORWARD_ENV",
        "GABS_GAME_ID",
    ]
    assert sorted(pinned["contextEnvSha256"]) == ["MOD"]
    assert pinned["absentEnvNames"] == ["GONE"]
    assert "t" * 64 not in json.dumps(pinned)
    assert spawn_digests("/bin/game", [], "rel", env, [])["cwdUnverifiable"] is True
    legacy = spawn_digests("/bin/game", [], "", {"GABS_GAME_ID": "g", "PATH": "/"}, [])
    assert sorted(legacy["managedEnvSha256"]) == ["GABS_GAME_ID"]
    assert "cwdSha256" in legacy  # the bridge's own working directory


def process_context(pid: int) -> tuple[list[str], list[str], str]:
    """A running process's environment, arguments and working directory."""
    proc = Path(f"/proc/{pid}")
    environ = (proc / "environ").read_bytes().decode().split("\0")
    cmdline = (proc / "cmdline").read_bytes().decode().split("\0")[:-1]
    return environ, cmdline, os.readlink(proc / "cwd")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
async def test_a_start_pins_digests_the_game_s_own_context_verifies(tmp_path: Path) -> None:
    # TestStartPinsContextDigestsWithoutRawValues.
    work = tmp_path / "work"
    work.mkdir()
    entry = {
        "target": "/bin/sleep",
        "args": ["30"],
        "workingDir": str(work),
        "env": {"MOD": "1"},
        "unsetEnv": ["GONE"],
    }
    config = games_config(tmp_path, {"g": entry})
    async with mcp_client(config) as client:
        await client.call_tool("games_start", {"gameId": "g", "timeout": 1})
        claim = load_claim(config.game_dir("g"))
        assert claim is not None and claim.context_digests is not None
        environ, cmdline, cwd = process_context(claim.game_pid)
        await client.call_tool("games_kill", {"gameId": "g"})
    pinned = claim.context_digests
    assert sorted(pinned["managedEnvSha256"]) == [
        "GABP_SERVER_PORT",
        "GABP_TOKEN",
        "GABS_ABSENT_ENV",
        "GABS_BRIDGE_PATH",
        "GABS_FORWARD_ENV",
        "GABS_GAME_ID",
    ]  # what the Go bridge pins for the same entry
    assert sorted(pinned["contextEnvSha256"]) == ["MOD"]
    assert pinned["absentEnvNames"] == ["GONE"]
    assert claim.endpoint_token not in json.dumps(pinned)
    values = dict(item.split("=", 1) for item in environ if "=" in item)
    seen = report(
        argv=cmdline,
        cwd=cwd,
        envValues={n: values[n] for n in values["GABS_FORWARD_ENV"].split(",")},
        envAbsent=["GONE"],
    )
    assert evaluate_delivery(pinned, seen)["overall"] == "verified"


def observing_game(observed: dict[str, Any] | None) -> Any:
    """A game whose welcome carries ``observed`` (left out when None)."""
    welcome: dict[str, Any] = {
        "agentId": "g",
        "app": {"name": "g", "version": "1"},
        "capabilities": {"methods": ["session/hello", "tools/list"]},
        "schemaVersion": "1.0",
    }
    if observed is not None:
        welcome["observed"] = observed

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            length = None
            while line := (await reader.readline()).strip():
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if length is None:
                break
            message = json.loads(await reader.readexactly(length))
            base = {"v": "gabp/1", "id": message["id"], "type": "response"}
            if message.get("method") == "session/hello":
                answer = {**base, "result": welcome}
            elif message.get("method") == "tools/list":
                answer = {**base, "result": {"tools": []}}
            else:
                answer = {**base, "error": {"code": -32601, "message": "no"}}
            body = json.dumps(answer).encode()
            writer.write(f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body)
            await writer.drain()
        writer.close()

    return serve


@pytest.mark.parametrize(
    ("content_set", "overall"),
    [("combat-pack", "verified"), ("wrong-pack", "partial"), (None, "unknown")],
)
async def test_a_connect_records_the_verdict_and_credits_a_verified_delivery(
    tmp_path: Path, content_set: str | None, overall: str
) -> None:
    # TestConnectPersistsDeliveryVerdicts.
    config = games_config(tmp_path, {"g": {"target": "/bin/sleep"}})
    observed = None
    if content_set is not None:
        observed = {
            "argv": ["/opt/game/bin", "-profile", "combat"],
            "cwd": str(tmp_path),
            "envValues": {"GABS_GAME_ID": "g", "CONTENT_SET": content_set},
        }
    server = await asyncio.start_server(observing_game(observed), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    digest = context_hash(config.games["g"], "")
    pinned = compute_digests(
        ["-profile", "combat"],
        str(tmp_path),
        False,
        {"GABS_GAME_ID": "g"},
        {"CONTENT_SET": "combat-pack"},
        [],
    )
    claim = {
        "gameId": "g",
        "status": "running",
        "ownerPid": 0,
        "updatedAt": "2026-01-01T00:00:00Z",
        "schemaVersion": 2,
        "launchId": "cd" * 16,
        "generation": 1,
        "phase": "active",
        "spawnState": "spawned",
        "source": "gabs",
        "launchMode": "DirectPath",
        "gamePid": os.getpid(),
        "pidStartTime": process_start_time(os.getpid()),
        "pidRole": "workload",
        "historyContextHash": digest,
        "endpoint": {"port": port, "token": "t" * 64},
        "contextDigests": pinned,
    }
    folder = config.game_dir("g")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "runtime.json").write_text(json.dumps(claim), encoding="utf-8")
    notifier = ToolListNotifier()
    manager = GameManager(config, on_tools_changed=notifier, liveness_interval=60)
    async with server, manager, Client(build_server(manager, notifier=notifier)) as client:
        with anyio.fail_after(20):
            connected = await client.call_tool("games_connect", {"gameId": "g"})
            status = await client.call_tool("games_status", {"gameId": "g"})
            # the values the game reported are compared, then dropped (TakeObservedContext)
            session = manager.runtime("g").session
            assert session is not None and session.hello is not None
            assert (session.hello["agentId"], "observed" in session.hello) == ("g", False)
            assert session.delivery_report() is None
    assert not connected.is_error, connected
    assert connected.structured_content is not None
    assert connected.structured_content["contextDelivery"]["overall"] == overall
    assert status.structured_content is not None
    item = status.structured_content
    assert item["contextDelivery"]["overall"] == overall
    entry = TrackRecord(folder).entry("", digest)
    assert entry is not None
    assert entry.get("deliveriesVerified", 0) == (1 if overall == "verified" else 0)
    assert "creditedPendingEvents" not in entry  # the settled event's marker is dropped
    saved = json.loads((folder / "runtime.json").read_text(encoding="utf-8"))
    assert "pendingDeliveries" not in saved
