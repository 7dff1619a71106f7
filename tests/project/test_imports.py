"""Three packages, one direction: the app (app.py, pages/, ui/) on top of the engine (posviz/)
and the rooms (rooms/), which know neither the app nor each other; posviz never needs
streamlit."""

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.conftest import PAGES

ROOT = Path(__file__).resolve().parents[2]


def test_the_import_contracts_hold():
    """import-linter checks the contracts pyproject.toml states ([tool.importlinter])."""
    done = subprocess.run([Path(sys.executable).with_name("lint-imports")], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0 and "0 broken" in done.stdout, done.stdout + done.stderr


def test_importing_posviz_does_not_import_streamlit():
    modules = [p.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")
               for p in sorted((ROOT / "posviz").rglob("*.py")) if p.stem != "__init__"]
    code = ("import sys, importlib, posviz\n"
            f"for m in {modules!r}: importlib.import_module(m)\n"
            "assert 'streamlit' not in sys.modules, 'posviz imported streamlit'\n")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_no_posviz_source_mentions_streamlit():
    for path in (ROOT / "posviz").rglob("*.py"):
        assert "import streamlit" not in path.read_text("utf-8"), path


def test_only_the_pages_of_models_import_torch():
    """torch takes seconds to import: app start-up and every page but the trained models' and
    the real model's stay without it."""
    others = [p for p in PAGES if "models" not in p and "real" not in p]
    code = ("import sys\nfrom streamlit.testing.v1 import AppTest\nimport posviz\n"
            "assert 'torch' not in sys.modules, 'import posviz pulled in torch'\n"
            f"for page in ['app.py', *{others!r}]:\n"
            "    at = AppTest.from_file(page, default_timeout=120).run()\n"
            "    assert not at.exception, page\n"
            "    assert 'torch' not in sys.modules, page + ' imported torch'\n")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_importing_ui_loads_neither_the_page_run_nor_the_room():
    """`import ui` is what a page needs (Doc, Settings, ui.run, ...), and a page drawn as a
    document (ui.documents) needs no more: neither loads the app's page run (ui.page) nor the
    lecture room (ui.room's modules, but for its keys' names)."""
    room = [f"ui.room.{p.stem}" for p in sorted((ROOT / "ui" / "room").glob("*.py"))
            if p.stem not in ("__init__", "keys")]
    code = ("import sys, ui, ui.documents\n"
            f"loaded = [m for m in ['ui.page', *{room!r}] if m in sys.modules]\n"
            "assert not loaded, loaded\n")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def _imported(path: Path) -> set[str]:
    """The modules a script imports, by name (a `from a.b import c` names a.b and a.b.c)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def test_no_script_of_the_app_imports_the_rooms_http_layer():
    """The app reaches the rooms through their rules and records: import-linter's contract holds
    ui to it, and app.py and pages/, scripts it cannot see, are read here for the same modules."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))[
        "tool"]["importlinter"]["contracts"]
    forbidden, = [c["forbidden_modules"] for c in contracts if c.get("source_modules") == ["ui"]]
    assert "rooms.routes" in forbidden
    for script in [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]:
        reached = {name for name in _imported(script)
                   for module in forbidden if name == module or name.startswith(f"{module}.")}
        assert not reached, (script.name, reached)
