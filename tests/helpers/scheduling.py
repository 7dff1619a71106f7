"""How the suite shares the machine's two cores (pytest-xdist, `-n 2`).

Five kinds of test:
- **servers**: every other test marked `browser` (a real server, a browser, Redis): one work
  unit, run in order on one worker, so that they share one app server and one browser (the
  session fixtures of that worker);
- **alone**: tests that need the whole machine (a deployment of several server processes whose
  health checks have deadlines): handed out last, once every other test has been, and started
  only once every other worker has finished (`wait_for_the_others`);
- **a module of its own**: a module marked `server` starts servers of its own and mostly waits
  on them (a follower's held request, a report interval), and so do the browser modules in
  `OWN_MODULES` (the screen sweep, the accessibility audit, a Redis stopped under a server;
  the viewer's check, which needs no server):
  its tests are one unit, run in order on whichever worker is free, beside the servers' worker
  (the servers' unit alone took as long as the rest of the suite); a test parametrized by
  screen (the sweep's) goes in a unit of its module and screen (a projector's takes
  about a minute, a desk's three);
- the tests of a module that builds real models in its module fixtures (`MODEL_MODULES`): one
  unit, so that the models are built once;
- every other test (unit, property and AppTest page tests): one unit each, on whichever worker
  is free, beside the servers' worker.

The groups are marks that pytest-xdist reads in its own collection hook (it turns each into a
suffix of the test's id); `mark_groups` has to run before that hook.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest
from xdist.scheduler import LoadGroupScheduling

SERVERS = "servers"
ALONE = "alone"
ALONE_MODULES = ("test_deploy.py",)
"""Modules whose tests run with the machine to themselves."""
OWN_MODULES = ("test_browser_screens.py", "test_rooms_down.py", "test_browser_a11y.py",
               "test_viewer_screens.py", "test_viewer_charts.py")
"""Browser modules that start their own servers (or need none): a unit of their own, not the
servers'."""
MODEL_MODULES = ("test_ported.py", "test_pretrained.py", "test_page_real.py")
"""Modules whose module fixtures build and load real models (seconds each): a unit of their
own, so that one worker builds them once rather than every worker that runs one of its tests."""

OTHERS_WAIT = 600  # seconds an alone test waits for the other workers at most


def group_of(item: pytest.Item) -> str | None:
    if item.path.name in ALONE_MODULES:
        return ALONE
    if item.path.name in OWN_MODULES:
        screen = getattr(item, "callspec", None) and item.callspec.params.get("screen")
        return f"own-{item.path.stem}" + (f"-{screen.name}" if screen else "")
    if item.get_closest_marker("browser"):
        return SERVERS
    if item.get_closest_marker("server") or item.path.name in MODEL_MODULES:
        return f"own-{item.path.stem}"
    return None


def mark_groups(items: list[pytest.Item]) -> None:
    for item in items:
        if group := group_of(item):
            item.add_marker(pytest.mark.xdist_group(group))
        if group == ALONE:  # its time limit covers the wait for the others
            item.add_marker(pytest.mark.timeout(OTHERS_WAIT + 300))


class Scheduling(LoadGroupScheduling):
    """loadgroup, except that the alone unit waits until it is the only one left, and the
    worker it goes to is the last at work: every other worker is told to finish."""

    def _assign_work_unit(self, node) -> None:
        scope = next((s for s in self.workqueue if s != ALONE), None)
        if scope is None:  # only the alone unit is left: every other worker stops
            super()._assign_work_unit(node)
            for other in self.nodes:
                if other is not node and not other.shutting_down:
                    other.shutdown()
            return
        self.workqueue.move_to_end(scope, last=False)
        super()._assign_work_unit(node)


SHARED = "POSVIZ_TEST_WORKERS"  # the folder that says which workers are done, in their environment


def share_a_folder(config: pytest.Config) -> None:
    """The controller makes a folder where it notes each worker that is done (the workers
    inherit its name), and gives torch one thread in the workers and the servers they start:
    two workers on two cores, each with a thread per core, fight over them (a classifier's
    training took six times as long)."""
    if not hasattr(config, "workerinput"):
        os.environ[SHARED] = tempfile.mkdtemp(prefix="posviz-workers-")
        if (config.getoption("numprocesses", None) or 0) > 1:
            os.environ.setdefault("OMP_NUM_THREADS", "1")


def drop_the_folder(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput") and SHARED in os.environ:
        shutil.rmtree(os.environ.pop(SHARED), ignore_errors=True)


def _finished(worker: str) -> Path:
    return Path(os.environ[SHARED]) / f"finished-{worker}"


def node_down(node) -> None:
    """The controller notes a worker that has finished its session, or crashed."""
    if SHARED in os.environ:
        _finished(node.gateway.id).touch()


def wait_for_the_others(config: pytest.Config, nodeids: list[str]) -> None:
    """Alone tests (these) start once every other worker has finished (or crashed)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker or SHARED not in os.environ or not config.getvalue("loadgroup"):
        return
    if ungrouped := [n for n in nodeids if not n.endswith(f"@{ALONE}")]:
        pytest.fail(f"pytest-xdist did not group {ungrouped[0]}: this pytest and pytest-xdist "
                    "do not work together (see requirements-dev.txt)")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    others = [f"gw{i}" for i in range(count) if f"gw{i}" != worker]
    deadline = time.monotonic() + OTHERS_WAIT
    while any(not _finished(other).exists() for other in others):
        if time.monotonic() > deadline:
            pytest.fail(f"the other workers ({others}) did not finish within {OTHERS_WAIT} s")
        time.sleep(0.5)
