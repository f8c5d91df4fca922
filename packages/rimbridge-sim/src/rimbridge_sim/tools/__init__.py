"""The RimBridge tool surface, as annotated methods grouped by what they reach.

* :class:`DiagnosticsTools` (``rimbridge/*``): the log ring, the operation journal, waits and
  scripts. Async, never take the world lock, so they answer while the main loop is stalled.
  Tagged for a bridge's allowlist (``status``, ``diagnostic``, ``read-only``), except
  ``rimbridge/run_script``, which runs game tools.
* :class:`GameTools` (``rimworld/*``): the game. Run under the world lock; no allowlist tags.
* :class:`FaultTools` (``sim/*``): fault injection, registered only with test tools enabled.

Every method is plain: the metadata is in ``rimbridge_annotations`` decorators and
:class:`rimbridge_sim.integration.RimBridge` registers them with ``lib_gab``.
"""

from rimbridge_sim.tools.diagnostics import DiagnosticsTools
from rimbridge_sim.tools.faults import FaultTools
from rimbridge_sim.tools.game import GameTools

__all__ = ["DiagnosticsTools", "FaultTools", "GameTools"]
