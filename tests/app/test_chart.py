"""The chart element: posviz's own plotly.js build, served from static/ and kept in step."""

import json
import re
import tomllib

from tests.conftest import ROOT

BUNDLE = ROOT / "static" / "plotly-posviz.min.js"


def test_the_component_loads_the_bundle_that_static_serves():
    loader = ROOT / "assets" / "viewer" / "src" / "chart" / "loader.js"  # into static/chart.js
    path = re.search(r'const BUNDLE = "app/(static/[^"]+)"', loader.read_text("utf-8")).group(1)
    assert (ROOT / path) == BUNDLE and BUNDLE.stat().st_size > 500_000
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text("utf-8"))
    assert config["server"]["enableStaticServing"] is True


def test_the_bundle_is_built_from_the_pinned_plotly_js():
    recipe = json.loads((ROOT / "assets" / "viewer" / "package.json").read_text("utf-8"))
    version = recipe["devDependencies"]["plotly.js"]
    banner = BUNDLE.read_text("utf-8").split("\n", 1)[0]
    assert f" plotly.js {version} (MIT), scatter + bar + heatmap only" in banner
    assert f'.version="{version}"' in BUNDLE.read_text("utf-8")  # what window.Plotly reports
