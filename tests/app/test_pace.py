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
