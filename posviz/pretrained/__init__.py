"""Real causal language models from this machine's disk, read on a sentence with position on or
off. For a notebook:

    model = posviz.pretrained.by_name("HuggingFaceTB/SmolLM2-135M")
    tokens, weights = posviz.pretrained.attention(model, "刚想到了")
    weights.shape  # (attention layers, heads, T, T), each row a query's weights over the keys

A model is a folder in the Hugging Face format: one the Hugging Face cache holds (named by its id,
as `huggingface_hub` lists it), one under a folder of models, or any path. Nothing is ever
downloaded: files are read locally only, weights only from `safetensors` files (a pickle can run
code), every file read must lie inside the model's folder (the cache's blobs, for a cached
model), and a model or tokenizer whose configuration asks for its own code is refused, never
run. torch runs on the CPU, in float32, on at most THREADS threads.

posviz's own small trained models (`posviz.model`, in assets/models) are read the same way, named
"posviz/rope", "posviz/learned", ... (`own()`), so a machine without a model still has some.

How a model carries position is read from what transformers itself builds, then checked on the
model (`scheme`): its rotary modules (each layer type's frequencies, as `ROPE_INIT_FUNCTIONS`
computed them, and which attention layers really turn their queries and keys), a learned or
sinusoidal table of absolute positions, or ALiBi. Switching position off does exactly one thing
per scheme, and says which (`Scheme.off`):
- RoPE: every position id is 0, so no query or key is turned (partial RoPE: the turned share);
- a table of absolute positions, learned (GPT-2) or sinusoidal (XGLM): its rows are zero;
- ALiBi (BLOOM, MPT, Falcon with alibi): every head's slope is 0, so the bias is 0 everywhere;
- none: nothing carries position but the causal mask, which stays in every case.
With that switch off, the first attention layer must read the tokens before the last one as a
bag; a model whose first layer still tells their order apart is refused ("unread"): posviz
would otherwise call position off something that is not. A refusal says what was found: keys
besides the sentence's tokens ("keys"), layers with different numbers of heads ("heads"),
position ids that change attention with no rotary frequencies to name ("ids").

A run has a third state beside position on and off: the model run as a buggy port of it runs
it (`read(..., port=...)`, the ports of posviz.ported).

This package keeps nothing between calls: a program that reads often keeps its loaded models
and runs itself (the app: ui.cached.real). Its modules, one job each: finding (a model by its
name), checking (its files, before loading: card), loading (load), position (how it carries
position: scheme; and position switched off), probing (one watched run of a transformers
model), tokenized (a sentence's pieces, a next token's text and bytes), running (read, twin)
and records (what they take and give, and Refused). This face names what a caller uses.
"""

from posviz.pretrained.checking import (
    CONFIGS,
    FLOAT_BYTES,
    MAX_FILES,
    MAX_JSON,
    OVERHEAD,
    PICKLES,
    available_memory,
    card,
)
from posviz.pretrained.finding import (
    MAX_NAME,
    OWN,
    OWN_ORDER,
    at_path,
    cached,
    find,
    in_folder,
    own,
)
from posviz.pretrained.loading import THREADS, by_name, load
from posviz.pretrained.position import TABLE_NAME, scheme
from posviz.pretrained.probing import AWAY, PROBE, per_token
from posviz.pretrained.records import (
    TOKEN_WISE,
    Card,
    Found,
    Guess,
    Loaded,
    Piece,
    Reading,
    Refused,
    Rotary,
    Scheme,
    Twin,
)
from posviz.pretrained.running import (
    attention,
    compare,
    ids_of,
    moved,
    next_tokens,
    outputs,
    read,
    run,
    twin,
)
from posviz.pretrained.tokenized import (
    MAX_TOKENS,
    byte_level_alphabet,
    encode,
    guess,
    pieces,
    token_bytes,
)

__all__ = [
    "AWAY", "CONFIGS", "FLOAT_BYTES", "MAX_FILES", "MAX_JSON", "MAX_NAME", "MAX_TOKENS", "OVERHEAD",
    "OWN", "OWN_ORDER", "PICKLES", "PROBE", "TABLE_NAME", "THREADS", "TOKEN_WISE", "Card", "Found",
    "Guess", "Loaded", "Piece", "Reading", "Refused", "Rotary", "Scheme", "Twin", "at_path",
    "attention", "available_memory", "by_name", "byte_level_alphabet", "cached", "card", "compare",
    "encode", "find", "guess", "ids_of", "in_folder", "load", "moved", "next_tokens", "outputs",
    "own", "per_token", "pieces", "read", "run", "scheme", "token_bytes", "twin",
]
