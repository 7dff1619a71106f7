"""Every colour posviz draws lines and markers in reads 3:1 against both themes' backgrounds
(WCAG 2.1 1.4.11, non-text contrast): white, and a dark theme's page (Streamlit's #0e1117, the
viewer's #0f1116). The browser sweep checks the drawn charts; this checks the palettes."""

import numpy as np
import pytest
from plotly.colors import sample_colorscale, unlabel_rgb

from posviz.figures.alibi import HEAD_COLORS, T5_COLORS
from posviz.figures.common import COLORWAY, LINE_GREY
from posviz.figures.models import SCHEME_COLORS
from posviz.figures.modern import KEPT, STACK_COLORS, TURNED
from posviz.figures.rope import ROTATED_COLOR, TOKEN_SCALE, token_colors
from posviz.figures.schemes import AXIS_COLORS, KIND_COLORS

BACKGROUNDS = ("#ffffff", "#0e1117", "#0f1116")


def luminance(colour: str) -> float:
    """WCAG 2.1's relative luminance of an sRGB colour (#rrggbb, #rgb or rgb(r, g, b))."""
    if colour.startswith("#"):
        digits = colour[1:] if len(colour) == 7 else "".join(c * 2 for c in colour[1:])
        rgb = np.array([int(digits[i:i + 2], 16) for i in (0, 2, 4)]) / 255
    else:
        rgb = np.array(unlabel_rgb(colour)) / 255
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return float(linear @ [0.2126, 0.7152, 0.0722])


def contrast(a: str, b: str) -> float:
    light, dark = sorted([luminance(a), luminance(b)], reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_contrast_matches_wcag_examples():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#0d0887", "#0f1116") == pytest.approx(1.26, abs=0.01)  # Plasma's navy


PALETTES = {"COLORWAY": COLORWAY, "HEAD_COLORS": HEAD_COLORS, "T5_COLORS": T5_COLORS,
            "SCHEME_COLORS": list(SCHEME_COLORS.values()), "AXIS_COLORS": AXIS_COLORS,
            "KIND_COLORS": list(KIND_COLORS.values()), "STACK_COLORS": list(STACK_COLORS.values()),
            "lines": [LINE_GREY, ROTATED_COLOR, TURNED, KEPT],
            "TOKEN_SCALE": sample_colorscale(TOKEN_SCALE, list(np.linspace(0, 1, 101))),
            "token_colors": token_colors(64)}


@pytest.mark.parametrize("name", list(PALETTES))
def test_every_line_colour_reads_3_to_1_on_light_and_dark_pages(name):
    weak = [(colour, back, round(contrast(colour, back), 2)) for colour in PALETTES[name]
            for back in BACKGROUNDS if contrast(colour, back) < 3.0]
    assert not weak, weak
