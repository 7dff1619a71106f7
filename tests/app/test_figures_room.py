"""How a room answered, as a figure (ui/room/poll_bars.py)."""

from ui.room.poll_bars import OTHER, RIGHT, poll_bars


def test_one_bar_per_option_with_its_count_and_share():
    figure = poll_bars([3, 1, 0], ["A", "B", "C"], "How", "answers")
    bars = figure.data[0]
    assert list(bars.y) == ["A", "B", "C"] and list(bars.x) == [3, 1, 0]
    assert list(bars.text) == ["3  (75%)", "1  (25%)", "0  (0%)"]
    assert figure.layout.yaxis.autorange == "reversed"  # A on top, as the options are listed
    assert list(bars.marker.color) == [OTHER] * 3


def test_the_revealed_answer_stands_out():
    bars = poll_bars([2, 5], ["A", "B"], "How", "answers", correct=1).data[0]
    assert list(bars.marker.color) == [OTHER, RIGHT]
    assert list(bars.marker.opacity) == [0.45, 1.0]


def test_no_answers_yet_draws_empty_bars_on_a_sensible_axis():
    figure = poll_bars([0, 0], ["A", "B"], "How", "answers")
    assert list(figure.data[0].text) == ["0", "0"]
    assert tuple(figure.layout.xaxis.range) == (0, 1.25)
    assert figure.layout.height == 90 + 2 * 48
