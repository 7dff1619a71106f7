"""posviz: positional encoding in transformers, computed and drawn.

Pure functions on numpy arrays; figure builders in `posviz.figures`. Nothing here imports
streamlit, so a notebook can `import posviz` and get the same numbers and figures as the app.
"""

from posviz.alibi import alibi_bias, alibi_slopes, causal_mask
from posviz.embedding import token_embeddings
from posviz.rope import apply_rope, rope_frequencies
from posviz.sinusoidal import sinusoidal
from posviz.tokens import MAX_TOKENS, clip_tokens, token_labels, tokenize

__all__ = [
    "MAX_TOKENS", "alibi_bias", "alibi_slopes", "apply_rope", "causal_mask", "clip_tokens",
    "rope_frequencies", "sinusoidal", "token_embeddings", "token_labels", "tokenize",
]
