"""The page on today's models (pages/7_today.py), section by section: what today's models do
with RoPE, computed with their published values (`published`); the research frontier
(`frontier`); what shipped since 2026 (`newer`) and the bugs its ports shipped (`clinic`). Each
section reads the engine (posviz) and the page's caches (ui.cached.today, ui.cached.schemes)
and draws what they give."""
