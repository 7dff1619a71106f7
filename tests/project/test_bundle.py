"""static/chart.js is built from its modules (assets/viewer/chart/) by `npm run build` in
assets/viewer/: its first line names the digest of the sources it was built from, which must be
that of the sources in the tree (an edit to a module that was not built fails here)."""

import hashlib
import re

from tests.conftest import ROOT

SOURCES = ROOT / "assets" / "viewer" / "chart"
BUNDLE = ROOT / "static" / "chart.js"


def sources_digest() -> str:
    """As assets/viewer/build.mjs computes it: each module's name and text, in name order."""
    digest = hashlib.sha256()
    for module in sorted(SOURCES.glob("*.js"), key=lambda p: p.name):
        digest.update(f"{module.name}\n{module.read_text('utf-8')}".encode())
    return digest.hexdigest()


def test_the_chart_bundle_is_built_from_the_modules_in_the_tree():
    first = BUNDLE.read_text("utf-8").split("\n", 1)[0]
    built = re.search(r"sources sha256 ([0-9a-f]{64})", first)
    assert built, f"static/chart.js does not say what it was built from: {first[:120]}"
    assert built.group(1) == sources_digest(), (
        "static/chart.js is not built from assets/viewer/chart/: run `npm install && npm run "
        "build` in assets/viewer/")


def test_every_module_is_in_the_bundle():
    bundle = BUNDLE.read_text("utf-8")
    for module in SOURCES.glob("*.js"):
        assert f"// chart/{module.name}\n" in bundle, module.name
