"""``gabs demo``: a scripted agent drives the real bridge against the simulated RimWorld.

The demo writes a temporary config (the game ``rimworld`` is the ``rimbridge-sim`` executable
next to this Python, with its test tools on and the gate on), starts the real ``gabs``
executable as an MCP stdio server, and plays an agent through the official MCP client. Every
step names the tool it calls and its arguments, shows what the model saw (the MCP text
content) and checks what the step must show. Scenarios (``--scenario``):

* ``gating`` (default): discover; a successful action; an error right after an action, attached
  to that action's real result; the next game call refused before it reaches the game;
  diagnostics still answering; inspect; acknowledge with the real id; the retry succeeding.
* ``advisory``: a warning opens an advisory item; it is attached to results and never blocks.
* ``invalidated``: save, load, then a pawn id from before the load: an advisory item that says
  the state was invalidated, and a stale-id answer.
* ``spam``: 500 identical errors in one call: one item, ``totalUrgentEntries`` 500, a bounded
  number of attention events (counted by a second GABP session that only observes).
* ``no-attention``: a ``lib_gab`` game without attention: calls work, ``supported: false``.
* ``crash``: a call that outlives its timeout in a stalled game, and a call in flight when the
  game process dies: both ``executed: "unknown"``.
* ``all``: every scenario, in that order.

The transcript goes to stdout (``--json``: a machine-readable report instead), progress and
the bridge's own log to stderr. Exit 0 when every step behaved as expected, 1 when one did not,
2 on usage or setup errors (an executable that cannot be found). Everything is bounded (a
timeout per step and for the whole run) and cleaned up: games stopped, the bridge ended, the
temporary directory removed (``--keep`` keeps it).

Modules: :mod:`gabs.demo._scenarios` (the scenarios as data), the flows they play
(:mod:`gabs.demo._attention_scenarios`, :mod:`gabs.demo._fault_scenarios`), the scripted agent
(:mod:`gabs.demo._agent`), the transcript (:mod:`gabs.demo._transcript`) and the runner with
the command (:mod:`gabs.demo._runner`).
"""

from gabs.demo._agent import DemoSetupError
from gabs.demo._runner import add_demo_command, demo_config, find_executable, main, run, run_demo
from gabs.demo._scenarios import DEFAULT_SCENARIO, SCENARIOS, Scenario
from gabs.demo._transcript import DemoReport, DemoStep, Reply, render_step

__all__ = [
    "DEFAULT_SCENARIO",
    "SCENARIOS",
    "DemoReport",
    "DemoSetupError",
    "DemoStep",
    "Reply",
    "Scenario",
    "add_demo_command",
    "demo_config",
    "find_executable",
    "main",
    "render_step",
    "run",
    "run_demo",
]
