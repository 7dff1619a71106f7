"""Page runs per client (ui.pace), on a real server started with a small budget
(POSVIZ_CLIENT_CPU=0.5: 1 CPU-second at once, half of one a minute): a script on its own
address running the sinusoidal page at its largest settings again and again (a run costs the
server a few tenths of a CPU-second, its first more) is told to wait, in its reader's
language, with no exception, after a few runs; the machine's own browser runs the same view
meanwhile, unbounded."""

from __future__ import annotations

import pytest

from tests.helpers.load_fixtures import run_apart, serving, session
from tests.helpers.room_fixtures import shown_text
from ui.config import CLIENT_CPU
from ui.i18n import text

pytestmark = pytest.mark.server

HEAVY = "sinusoidal_d=1024&sinusoidal_n=4096&sinusoidal_base={base}&lang={lang}"
WAIT = text("common.paced", "zh", seconds=0).split("0")[0]  # the words before the seconds


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pace")
    env = {"POSVIZ_ROOM_STORE": f"sqlite:///{folder / 'rooms.sqlite3'}", CLIENT_CPU: "0.5"}
    with serving(env=env, log=folder / "server.log") as (_, url):
        yield url


async def _runs(base: str, source: str, n: int) -> list[str]:
    """n runs of the heavy view in one tab from source, each with another base (nothing
    cached helps), in Chinese; what each showed, as text."""
    shown = []
    async with session(base, source=source) as tab:
        for run in range(n):
            shown.append(shown_text(await tab.open(
                "sinusoidal", HEAVY.format(base=10_000 + run, lang="zh"))))
    return shown


def test_a_client_running_heavy_pages_is_told_to_wait_and_the_machine_itself_is_not(base):
    script = run_apart(_runs(base, "127.0.9.1", 6))
    told = [WAIT in shown for shown in script]
    assert not told[0] and any(told), "the script was never told to wait"
    first = told.index(True)
    assert all(told[first:]) and first <= 4  # within the budget's CPU-second, then none
    assert "Traceback" not in script[first]
    here = run_apart(_runs(base, "", 3))  # the lecturer at the server's own keyboard
    assert not any(WAIT in shown for shown in here)


async def _elements(base: str, source: str, n: int) -> list[list[str]]:
    """n runs of the heavy view in one tab from source: the kinds of element each drew."""
    drawn = []
    async with session(base, source=source) as tab:
        for run in range(n):
            messages = await tab.open("sinusoidal", HEAVY.format(base=20_000 + run, lang="en"))
            drawn.append([m.delta.new_element.WhichOneof("type") for m in messages
                          if m.WhichOneof("type") == "delta"
                          and m.delta.WhichOneof("type") == "new_element"])
    return drawn


def test_a_refused_run_draws_only_its_message(base):
    """A run past its client's budget stops before anything else: it draws the message that
    says to wait and nothing more (no sidebar, no store asked, no page), so that a client
    refused again and again costs the server next to nothing."""
    runs = run_apart(_elements(base, "127.0.9.2", 6))
    refused = [kinds for kinds in runs if len(kinds) < 5]
    assert refused, f"never refused: {[len(kinds) for kinds in runs]}"
    assert all(kinds == ["alert"] for kinds in refused), refused
