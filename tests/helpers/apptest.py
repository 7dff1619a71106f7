"""Streamlit's AppTest as the page tests run it, without the work it repeats for nothing (each
fix measured on tests/app/, Streamlit 1.67)."""

from __future__ import annotations

import functools


def scan_components_once() -> None:
    """Every new AppTest scans the metadata of every installed package for Streamlit components
    (a server scans once, as it starts): a tenth of a CPU-second or more each, and the suite
    makes hundreds. No package is installed while the tests run, so the first scan's answer
    serves the rest of the process."""
    from streamlit.components.v2 import manifest_scanner

    manifest_scanner.scan_component_manifests = functools.cache(
        manifest_scanner.scan_component_manifests)


def compile_each_script_once() -> None:
    """Every AppTest run compiles the app's scripts anew, a cache of its own for each run (a
    server keeps one): one cache for the process, as a server's, since no script changes
    while the tests run."""
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.testing.v1 import app_test, local_script_runner

    shared = ScriptCache()
    app_test.ScriptCache = local_script_runner.ScriptCache = lambda: shared
