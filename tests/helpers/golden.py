"""Golden cases for the two engines: random sentences and strings written by the Python engine,
what it computes for each (`expected`), and the same computation in the browser's engine
(`BROWSER_JS`, static/engine.js), figure for figure in the same order, so
tests/browser/test_golden.py can hold one to the other (docs/engines.md)."""

from __future__ import annotations

import numpy as np

from posviz.alibi import alibi_slopes, causal_alibi_bias
from posviz.attention import ATTENTION_SCHEMES, HEAD_DIM, attention_stack, one_head
from posviz.embedding import token_embeddings
from posviz.partial import partial_rope
from posviz.permutation import compare_runs, reversal
from posviz.rope import (
    PAIRINGS,
    apply_rope,
    pair_coordinates,
    pair_trajectory,
    rope_scores,
    shifted_rope_scores,
)
from posviz.sinusoidal import LAYOUTS, similarity, sinusoidal
from posviz.tokens import clip_tokens, tokenize

LONGEST = 128
SHIFTS = [0, 1, 10, 100]
FRACTIONS = [0.25, 0.5, 1.0]  # partial RoPE's share of a head (an even count of any head's)

# What the sentences are made of: words and marks of many scripts.
CHINESE = [chr(c) for c in range(0x4E00, 0x9FA6)]
ENGLISH = ["the", "cat", "sat", "on", "a", "mat", "while", "it", "was", "raining", "and",
           "nobody", "knew", "why", "position", "matters", "attention", "rotary", "linear",
           "bias", "token", "order", "sentence", "Transformer", "GPT", "don't", "O'Neil"]
EMOJI = ["😀", "👍🏽", "👩\u200d👩\u200d👧\u200d👦", "🏳️\u200d🌈", "❤️", "1️⃣", "🇨🇳", "🇬🇧",
         "🧑🏾\u200d💻", "✌🏻", "🫠", "#️⃣", "👨\u200d❤️\u200d💋\u200d👨"]
COMBINING = ["e\u0301", "n\u0303o", "a\u0308\u0304", "Z\u0335\u0321a\u0336", "\u1100\u1161\u11a8",
             "क्षि", "नमस्ते", "ก้", "o\u0302\u0323"]
ZWJ = ["\u200d", "a\u200db", "\u200c", "\u2060", "\ufeff"]
RTL = ["שלום", "עולם", "مرحبا", "بِسْمِ", "\u200f", "\u202e", "\u202c", "\u2067", "\u2069", "١٢٣"]
OTHER = [",", ".", "!", "?", "，", "。", "、", "「", "」", "—", "…", "42", "٣", "$", "%", " ", "  ",
         "\t", "\n", "\r\n", "\u3000", "\u00a0", "ひらがな", "カタカナ", "한국어", "ㄅㄆ",
         "Ελληνικά", "Русский", "ß", "ﬁ", "𝔘𝔫𝔦", "<b>", "&amp;", "\u0000", "\u0007"]
POOLS = [CHINESE, ENGLISH, EMOJI, COMBINING, ZWJ, RTL, OTHER]
WEIGHTS = [0.35, 0.25, 0.1, 0.08, 0.05, 0.1, 0.07]


def sentence(rng: np.random.Generator, n_tokens: int) -> str:
    """A random sentence of at least n_tokens tokens (or LONGEST), spaced like real text."""
    text, count = "", 0
    while count < n_tokens:  # half the tokens still missing at a time (tokenizing is the cost)
        for _ in range(max(1, (n_tokens - count) // 2)):
            pool = POOLS[rng.choice(len(POOLS), p=WEIGHTS)]
            piece = pool[rng.integers(len(pool))]
            text += piece + (" " if pool is ENGLISH or rng.random() < 0.3 else "")
        count = len(tokenize(text))
    return text


def cases(count: int, seed: int) -> list[dict]:
    """count random sentences of 1 .. LONGEST tokens, each with the sizes and switches its
    figures are drawn with: most up to 64 tokens, log-uniform (as typed sentences are: most
    short), one in 25 from 65 to LONGEST (the cost of a case grows with its length squared)."""
    rng = np.random.default_rng(seed)
    out = []
    for index in range(count):
        n_tokens = (LONGEST if index == 0 else int(rng.integers(65, LONGEST + 1)) if index % 25 == 0
                    else int(np.exp(rng.uniform(0, np.log(64)))))
        n_heads = int(rng.choice([1, 2, 4], p=[0.45, 0.45, 0.1]))
        out.append({
            "text": sentence(rng, n_tokens),
            "d_pe": 2 * int(rng.integers(1, 33)),
            "base": float(rng.choice([10_000.0, 100.0, 500_000.0])),
            "layout": LAYOUTS[rng.integers(2)],
            "pairing": PAIRINGS[rng.integers(2)],
            "alibi_heads": int(rng.integers(1, 65)),
            "bias_heads": int(rng.integers(1, 3)),
            "n_heads": n_heads,
            "n_layers": int(rng.integers(1, 3)),
            "scheme": ("none" if index % 4 == 1
                       else ATTENTION_SCHEMES[rng.integers(len(ATTENTION_SCHEMES))]),
            "fraction": FRACTIONS[rng.integers(len(FRACTIONS))],
            "causal": index % 4 != 1 and bool(rng.integers(2)),
        })
    return out


def expected(case: dict) -> tuple[list[str], dict[str, np.ndarray]]:
    """The sentence's tokens and every figure's array, as the Python engine computes them."""
    tokens, _ = clip_tokens(tokenize(case["text"]), LONGEST)
    seq_len, positions = len(tokens), np.arange(len(tokens))
    d_model = HEAD_DIM * case["n_heads"]
    pe = sinusoidal(seq_len, case["d_pe"], case["base"], case["layout"])
    _, q, k, _ = one_head(tokens, d_model)
    base, pairing = case["base"], case["pairing"]
    x = token_embeddings(tokens, d_model)
    backwards = reversal(seq_len)
    runs = [attention_stack(x[order], case["n_layers"], case["n_heads"], case["scheme"],
                            case["causal"]) for order in (positions, backwards)]
    return tokens, {
        "embedding": x,
        "sinusoidal": pe,
        "similarity": similarity(pe),
        "rope": apply_rope(q, positions, base, pairing),
        "rope_plane": np.stack([[pair_coordinates(turned, pair, pairing)
                                 for turned in (q, apply_rope(q, positions, base, pairing))]
                                for pair in (0, d_model // 2 - 1)]),  # (2 pairs, 2, T, 2)
        "rope_scores": rope_scores(q, k, positions, base, pairing),
        "rope_shift": shifted_rope_scores(q, k, seq_len - 1, 0, np.array(SHIFTS), base, pairing),
        "partial_rope": partial_rope(q, positions, case["fraction"], base, pairing),
        "rope_turn": pair_trajectory(q[-1], positions, np.array([0, d_model // 2 - 1]), base,
                                     pairing),
        "alibi_slopes": alibi_slopes(case["alibi_heads"]),
        "alibi_bias": causal_alibi_bias(case["bias_heads"], seq_len),
        "attention": np.stack(runs[0].weights),
        "output": runs[0].outputs[-1],
        "reversed": np.stack(runs[1].weights) if bag(case) else np.zeros(0),
        "token_gaps": compare_runs(runs[0], runs[1], backwards).token_gaps,
    }


def bag(case: dict) -> bool:
    """Whether the case checks the bag of tokens: no position, no mask (one in four, and any
    that draws it): the reversed sentence's maps are then its maps moved."""
    return case["scheme"] == "none" and not case["causal"]


BROWSER_JS = """
async ([url, given]) => {
  const [cases, shifts, longest, registry] = JSON.parse(given);
  const { tokens: tk, nd, sinusoidal: sn, rope, alibi, embedding, attention, schemes, partial,
          permutation } = await import(url);
  schemes.use_schemes(registry);
  const parts = [], shapes = [], tokens = [];
  const keep = (a) => { parts.push(a.data); shapes.push(a.shape); };
  for (const c of cases) {
    const text = String.fromCodePoint(...c.text);
    const [toks] = tk.clip_tokens(tk.tokenize(text), longest);
    tokens.push(toks.map((t) => Array.from(t, (ch) => ch.codePointAt(0))));
    const t = toks.length, positions = nd.arange(t);
    const d = attention.HEAD_DIM * c.n_heads;
    const pe = sn.sinusoidal(t, c.d_pe, c.base, c.layout);
    const [, q, k] = attention.one_head(toks, d);
    const x = embedding.token_embeddings(toks, d);
    const bag = c.scheme === 'none' && !c.causal;
    const backwards = permutation.reversal(t);
    const orders = [toks, permutation.reordered(toks, backwards)];
    const runs = orders.map((seq) => attention.attention_stack(
      embedding.token_embeddings(seq, d), c.n_layers, c.n_heads, c.scheme, c.causal));
    const stacked = (ws) => {
      const out = nd.array([ws.length, ...ws[0].shape]);
      ws.forEach((w, l) => out.data.set(w.data, l * w.data.length));
      return out;
    };
    keep(x);
    keep(pe);
    keep(sn.similarity(pe));
    keep(rope.apply_rope(q, positions, c.base, c.pairing));
    const plane = nd.array([2, 2, t, 2]);
    [0, d / 2 - 1].forEach((pair, p) => [q, rope.apply_rope(q, positions, c.base, c.pairing)]
      .forEach((turned, r) => plane.data.set(rope.pair_coordinates(turned, pair, c.pairing).data,
                                             (2 * p + r) * t * 2)));
    keep(plane);
    keep(rope.rope_scores(q, k, positions, c.base, c.pairing));
    const shift = rope.shifted_rope_scores(q, k, t - 1, 0, shifts, c.base, c.pairing);
    keep(nd.array([shifts.length], shift));
    keep(partial.partial_rope(q, positions, c.fraction, c.base, c.pairing));
    const last = q.data.slice((t - 1) * d);
    keep(rope.pair_trajectory(last, positions, [0, d / 2 - 1], c.base, c.pairing));
    keep(nd.array([c.alibi_heads], alibi.alibi_slopes(c.alibi_heads)));
    keep(alibi.causal_alibi_bias(c.bias_heads, t));
    keep(stacked(runs[0].weights));
    keep(runs[0].outputs[runs[0].outputs.length - 1]);
    keep(bag ? stacked(runs[1].weights) : nd.array([0]));
    keep(nd.array([t], permutation.token_gaps(runs[0], runs[1], backwards)));
  }
  const size = parts.reduce((n, p) => n + p.length, 0);
  const all = new Float64Array(size);
  let at = 0;
  for (const p of parts) { all.set(p, at); at += p.length; }
  const bytes = new Uint8Array(all.buffer);
  const chunks = [];
  for (let i = 0; i < bytes.length; i += 0x8000) {
    chunks.push(btoa(String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000))));
  }
  return JSON.stringify({ tokens, shapes, data: chunks });
}
"""
"""The browser's side of `expected`: the engine at url computes every case from the sentence's
code points (its own tokens, its own numbers), with the stand-in stack's schemes as Python
sends them (posviz.schemes.browser_schemes, the last argument), and returns the tokens as code
points, and every array's shape and values (float64s in `expected`'s order, base64 in chunks of
32 KiB). What
crosses to the page and back is JSON text: Playwright's own encoding of many small lists is the
slow part otherwise."""

FIGURES = ["embedding", "sinusoidal", "similarity", "rope", "rope_plane", "rope_scores",
           "rope_shift", "partial_rope", "rope_turn", "alibi_slopes", "alibi_bias", "attention",
           "output", "reversed", "token_gaps"]
"""The names of BROWSER_JS's arrays, in its order (the keys of `expected`)."""

TOKENIZE_JS = """
async ([url, given]) => {
  const { tokens: tk } = await import(url);
  return JSON.stringify(JSON.parse(given).map((cps) => tk.tokenize(String.fromCodePoint(...cps))
    .map((t) => Array.from(t, (ch) => ch.codePointAt(0)))));
}
"""
"""The browser's tokens for each string (given and returned as code points: a lone surrogate
survives the trip)."""


def code_points(text: str) -> list[int]:
    return [ord(ch) for ch in text]


def from_code_points(points: list[int]) -> str:
    return "".join(map(chr, points))
