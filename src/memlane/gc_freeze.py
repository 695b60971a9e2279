"""Keep the objects a process starts with out of Python's full garbage collections.

A full (generation 2) collection walks every container object the process holds. A server
that has imported FastAPI, SQLAlchemy, pydantic, onnxruntime and loaded its services holds
a quarter of a million of them, and a bulk write promotes enough new objects to trigger a
full collection every few requests: in-process, 500-node writes spent 44 ms per request in
them (20% of the write). ``gc.freeze()`` moves everything alive at the end of start-up into
a permanent generation that collections skip: 1.3 ms per request, and 2,291 -> 3,346 nodes/s
in the same measurement.

Frozen objects are still freed by reference counting as usual; only reference cycles among
them would never be collected, and start-up objects are long-lived by nature.
"""

from __future__ import annotations

import gc


def freeze_startup_objects() -> int:
    """Collect once, then freeze what remains; returns how many objects were frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


__all__ = ["freeze_startup_objects"]
