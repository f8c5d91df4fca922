"""Send the same random GABP requests to a Lib.GAB game and to a lib_gab twin; print differences.

Side check, not a test (CI has no Lib.GAB): start a game that embeds Lib.GAB 1.0.3 and offers
the tools ``scripts/probe_gabp_server.py`` expects (``game/status``, ``game/repeat {count: int,
word: string}``), standalone, so that it prints its port and token, then::

    uv run --frozen python scripts/differential_libgab.py --port 5174 --token <token> [--seed 1]

The twin is ``probe_gabp_server.py``'s, started in this process with Lib.GAB's protocol choices
(``ProtocolOptions.lib_gab()``). Each round opens a connection to each server, says hello and
sends the same one to three requests, one at a time (a Lib.GAB game must not get overlapping
requests): ``tools/call`` with arguments right, wrong, missing, in another letter case, under
``parameters`` or ``arguments`` or both, and the attention, event and list methods with params
of every kind, now and then with a wrong ``v`` or ``type``. Answers are compared by kind (no
answer, a result and its text fields, or an error code); each distinct difference is printed
once. ``docs/ports/lib-gab.md`` (section 2) lists the differences that are deliberate. Exit
status 0 when nothing differs.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from probe_gabp_server import RawClient, hello, twin

METHODS = ("tools/call",) * 6 + ("tools/list", "attention/current", "attention/ack")
METHODS += ("events/subscribe", "events/unsubscribe", "session/hello", "game/repeat", "nope")
NAMES = ("game/repeat",) * 4 + ("game/status", "game/nothing", "GAME/REPEAT", "", None, 5)
VALUES: tuple[Any, ...] = (None, True, 0, -3, 2, 5.0, 2.5, 1e20, "", "hi", "3", " 4 ", "true")
OTHER_PARAMS: tuple[Any, ...] = ({}, None, [], "x")
CLOSED: Any = {"closed": True}


def value(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.randrange(len(VALUES) + (4 if depth < 2 else 0))
    if pick < len(VALUES):
        return VALUES[pick]
    if pick < len(VALUES) + 2:
        return [value(rng, depth + 1) for _ in range(rng.randrange(3))]
    keys = ("count", "word", "Count", "x")
    return {rng.choice(keys): value(rng, depth + 1) for _ in range(rng.randrange(3))}


def tool_call_params(rng: random.Random) -> dict[str, Any]:
    params: dict[str, Any] = {"name": rng.choice(NAMES)} if rng.random() < 0.95 else {}
    arguments: Any = {}
    for name in ("count", "word"):
        if rng.random() < 0.8:
            spelled = name.capitalize() if rng.random() < 0.15 else name
            arguments[spelled] = value(rng)
    if rng.random() < 0.1:
        arguments = value(rng)
    where = rng.choice(("parameters", "arguments", "parameters", "both", "none"))
    if where == "both":
        params["parameters"], params["arguments"] = arguments, {"count": 1, "word": "a"}
    elif where != "none":
        params[where] = arguments
    return params


def request(rng: random.Random) -> dict[str, Any]:
    method = rng.choice(METHODS)
    params: Any
    if method == "tools/call":
        params = tool_call_params(rng)
    elif method == "attention/ack":
        params = rng.choice(({"attentionId": "none"}, {}, {"attentionId": 5}, None))
    elif method.startswith("events/"):
        params = rng.choice(({"channels": ["attention/opened"]}, {"channels": []}, {}, None))
    else:
        params = rng.choice(OTHER_PARAMS)
    message = {"v": "gabp/1", "id": str(uuid.uuid4()), "type": "request", "method": method}
    if params is not None or rng.random() < 0.5:
        message["params"] = params
    if rng.random() < 0.05:
        message["v"] = rng.choice(("gabp/2", None))
    if rng.random() < 0.05:
        message["type"] = rng.choice(("event", "bogus"))
    return message


def kind(answer: dict[str, Any] | None) -> tuple[Any, ...]:
    if answer is CLOSED:
        return ("connection closed",)
    if answer is None:
        return ("no answer",)
    error = answer.get("error")
    if error:
        return ("error", error.get("code") if isinstance(error, dict) else error)
    result = answer.get("result")
    if isinstance(result, dict) and "text" in result:
        text = result["text"]  # game/status says which runtime it is: not a difference
        text = "<status>" if isinstance(text, str) and text.endswith("game running") else text
        return ("result", text, result.get("count"), result.get("word"))
    if isinstance(result, dict):
        return ("result", tuple(sorted(result)))
    return ("result", type(result).__name__)


def exchange(port: int, token: str, messages: list[dict[str, Any]]) -> list[Any]:
    """Each message's answer on one connection after a hello: None when none came within a
    second, ``CLOSED`` when the server had closed the connection."""
    client = RawClient(port)
    client.sock.settimeout(1.0)
    found: list[Any] = []
    try:
        client.request("session/hello", hello(token))
        for message in messages:
            try:
                client.send(message)
                found.append(client.receive())
            except TimeoutError:
                found.append(None)
            except OSError:
                found += [CLOSED] * (len(messages) - len(found))
                break
    finally:
        client.close()
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True, help="the Lib.GAB game's port")
    parser.add_argument("--token", required=True, help="the Lib.GAB game's token")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=60)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    _, twin_port, twin_token = twin(True)
    seen: set[tuple[Any, ...]] = set()
    for _ in range(args.rounds):
        messages = [request(rng) for _ in range(rng.randrange(1, 4))]
        theirs = exchange(args.port, args.token, messages)
        ours = exchange(twin_port, twin_token, messages)
        for message, lib_gab_cs, lib_gab_py in zip(messages, theirs, ours, strict=True):
            key = (message["method"], str(kind(lib_gab_cs))[:80], str(kind(lib_gab_py))[:80])
            if kind(lib_gab_cs) == kind(lib_gab_py) or key in seen:
                continue
            seen.add(key)
            shown = {name: part for name, part in message.items() if name != "id"}
            print(f"DIFF {json.dumps(shown)[:300]}")
            print(f"  Lib.GAB {json.dumps(lib_gab_cs)[:300]}")
            print(f"  lib_gab {json.dumps(lib_gab_py)[:300]}")
    print(f"{args.rounds} rounds, {len(seen)} distinct differences (seed {args.seed})")
    return 1 if seen else 0


if __name__ == "__main__":
    sys.exit(main())
