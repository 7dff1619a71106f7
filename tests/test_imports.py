"""Imports flow one way: pages -> ui -> posviz; posviz never needs streamlit."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


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
