"""pgvector values in binary on the wire, straight between numpy and asyncpg.

Without a codec asyncpg exchanges ``vector`` as text: writing 500 nodes formatted about
190,000 floats with ``repr`` and PostgreSQL parsed them back, and reading a vector split and
parsed its text. pgvector's binary form is a small header and the floats in network byte
order, which numpy produces and reads in one call each way.

Formats (pgvector ``vector_send`` / ``halfvec_send``): ``int16 dim``, ``int16 unused`` (0),
then ``dim`` big-endian float32 (``vector``) or float16 (``halfvec``).
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

_HEADER = struct.Struct(">HH")
_DTYPES: dict[str, np.dtype[Any]] = {"vector": np.dtype(">f4"), "halfvec": np.dtype(">f2")}


def encoder(kind: str) -> Any:
    dtype = _DTYPES[kind]

    def encode(value: Any) -> bytes:
        arr = np.asarray(value, dtype=np.float32).reshape(-1)
        return _HEADER.pack(arr.shape[0], 0) + arr.astype(dtype).tobytes()

    return encode


def decoder(kind: str) -> Any:
    dtype = _DTYPES[kind]

    def decode(data: bytes) -> np.ndarray:
        dim: int = _HEADER.unpack_from(data)[0]
        return np.frombuffer(data, dtype=dtype, count=dim, offset=_HEADER.size).astype(np.float32)

    return decode


async def register(connection: Any) -> None:
    """Install the codecs on an asyncpg connection, for the pgvector types the database has.

    ``halfvec`` exists from pgvector 0.7; a database without the extension at all (before
    the first migration) keeps asyncpg's defaults."""
    rows = await connection.fetch(
        "SELECT t.typname, n.nspname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace "
        "WHERE t.typname = ANY($1::text[])",
        list(_DTYPES),
    )
    for row in rows:
        await connection.set_type_codec(
            row["typname"],
            schema=row["nspname"],
            encoder=encoder(row["typname"]),
            decoder=decoder(row["typname"]),
            format="binary",
        )


__all__ = ["decoder", "encoder", "register"]
