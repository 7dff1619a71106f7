"""posviz: positional encoding in transformers, computed and drawn.

Pure functions on numpy arrays; figure builders in `posviz.figures`. Nothing here imports
streamlit, so a notebook can `import posviz` and get the same numbers and figures as the app.
"""

from posviz.alibi import alibi_bias, alibi_key_bias, alibi_slopes, causal_mask, slope_exponents
from posviz.attention import ATTENTION_SCHEMES, AttentionRun, attention_stack, attention_weights
from posviz.embedding import token_embeddings
from posviz.permutation import PermutationCheck, parse_order, permutation_check, reversal, shuffle
from posviz.relative import relative_position_bucket, smallest_max_distance
from posviz.rope import (
    apply_rope,
    context_frequencies,
    decay_bound,
    rope_frequencies,
    rope_scores,
    yarn_ramp,
    yarn_temperature,
)
from posviz.sinusoidal import offset_matrix, sinusoidal
from posviz.tokens import MAX_TOKENS, clip_tokens, token_labels, tokenize

__all__ = [
    "ATTENTION_SCHEMES", "MAX_TOKENS", "AttentionRun", "PermutationCheck", "alibi_bias",
    "alibi_key_bias", "alibi_slopes", "apply_rope", "attention_stack", "attention_weights",
    "causal_mask", "clip_tokens", "context_frequencies", "decay_bound", "offset_matrix",
    "parse_order", "permutation_check", "relative_position_bucket", "reversal", "rope_frequencies",
    "rope_scores", "shuffle", "sinusoidal", "slope_exponents", "smallest_max_distance",
    "token_embeddings", "token_labels", "tokenize", "yarn_ramp", "yarn_temperature",
]
