"""The concept check's gains as the lecturer's panel, the projector and the report show them:
a gain to two places, or a dash that says why there is none."""

import pytest

from rooms.records import Gain
from ui.i18n import text
from ui.room.check import gain_cell, gains_table_columns


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_missing_gain_says_whether_no_one_answered_twice_or_all_were_right(lang):
    gains = [Gain(1, 4, 25.0, 100.0),   # 3 of 3 left to learn were learned: 1.00
             Gain(2, 5, 40.0, 25.0),    # fewer right after: (25 - 40) / 60 = -0.25
             Gain(3, 0, None, None),    # nobody sat this question both times
             Gain(4, 6, 100.0, 100.0),  # every one right before: nothing to learn
             Gain(5, 6, 100.0, 50.0)]   # ... even if some were wrong after
    cells = [gain_cell(g, lang) for g in gains]
    unpaired, all_right = text("check.gain_unpaired", lang), text("check.gain_all_right", lang)
    assert cells == ["1.00", "-0.25", unpaired, all_right, all_right]
    assert unpaired != all_right and unpaired.startswith("—") and all_right.startswith("—")
    columns = gains_table_columns(gains, lang)
    assert columns[text("check.column_gain", lang)] == cells
    assert columns[text("check.column_before", lang)] == ["25%", "40%", "—", "100%", "100%"]
