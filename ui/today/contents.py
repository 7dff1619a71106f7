"""The contents of the page on today's models: each section's heading with its anchor, and the
list at the page's top that links to them, in the page's order."""

from __future__ import annotations

from ui.doc import Doc
from ui.shared import Settings

SECTIONS = ("today.complex_head", "today.partial_head", "today.mla_head", "today.irope_head",
            "today.llama_head", "today.mrope_head", "today.gemma_head", "today.table_head",
            "today.lineage_head", "today.frontier_head", "schemes.head", "schemes.gemma_head",
            "schemes.v4_head", "schemes.qwen_head", "schemes.bands_head", "schemes.clinic_head")
"""Every section's heading (its catalog key), in the page's order."""
PART = "schemes.head"  # a part of the page (a header): the sections after it are listed under it


def anchor(key: str) -> str:
    """A section's anchor, from its heading's key: today.complex_head -> today-complex."""
    return key.removesuffix("_head").replace(".", "-").replace("_", "-")


def heading(d: Doc, s: Settings, key: str) -> None:
    """A section's heading, with its anchor (a part's as a header, the others as subheaders)."""
    if key not in SECTIONS:
        raise ValueError(f"{key} is not a section of the page's contents")
    (d.header if key == PART else d.subheader)(s.t(key), anchor=anchor(key))


def section(d: Doc, s: Settings) -> None:
    """The list of contents: a link to each section, those of a part under it."""
    after = SECTIONS.index(PART)
    lines = [f"{'  ' if n > after else ''}- [{s.t(key)}](#{anchor(key)})"
             for n, key in enumerate(SECTIONS)]
    d.container(border=True).markdown(f"**{s.t('today.contents')}**\n\n" + "\n".join(lines))
