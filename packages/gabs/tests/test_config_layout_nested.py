"""What ``games remove`` leaves of nested objects: the Go bridge's bytes at every level.

The expected text was written by the Go bridge (GABS 1.1.0) for ``gabs games remove zz`` on
``BEFORE``: inside profiles, launch inputs, lifecycle hooks, env maps and port ranges its keys
are in the structs' order, map keys sorted, empty values left out (a pointer field such as
``timeoutSeconds`` or ``minimum`` only when ``null``), ``null`` written as the zero value where
the field cannot be left out, and a file without ``version`` gets it empty.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gabs.cli import run

BEFORE = {
    "games": {
        "a": {
            "lifecycle": {
                "kill": None,
                "stop": {
                    "verifyTimeoutSeconds": 5,
                    "timeoutSeconds": 1,
                    "unsetEnv": [],
                    "env": {"b": "1", "a": None},
                    "args": ["x"],
                    "command": "/bin/true",
                },
                "status": {
                    "stoppedExitCodes": [0],
                    "runningExitCodes": [1, 2],
                    "workingDir": "",
                    "command": "/bin/true",
                },
            },
            "profiles": {
                "p": {
                    "lifecycle": {
                        "stop": {
                            "verifyTimeoutSeconds": 5,
                            "timeoutSeconds": 1,
                            "unsetEnv": [],
                            "env": {"b": "1", "a": None},
                            "args": ["x"],
                            "command": "/bin/true",
                        }
                    },
                    "workingDir": "/tmp",
                    "unsetEnv": ["Q"],
                    "env": {"Z": "2", "A": "1"},
                    "args": ["1"],
                    "description": "pd",
                },
                "e": {
                    "description": "",
                    "args": [],
                    "env": {},
                    "unsetEnv": [],
                    "workingDir": "",
                    "lifecycle": {},
                },
                "n": {"description": None, "args": None, "env": None, "lifecycle": None},
            },
            "defaultProfile": "p",
            "target": "/bin/sleep",
            "launchMode": "CustomCommand",
            "name": "A",
            "id": "a",
        },
        "b": {
            "id": "b",
            "name": None,
            "launchMode": "CustomCommand",
            "target": "/bin/sleep",
            "launchInputs": {
                "lvl": {
                    "env": {"B": "${value}", "A": "x"},
                    "args": ["--l", "${value}"],
                    "profiles": [],
                    "pattern": "[a-z]+",
                    "maxLength": 10,
                    "enum": ["x"],
                    "type": "string",
                    "description": "level",
                },
                "n": {
                    "type": "integer",
                    "description": "d",
                    "minimum": 0,
                    "maximum": 0,
                    "pattern": "",
                    "enum": [],
                    "args": ["${value}"],
                    "env": {},
                    "profiles": None,
                },
            },
        },
        "c": {
            "name": "C",
            "launchMode": "DirectPath",
            "target": "/bin/true",
            "args": None,
            "env": None,
            "workingDir": None,
        },
        "zz": {"id": "zz", "name": "Z", "launchMode": "DirectPath", "target": "/bin/true"},
    },
    "portRanges": {"customRanges": [{"max": 40010, "min": 40000}, {}]},
}

GO_AFTER_REMOVE = """{
  "version": "",
  "games": {
    "a": {
      "id": "a",
      "name": "A",
      "launchMode": "CustomCommand",
      "target": "/bin/sleep",
      "defaultProfile": "p",
      "profiles": {
        "e": {
          "lifecycle": {}
        },
        "n": {},
        "p": {
          "description": "pd",
          "args": [
            "1"
          ],
          "env": {
            "A": "1",
            "Z": "2"
          },
          "unsetEnv": [
            "Q"
          ],
          "workingDir": "/tmp",
          "lifecycle": {
            "stop": {
              "command": "/bin/true",
              "args": [
                "x"
              ],
              "env": {
                "a": "",
                "b": "1"
              },
              "timeoutSeconds": 1,
              "verifyTimeoutSeconds": 5
            }
          }
        }
      },
      "lifecycle": {
        "status": {
          "command": "/bin/true",
          "runningExitCodes": [
            1,
            2
          ],
          "stoppedExitCodes": [
            0
          ]
        },
        "stop": {
          "command": "/bin/true",
          "args": [
            "x"
          ],
          "env": {
            "a": "",
            "b": "1"
          },
          "timeoutSeconds": 1,
          "verifyTimeoutSeconds": 5
        }
      }
    },
    "b": {
      "id": "b",
      "name": "",
      "launchMode": "CustomCommand",
      "target": "/bin/sleep",
      "launchInputs": {
        "lvl": {
          "description": "level",
          "type": "string",
          "enum": [
            "x"
          ],
          "maxLength": 10,
          "pattern": "[a-z]+",
          "args": [
            "--l",
            "${value}"
          ],
          "env": {
            "A": "x",
            "B": "${value}"
          }
        },
        "n": {
          "description": "d",
          "type": "integer",
          "minimum": 0,
          "maximum": 0,
          "args": [
            "${value}"
          ]
        }
      }
    },
    "c": {
      "id": "",
      "name": "C",
      "launchMode": "DirectPath",
      "target": "/bin/true"
    }
  },
  "toolNormalization": {
    "enableOpenAINormalization": true,
    "maxToolNameLength": 64,
    "preserveOriginalName": true
  },
  "portRanges": {
    "customRanges": [
      {
        "min": 40000,
        "max": 40010
      },
      {
        "min": 0,
        "max": 0
      }
    ]
  }
}"""

#: Keys the Go bridge does not know, in the objects where it only warns about them.
UNKNOWN_NESTED = {
    "version": "1.0",
    "games": {
        "a": {"id": "a", "name": "A", "launchMode": "DirectPath", "target": "/x", "foo": {"b": 1}},
        "zz": {"id": "zz", "name": "Z", "launchMode": "DirectPath", "target": "/x"},
    },
    "toolNormalization": {"zz": 1, "maxToolNameLength": 5},
    "timeouts": {"startup": {"zz": 1}, "qq": 2},
    "portRanges": {"customRanges": [{"max": 2, "min": 1, "x": 3}], "y": 1},
}


@pytest.fixture(autouse=True)
def _not_a_terminal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr("sys.stdin.isatty", lambda: False, raising=False)


def _remove_zz(tmp_path: Path, document: object) -> bytes:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(document, indent=4), encoding="utf-8")
    assert run(["games", "remove", "zz", "--configDir", str(tmp_path)]) == 0
    return path.read_bytes()


def test_nested_objects_are_rewritten_as_the_go_bridge_writes_them(tmp_path: Path) -> None:
    assert _remove_zz(tmp_path, BEFORE).decode("utf-8") == GO_AFTER_REMOVE


@pytest.mark.parametrize("version", ["missing", None])
def test_a_file_without_a_version_is_rewritten_with_it_empty(
    tmp_path: Path, version: str | None
) -> None:
    document = {"games": UNKNOWN_NESTED["games"]}
    if version is None:
        document = {"version": None, **document}
    assert _remove_zz(tmp_path, document).startswith(b'{\n  "version": "",\n  "games": {')


def test_unknown_nested_keys_are_kept_after_the_known_ones(tmp_path: Path) -> None:
    written = json.loads(_remove_zz(tmp_path, UNKNOWN_NESTED))
    assert list(written["toolNormalization"].items()) == [("maxToolNameLength", 5), ("zz", 1)]
    assert written["timeouts"] == {
        "startup": {"processStartSeconds": 10, "gabpConnectSeconds": 60, "zz": 1},
        "qq": 2,
    }
    assert list(written["portRanges"]["customRanges"][0]) == ["min", "max", "x"]
    assert written["portRanges"]["y"] == 1
    assert written["games"]["a"]["foo"] == {"b": 1}
