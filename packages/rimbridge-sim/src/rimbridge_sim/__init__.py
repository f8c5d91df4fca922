"""rimbridge-sim: a simulated RimWorld colony with the RimBridgeServer tool contract, served
over GABP with attention (see the package README)."""

from rimbridge_sim.config import BridgeConfig
from rimbridge_sim.contract import Contract, ParamContract, ToolContract, load_contract
from rimbridge_sim.integration import RimBridge
from rimbridge_sim.policy import Policy

__all__ = [
    "BridgeConfig",
    "Contract",
    "ParamContract",
    "Policy",
    "RimBridge",
    "ToolContract",
    "load_contract",
]
