"""What is running, across bridge processes: runtime claims, the transition lock, the GABP
endpoint cache, process fingerprints and the liveness rule."""

from .claim import (
    CLAIM_FILE,
    SCHEMA_VERSION,
    ActionResult,
    Attachment,
    ClaimError,
    Operation,
    RuntimeState,
    load_claim,
    remove_claim,
    save_claim,
)
from .endpoint import BRIDGE_FILE, Endpoint, EndpointError, EndpointInUse, prepare_endpoint
from .liveness import Evidence, evaluate
from .lock import LockBusy, LockUnavailable, transition_lock
from .scan import claimed_ids, list_claims

__all__ = [
    "BRIDGE_FILE",
    "CLAIM_FILE",
    "SCHEMA_VERSION",
    "ActionResult",
    "Attachment",
    "ClaimError",
    "Endpoint",
    "EndpointError",
    "EndpointInUse",
    "Evidence",
    "LockBusy",
    "LockUnavailable",
    "Operation",
    "RuntimeState",
    "claimed_ids",
    "evaluate",
    "list_claims",
    "load_claim",
    "prepare_endpoint",
    "remove_claim",
    "save_claim",
    "transition_lock",
]
