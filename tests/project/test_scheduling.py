"""The suite's sharing of the two cores (tests/helpers/scheduling.py), run on a small suite of its
own with two workers: browser tests one after another on one worker, never beside each other; a
module with servers of its own, or real models in its fixtures, on one worker, in order; the
deployment's tests only once every other test has finished; the rest on both workers."""

import itertools
import json
import os
import re
import subprocess
import sys

from tests.conftest import ROOT

CONFTEST = """
from tests.conftest import (_machine_to_itself, pytest_collection_modifyitems,
                            pytest_configure, pytest_testnodedown, pytest_unconfigure,
                            pytest_xdist_make_scheduler)
"""

TEST = """
import json, os, time
import pytest
{mark}

@pytest.mark.parametrize("i", range({n}))
def test_one(i):
    start = time.monotonic()
    time.sleep({seconds})
    with open(os.environ["LOG"], "a") as log:
        log.write(json.dumps([__name__, os.environ.get("PYTEST_XDIST_WORKER"), start,
                              time.monotonic()]) + "\\n")
"""

BROWSER = "pytestmark = pytest.mark.browser"
SERVER = "pytestmark = pytest.mark.server"


def test_servers_run_one_at_a_time_and_the_deployment_alone(tmp_path):
    suite = {"test_browser_a.py": (BROWSER, 4, 0.2), "test_browser_b.py": (BROWSER, 4, 0.2),
             "test_unit.py": ("", 24, 0.1), "test_deploy.py": (BROWSER, 2, 0.2),
             "test_own.py": (SERVER, 4, 0.1), "test_ported.py": ("", 8, 0.1)}
    for name, (mark, n, seconds) in suite.items():
        (tmp_path / name).write_text(TEST.format(mark=mark, n=n, seconds=seconds))
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    browser: a browser\n"
                                         "    server: servers of its own\n")
    log = tmp_path / "log.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "POSVIZ_TEST"))}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v",
         "-p", "no:cacheprovider", str(tmp_path)], cwd=tmp_path, capture_output=True,
        text=True, env=env | {"LOG": str(log), "PYTHONPATH": str(ROOT)}, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    runs = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(runs) == 46
    servers = sorted((start, end, worker) for module, worker, start, end in runs
                     if module.startswith("test_browser"))
    assert len({worker for *_, worker in servers}) == 1, "browser tests on one worker"
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(servers)), "one at a time"
    for name in ("test_own", "test_ported"):  # servers of its own; models in its fixtures
        own = sorted((start, end, worker) for module, worker, start, end in runs
                     if module == name)
        assert len({worker for *_, worker in own}) == 1, f"{name} on one worker"
        assert all(a[1] <= b[0] for a, b in itertools.pairwise(own)), "in order"
    ported = set(re.findall(r"test_ported\.py::test_one\[\d\]\S*", done.stdout))
    assert len(ported) == 8 and all(n.endswith("@own-test_ported") for n in ported), ported
    units = {worker for module, worker, *_ in runs if module == "test_unit"}
    assert units == {"gw0", "gw1"}, "the other tests use both workers"
    alone = min(start for module, _, start, _ in runs if module == "test_deploy")
    assert all(end <= alone for module, _, _, end in runs if module != "test_deploy"), \
        "the deployment's tests start once every other test has finished"
