"""Resolving the ``node_ids`` / ``client_ids`` of activate and rehydrate requests.

Counters, as both endpoints report them:

* ``requested``: distinct references sent (node ids plus client ids);
* ``resolved``: distinct node ids they name once client ids are looked up in the scope
  (an unknown client id, or one naming a node the caller may not see, resolves to nothing);
* ``missing``: references that did not lead to a node the caller may see in the scope.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from memlane.domain.visibility import Viewer
from memlane.services.reading import MemoryReader


@dataclass(slots=True)
class Resolution:
    requested: int
    #: node ids as sent
    direct_ids: list[str]
    #: node ids to act on, in request order (node_ids first, then resolved client_ids)
    node_ids: list[str]
    #: the client ids that resolved to each node id
    client_ids_of: dict[str, list[str]] = field(default_factory=dict)
    unresolved_client_ids: list[str] = field(default_factory=list)

    def missing(self, found: set[str]) -> tuple[list[str], list[str]]:
        """(missing node ids, missing client ids) once ``found`` (visible node ids) is known."""
        missing_ids = [nid for nid in self.direct_ids if nid not in found]
        missing_cids = list(self.unresolved_client_ids)
        for nid, cids in self.client_ids_of.items():
            if nid not in found:
                missing_cids.extend(cids)
        return missing_ids, missing_cids


async def resolve_refs(
    reader: MemoryReader, viewer: Viewer, scope: str, node_ids: Sequence[str], client_ids: Sequence[str]
) -> Resolution:
    ids = list(dict.fromkeys(node_ids))
    cids = list(dict.fromkeys(client_ids))
    mapping = await reader.client_ids(viewer, scope, cids)
    out = Resolution(requested=len(ids) + len(cids), direct_ids=ids, node_ids=list(ids))
    for cid in cids:
        nid = mapping.get(cid)
        if nid is None:
            out.unresolved_client_ids.append(cid)
            continue
        out.client_ids_of.setdefault(nid, []).append(cid)
        if nid not in out.node_ids:
            out.node_ids.append(nid)
    return out
