"""What keeps a compute run contained, said in one sentence each (issue 21).

The network setting fails closed: a run with network off goes only where the machine can
take the network away, and a value that is not understood stops every run. A run stopped
for its output cap or by a cancellation says which, in the receipt, the row and the answer.
"""

from __future__ import annotations

from .runner import Completed
from .settings import NETWORKS


def network_refusal(network: str, isolation_available: bool) -> str | None:
    """Why a run may not start under this network setting, or None when it may."""
    if network not in NETWORKS:
        return (
            f"compute network {network} is not one of {', '.join(NETWORKS)}, so no run goes "
            "ahead (a network setting that is not understood never means on); set "
            "compute.network to on or off"
        )
    if network == "off" and not isolation_available:
        return (
            "compute network is off but this machine cannot take a run's network away (no "
            "working unshare -n or -rn: util-linux missing or user namespaces disabled), so "
            "the run was refused rather than run with network; install util-linux or allow "
            "unprivileged user namespaces (kernel.unprivileged_userns_clone=1), or set "
            "compute.network to on"
        )
    return None


def stop_sentence(done: Completed, cap_bytes: int, cancelled_by: str | None = None) -> str | None:
    """Why a started run was stopped before its end (other than its time limit), or None.

    ``cancelled_by`` says who cancelled it ("by its client", "as the server stopped"), when
    the call knows."""
    if done.overflowed is not None:
        return (
            f"the run wrote more than {cap_bytes} bytes to {done.overflowed} and its whole "
            f"process tree was stopped; the archive keeps the first {cap_bytes} bytes (write "
            "less, or raise compute.maxOutputBytes)"
        )
    if done.cancelled:
        who = cancelled_by or "by its caller, or as the server stopped"
        return (
            f"the run was cancelled {who} after {done.duration_ms / 1000:.1f} s and its whole "
            "process tree was killed, so it did not finish and its result is not one; the "
            "output so far is archived, and running it again is a new attempt"
        )
    return None
