"""Waits until the app at URL answers both health checks (Streamlit's and the rooms'): exit 0;
exit 1 when the process PID (the README's install-and-start command) ends first, or after
15 minutes (the install included)."""

import os
import sys
import time
import urllib.request

pid, url = int(sys.argv[1]), sys.argv[2].rstrip("/")
deadline = time.monotonic() + 900
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        sys.exit(1)  # the command ended: its log says why
    try:
        if all(urllib.request.urlopen(f"{url}/{path}", timeout=5).read() == b"ok"
               for path in ("_stcore/health", "_posviz/health")):
            sys.exit(0)
    except OSError:
        pass
    time.sleep(1)
sys.exit(1)
