"""Who may do what on the layered surface (the role vocabulary is domain/roles.py).

The admin may do what the manager may. Reading what exists is decided by the one visibility
function (domain/visibility.py); these rules add what each role may change, and the
workspace refusal the layered spec names.
"""

from __future__ import annotations

from memlane.domain.errors import Forbidden, InvalidRequest
from memlane.domain.roles import ADMIN, MANAGER, is_system
from memlane.domain.visibility import WORKSPACE_LAYER

IDENTITY = "identity"
PROJECT = "project"
WORKSPACE = WORKSPACE_LAYER
LAYERS: tuple[str, ...] = (IDENTITY, PROJECT, WORKSPACE)


def _manages(role: str) -> bool:
    return role in (MANAGER, ADMIN)


def check_layer(layer: str | None, field: str = "layer") -> str:
    if layer is None or layer not in LAYERS:
        raise InvalidRequest(
            f"{field} must be one of identity, project, workspace (got {layer!r})",
            code="invalid_layer",
            details={"field": field, "allowed": list(LAYERS)},
        )
    return layer


def workspace_restricted() -> Forbidden:
    return Forbidden(
        "User-facing agent is not allowed to access workspace memory.",
        code="workspace_restricted",
    )


def unauthorized_write(message: str) -> Forbidden:
    return Forbidden(message, code="unauthorized_write")


def guard_workspace(role: str, layer: str) -> None:
    """Workspace memory is for system agents only; any attempt by the user agent is leakage."""
    if layer == WORKSPACE and not is_system(role):
        raise workspace_restricted()


def check_write(role: str, layer: str, *, user_instruction: bool) -> None:
    """Identity and project writes come from the manager or an explicit user instruction;
    workspace writes from any system agent."""
    guard_workspace(role, layer)
    if layer in (IDENTITY, PROJECT) and not _manages(role) and not user_instruction:
        raise unauthorized_write(
            f"{layer} memory can only be written by the manager agent or on explicit user instruction "
            "(set user_instruction: true when the user asked for it)"
        )


def check_update(
    role: str, layer: str, *, user_instruction: bool, user_confirmed: bool, system_refinement: bool
) -> None:
    check_write(role, layer, user_instruction=user_instruction)
    if layer == IDENTITY and not user_confirmed:
        if system_refinement and is_system(role):
            return
        raise unauthorized_write(
            "identity memory updates need the user's confirmation (user_confirmed: true), unless a system "
            "agent marks the change as a refinement (system_refinement: true)"
        )


def check_delete(role: str, layer: str, *, user_instruction: bool) -> None:
    guard_workspace(role, layer)
    if layer == IDENTITY and not user_instruction:
        raise unauthorized_write(
            "identity memory is deleted only when the user explicitly asks for it (user_instruction: true)"
        )
    if layer == PROJECT and not _manages(role) and not user_instruction:
        raise unauthorized_write(
            "project memory can only be deleted by the manager agent or on explicit user instruction"
        )


#: read modes per layer; the user-facing agent reads identity and project semantically (or by id)
READ_MODES: dict[str, tuple[str, ...]] = {
    IDENTITY: ("semantic", "keyword", "id"),
    PROJECT: ("semantic", "id"),
    WORKSPACE: ("id", "task"),
}
USER_AGENT_READ_MODES: dict[str, tuple[str, ...]] = {IDENTITY: ("semantic", "id"), PROJECT: ("semantic", "id")}


def check_read_mode(role: str, layer: str, mode: str) -> None:
    guard_workspace(role, layer)
    allowed = READ_MODES[layer] if is_system(role) else USER_AGENT_READ_MODES[layer]
    if mode not in READ_MODES[layer]:
        raise InvalidRequest(
            f"mode {mode!r} is not available on the {layer} layer; use one of {', '.join(READ_MODES[layer])}",
            code="invalid_mode",
            details={"field": "mode", "allowed": list(READ_MODES[layer])},
        )
    if mode not in allowed:
        raise Forbidden(
            f"the user-facing agent reads the {layer} layer with mode {' or '.join(allowed)}, not {mode!r}",
            code="mode_not_allowed",
            details={"field": "mode", "allowed": list(allowed)},
        )
