"""The guided lesson's questions: where a scene puts its figure and its question (Stage), a
scene's question as a poll of the room or revealed by a toggle (ask), and, in a lecture room,
the predicted picture (picture)."""

from typing import NamedTuple

import numpy as np

import ui
from rooms import LETTERS
from ui import answer_key as right_option
from ui.markup import literal
from ui.room.picture import class_picture
from ui.room.polls import lesson_poll, options_list

PROJECTOR_COLUMNS = (4, 1)  # a projector's figure and question side by side, for a question
ABOUT_THE_FIGURE = ("port",)  # about what only the figure shows (which map is the port's)
PICK_KEYS = 6                   # a predicted picture's keys: the marked token is the last of
# the first six (a poll has at most six options)


class Stage(NamedTuple):
    """Where a scene puts its figure and its question: on a projector the figure under the
    scene's title, fitted to the window; a question about what only the figure shows beside it
    (PROJECTOR_COLUMNS), so that the two are on one screen."""
    figure: ui.Doc
    question: ui.Doc


def polled(d: ui.Doc, s: ui.Settings, name: str, lead: str, question: str, labels: list[str],
           right: int) -> ui.Doc | None:
    """A scene's question (poll `scene-<name>`, option `right` right): a poll of the room in a
    lecture room, else revealed by a toggle of its own; returns where its answer goes once it
    is shown."""
    def asked(box, options: list[str]) -> bool:
        revealed = lesson_poll(box, s, s.room, name, question, options, right)
        if revealed is None:
            options_list(box, options)
            revealed = box.toggle(s.t("lesson.reveal"), key=f"lesson_reveal_{name}")
        return revealed

    return d.question(f"scene-{name}", lead, question, labels, asked)


def ask(d: ui.Doc, s: ui.Settings, name: str, right: int, answer: str | None = None,
        **numbers: object) -> ui.Doc | None:
    """The scene's question in a box with its lettered options (option `right` is right).

    In a lecture room the question is a poll of the room (ui.room), and the answer shows once
    the lecturer reveals it; elsewhere a toggle (its own per scene) reveals it. The answer is
    filled with the live numbers. Returns the box once the answer is shown, for more of it.
    """
    question = s.t(f"lesson.{name}.question", **numbers)
    labels = [s.t(f"lesson.{name}.options.{letter}", **numbers)
              for letter in "abcdef"[:right_option.OPTIONS[name]]]
    box = polled(d, s, name, s.t("lesson.predict"), question, labels, right)
    if box is not None:
        said = s.t(answer or f"lesson.{name}.answer", **numbers)
        box.success(f"**{LETTERS[right]}.** " + said)
        if d.live:  # the app's page: the answer is said to a screen reader as it shows
            ui.announce(f"{LETTERS[right]}. {said}".replace("**", "").replace("$", ""))
    return box


def distance_table(d: ui.Doc, s: ui.Settings, rows: list[dict[str, object]],
                   columns: tuple[str, ...]) -> None:
    """The embedding lesson's table of repeated tokens, with the given distance columns."""
    d.dataframe(rows, {key: s.t(f"embedding.col.{key}")
                       for key in ("token", "first", "second", *columns)})



def in_room(d: ui.Doc, s: ui.Settings) -> bool:
    """Whether the page is drawn for a lecture room: the app's page of a member, or a room's
    followers' document (a file has no room)."""
    return s.room is not None if d.live else d.room


def picture(d: ui.Doc, s: ui.Settings, name: str, seq: tuple[str, ...], weights: np.ndarray,
            query: int, truth: int, **answered: object) -> bool:
    """In a lecture room, the predicted picture: before the map is shown, the class taps a key
    of the first PICK_KEYS for the marked token (query), and `truth` is the right key, decided
    by weights (the model's (T, T) attention). Once revealed, the answer
    (`lesson.<name>.pick_answer`, filled with answered), and on the app's page the class's
    picture beside the model's row. Returns whether the answer is shown (always, outside a
    room)."""
    n = picked_keys(seq)
    row = weights[query, :n]
    options = [f"{key} {token[:40]}" for key, token in enumerate(seq[:n])]
    question = s.t(f"lesson.{name}.pick", n=query, token=literal(seq[query]))
    box = polled(d, s, f"{name}pick", s.t("lesson.predict_picture"), question, options, truth)
    if box is None:
        return False
    box.success(s.t(f"lesson.{name}.pick_answer", n=query, cell=truth,
                    token=literal(seq[truth]), weight=float(row[truth]), **answered))
    if d.live:
        class_picture(box.where, s, f"scene-{name}pick", seq[:n], row, query, truth)
    return True


def picked_here(d: ui.Doc, s: ui.Settings, seq: tuple[str, ...]) -> bool:
    """Whether a predicted picture is asked here: in a lecture room, of two tokens or more."""
    return picked_keys(seq) >= 2 and in_room(d, s)


def picked_keys(seq: tuple[str, ...]) -> int:
    """How many keys a predicted picture offers: the first PICK_KEYS of the sentence."""
    return min(len(seq), PICK_KEYS)

