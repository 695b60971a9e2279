"""Files of the knowledge folder meet the input rules of the API (domain/inputs.py): a file
that is not UTF-8, holds a NUL, or whose metadata is beyond the JSON limits is reported by
name and left out; the other files load, on both backends."""

from __future__ import annotations

from pathlib import Path

from memlane.domain.clock import Clock
from memlane.embed.hashing import HashingEmbedder
from memlane.services.container import open_services
from memlane.store.knowledge import ItemFilter
from tests.support.settings import DIM, make_settings

GOOD = "---\nid: adr-good\ntype: adr\nlayer: team\ntitle: Good\n---\n# Good\n"


async def test_a_bad_file_is_reported_and_the_others_load(db_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "knowledge"
    folder.mkdir()
    (folder / "good.md").write_text(GOOD)
    (folder / "latin1.md").write_bytes(b"---\nid: adr-latin\ntype: adr\nlayer: team\ntitle: L\n---\nCaf\xe9\n")
    (folder / "nul.md").write_text("---\nid: adr-nul\ntype: adr\nlayer: team\ntitle: N\n---\na\x00b\n")
    deep = "metadata:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(40)) + "  " * 41 + "v: 1\n"
    (folder / "deep.md").write_text(f"---\nid: adr-deep\ntype: adr\nlayer: team\ntitle: Deep\n{deep}---\n")
    settings = make_settings(db_url, MEMLANE_KNOWLEDGE_DIR=str(folder))
    svc = await open_services(settings, clock=Clock(), embedder=HashingEmbedder(DIM))
    try:
        report = await svc.knowledge.ensure_folder("acme", force=True)
        assert report is not None
        errors = {e["file"]: e["error"] for e in report.errors}
        assert "not UTF-8" in errors["latin1.md"] and "latin1.md.content" in errors["latin1.md"]
        assert "U+0000" in errors["nul.md"] and "nul.md.content" in errors["nul.md"]
        assert "nested deeper than 32" in errors["deep.md"]
        assert [i.id for i in await svc.knowledge.list_items("acme", ItemFilter(), limit=10)] == ["adr-good"]
    finally:
        await svc.close()
