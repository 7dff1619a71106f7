"""The README's install on Linux resolves to torch's CPU build: no nvidia-* package, no triton
(pip's own resolver, asked for a report of what it would install on a fresh machine)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the CPU index is for Linux")
def test_the_linux_install_is_torch_for_the_cpu_alone(tmp_path):
    report = tmp_path / "report.json"
    subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
                    "--quiet", "--retries", "0", "--report", str(report),
                    "-r", str(ROOT / "requirements.txt")], check=True, cwd=ROOT)
    chosen = {item["metadata"]["name"].lower(): item["metadata"]["version"]
              for item in json.loads(report.read_text("utf-8"))["install"]}
    assert chosen["torch"] == "2.13.0+cpu"
    assert not [name for name in chosen if name.startswith("nvidia") or name == "triton"]
    assert {"streamlit", "plotly", "numpy", "redis", "segno"} <= chosen.keys()
