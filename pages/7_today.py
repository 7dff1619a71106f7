"""Today's models: RoPE as a complex rotation, partial RoPE, MLA's decoupled key, iRoPE, Llama
3.1's frequency scaling, M-RoPE and Gemma 3's two bases, each computed with the published
values of assets/models/schemes.toml (posviz.modern), which the page's table sources; the
research frontier; and what shipped since 2026 (Gemma 4's proportional RoPE, DeepSeek-V4's RoPE
per layer, Qwen3-VL's interleaved M-RoPE, FoPE and HoPE) with the port-bug clinic. Each part is
a section of ui.today, listed at its top."""

import ui
from ui.today import contents, frontier, newer, published


def body(d: ui.Doc, s: ui.Settings) -> None:
    ui.need_tokens(d, s)
    d.markdown(s.t("today.intro"))
    contents.section(d, s)
    published.section(d, s)
    frontier.section(d, s)
    newer.section(d, s)


if __name__ == "__main__":
    ui.run("today", body)
