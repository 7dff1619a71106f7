"""Services passed in, not fetched: the app reads the rooms it was given through one accessor
(ui.services.rooms), never the rooms package's process global."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ACCESSOR = ROOT / "ui" / "services.py"


def _names(path: Path) -> set[str]:
    """Every name a script reads or imports (a.b reads b too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.alias):
            found |= {node.name.rpartition(".")[2], node.asname or ""}
    return found


def test_only_the_accessor_reads_the_shared_rooms():
    scripts = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")),
               *sorted((ROOT / "ui").rglob("*.py"))]
    assert ACCESSOR in scripts and "shared_rooms" in _names(ACCESSOR)
    reading = [p.relative_to(ROOT).as_posix() for p in scripts
               if p != ACCESSOR and "shared_rooms" in _names(p)]
    assert not reading, f"read the app's rooms with ui.services.rooms(): {reading}"
