"""The README's Quick start is what CI runs, and it names every page."""

import re

from tests.conftest import ROOT
from ui import page_name
from ui.i18n import text


def quick_start() -> list[str]:
    section = (ROOT / "README.md").read_text("utf-8").split("## Quick start", 1)[1]
    return re.findall(r"```(?:bash|sh)?\n(.*?)\n```", section.split("\n## ", 1)[0], re.S)


def test_quick_start_has_exactly_two_commands():
    commands = quick_start()
    assert len(commands) == 2
    assert commands[0].endswith("python serve.py")
    assert "pytest" in commands[1]


def test_ci_runs_both_readme_commands_in_a_virtual_environment_it_makes():
    """.ci/run makes a virtual environment from nothing and runs the Quick start's two commands
    in it, after it is activated: the install-and-start command until the app answers, then
    the test command, so a package the machine happens to have hides no missing requirement."""
    ci = (ROOT / ".ci" / "run").read_text("utf-8")
    made = ci.index('python -m venv "$fresh/venv"')
    activated = ci.index('source "$fresh/venv/bin/activate"')
    start, test = quick_start()
    assert made < activated < ci.index(f"'{start}'") < ci.index(f"\n{test}\n")
    assert "--system-site-packages" not in ci


def test_readme_describes_every_page():
    readme = (ROOT / "README.md").read_text("utf-8")
    for path in (ROOT / "pages").glob("*.py"):
        assert text(f"{page_name(path)}.nav", "en") in readme, path.name


def test_the_readme_is_a_front_door_and_its_documents_are_there():
    """At most 250 lines; the rest is in docs/, every document linked from the README exists,
    and every document in docs/ is linked from it."""
    readme = (ROOT / "README.md").read_text("utf-8")
    assert len(readme.splitlines()) <= 250
    linked = set(re.findall(r"\]\((docs/[\w.-]+\.md)\)", readme))
    assert linked == {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}
    for doc in (ROOT / "docs").glob("*.md"):
        links = re.findall(r"\]\(([\w./-]+\.(?:md|png))(?:#[\w-]+)?\)", doc.read_text("utf-8"))
        for target in links:
            assert (doc.parent / target).resolve().exists(), (doc.name, target)


def test_quick_start_says_how_to_choose_the_port():
    """Besides its two commands, the Quick start shows the start command with another port,
    and serve.py reads that flag as Streamlit's server.port."""
    from serve import _flags

    section = (ROOT / "README.md").read_text("utf-8").split("## Quick start", 1)[1]
    found = re.search(r"`python serve\.py (--server\.port=(\d+))`", section.split("\n## ", 1)[0])
    assert found, "the Quick start names no way to choose the port"
    assert _flags([found.group(1)]) == {"server.port": int(found.group(2))}
    assert len(quick_start()) == 2
