"""Every position scheme posviz computes, one entry each: its name, how it enters attention,
its formula, its words, the stacks that offer it and its parameters. The pages, the stand-in
attention stack (posviz.attention), the trained models (posviz.model, posviz.classifier) and
the browser's engine (sent `browser_schemes`, assets/viewer/src/engine/schemes.js) read it and
choose by an entry's kind, never by its name; docs/schemes.md says how a scheme is added.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from posviz import alibi, partial, rope, sinusoidal
from posviz.published import value

KINDS = ("none", "input", "rotate", "bias")
"""How position enters attention: not at all, added to the input before layer 1 (params'
`table`: the sinusoidal formula or a trained one), turning q and k in every layer (params'
`fraction` of each head's channels, in `pairing`), or a bias on the scores (ALiBi's)."""

STACKS = ("attention", "classifier", "models")
"""Where a scheme can be offered: the stand-in attention stack (`posviz.attention`, computed by
the browser's engine too), the trained order classifier (`posviz.classifier`) and the trained
language models (`posviz.model`; assets/models/*.pt are trained once, their schemes fixed)."""

INPUT_TABLES = ("sinusoidal", "learned")
"""The tables a scheme of kind "input" adds: the sinusoidal formula, or one trained with the
model (as many rows as the model's training length)."""

PARTIAL_MODEL = "qwen3_next_80b_a3b"
"""The model whose published fraction the stand-in stack's partial RoPE turns
(assets/models/schemes.toml: Qwen3-Next's `partial_rotary_factor`)."""


@dataclass(frozen=True)
class PositionScheme:
    """One position scheme: `words` maps each stack that offers it to the i18n key of its name
    there; `unmasked` is the key of its name without a causal mask, where it turns into another
    variant (ALiBi's symmetric one); `formula` the LaTeX the pages show for it, if any."""

    name: str
    kind: str
    words: Mapping[str, str]
    formula: str | None = None
    params: Mapping[str, object] = field(default_factory=dict)
    unmasked: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        if unknown := set(self.words) - set(STACKS):
            raise ValueError(f"stacks must be among {STACKS}, got {sorted(unknown)}")
        if self.kind == "input" and self.params.get("table") not in INPUT_TABLES:
            raise ValueError(f"an input scheme's table must be one of {INPUT_TABLES}")
        object.__setattr__(self, "words", MappingProxyType(dict(self.words)))
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    @property
    def stacks(self) -> tuple[str, ...]:
        """The stacks that offer it."""
        return tuple(stack for stack in STACKS if stack in self.words)

    @property
    def learned_table(self) -> bool:
        """Whether it adds a trained table: such a model reads only its training length."""
        return self.kind == "input" and self.params["table"] == "learned"

    def words_for(self, stack: str, causal: bool = True) -> str:
        """The i18n key of its name in stack, with or without a causal mask."""
        return self.unmasked if self.unmasked and not causal else self.words[stack]

    def browser(self) -> dict:
        """What the browser's engine needs of it: name, kind and parameters (JSON)."""
        return {"name": self.name, "kind": self.kind, "params": dict(self.params)}


PAGE_WORDS = {"attention": "attention", "classifier": "models", "models": "models"}
"""Whose words each stack's schemes are named in: the attention page's, or the models' page's
(the classifier is drawn there)."""


def _words(name: str, *stacks: str) -> dict[str, str]:
    """The i18n keys of a scheme's name in the stacks that offer it: `<page>.schemes.<name>`."""
    return {stack: f"{PAGE_WORDS[stack]}.schemes.{name}" for stack in stacks}


SCHEMES: tuple[PositionScheme, ...] = (
    PositionScheme("none", "none", _words("none", *STACKS)),
    PositionScheme("sinusoidal", "input", _words("sinusoidal", *STACKS), sinusoidal.FORMULA,
                   {"table": "sinusoidal"}),
    PositionScheme("learned", "input", _words("learned", "models"), None, {"table": "learned"}),
    PositionScheme("rope", "rotate", _words("rope", *STACKS), rope.FORMULA,
                   {"fraction": 1.0, "pairing": "interleaved"}),
    PositionScheme("alibi", "bias", _words("alibi", "attention", "models"), alibi.FORMULA,
                   unmasked="attention.schemes.alibi_symmetric"),
    PositionScheme("partial_rope", "rotate", _words("partial_rope", "attention"), partial.FORMULA,
                   {"fraction": float(value(PARTIAL_MODEL, "partial_rotary_factor")),
                    "pairing": "half", "model": PARTIAL_MODEL}),
)
"""The registry, in the order every stack lists its schemes."""

BY_NAME = MappingProxyType({each.name: each for each in SCHEMES})


def offered(stack: str) -> tuple[str, ...]:
    """The names of the schemes a stack offers, in the registry's order."""
    if stack not in STACKS:
        raise ValueError(f"stack must be one of {STACKS}, got {stack!r}")
    return tuple(each.name for each in SCHEMES if stack in each.words)


def position_scheme(name: str, stack: str = "attention") -> PositionScheme:
    """The entry of a scheme the stack offers; a ValueError names the ones it does."""
    found = BY_NAME.get(name)
    if found is None or stack not in found.words:
        raise ValueError(f"scheme must be one of {offered(stack)}, got {name!r}")
    return found


def browser_schemes() -> list[dict]:
    """The stand-in stack's schemes as the browser's engine reads them (the viewer's
    configuration and the golden page send them): [{name, kind, params}]."""
    return [each.browser() for each in SCHEMES if "attention" in each.words]
