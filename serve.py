"""The posviz server: the app (app.py and pages/) and the HTTP routes of its rooms.

Start it with `python serve.py` (the README's command; Streamlit's flags as `streamlit run`
takes them, e.g. `--server.port=8501 --server.address=0.0.0.0`): uvicorn serves the app that
`app()` makes (an st.App, which Streamlit supports under an ASGI server of one's own), with the
rooms' routes (rooms.routes) and the follower's screen, which draws the app's pages as documents
(ui.documents), behind the rooms' bounds on connections (rooms.server). Everything else is
Streamlit's: its configuration (`.streamlit/config.toml`, STREAMLIT_* variables, or the flags),
its websocket settings, its TLS options.
"""

import functools
import sys
from collections.abc import Sequence

import streamlit as st
import uvicorn
from starlette.middleware import Middleware
from streamlit import config, runtime
from streamlit.runtime.runtime_util import get_max_message_size_bytes

from rooms import config as rooms_config
from rooms import shared_rooms, signing
from rooms.address import network_address
from rooms.routes import routes
from rooms.routes.lecturer import KeyLinks
from rooms.routes.service import RoomService
from rooms.screens import Screens
from rooms.server import Gate, GuardedProtocol, backlog, connection_bound, raise_open_files

PING_SECONDS = 30.0  # a websocket's ping interval and timeout, as Streamlit's own server


def screens() -> Screens:
    """The app's pages drawn as documents for a room's followers (ui.documents), imported once
    the server runs: the app's modules set up Streamlit's caches at import."""
    from ui.documents import SCREENS

    return SCREENS


def app(service: RoomService) -> st.App:
    """The app with the rooms' routes serving from service, its pages given the same rooms
    (ui.services), and lecturer links answered without their token (made once, in the server
    process)."""
    from ui.services import give_rooms

    give_rooms(service.rooms)
    return st.App("app.py", routes=routes(service),
                  middleware=[Middleware(KeyLinks, service=service)])


def _flags(argv: Sequence[str]) -> dict[str, object]:
    """Streamlit's configuration from `--section.option=value` (or `--section.option value`)
    flags, as `streamlit run` takes them: true and false as booleans, whole numbers as ints."""
    found, args = {}, list(argv)
    while args:
        flag = args.pop(0)
        name, equals, value = flag.removeprefix("--").partition("=")
        if not flag.startswith("--") or "." not in name:
            raise SystemExit(f"serve.py: expected --section.option=value, got {flag!r}")
        if not equals:
            if not args:
                raise SystemExit(f"serve.py: {flag} needs a value")
            value = args.pop(0)
        found[name] = ({"true": True, "false": False}.get(value.lower(), value)
                       if not value.isdigit() else int(value))
    return found


def _urls(address: str, port: int, secure: bool) -> list[str]:
    scheme = "https" if secure else "http"
    here = ["localhost"] if address in ("0.0.0.0", "::", "") else [address]
    if address in ("0.0.0.0", "::", "") and (network := network_address()):
        here.append(network)
    return [f"{scheme}://{host}:{port}/" for host in here]


def run(argv: Sequence[str]) -> None:
    """Serve the app, as configured by argv's Streamlit flags, until stopped (Ctrl+C,
    SIGTERM). Its rooms' service and the app's pages serve from one Rooms (shared_rooms)."""
    if runtime.exists():
        raise SystemExit("posviz starts with `python serve.py`, not `streamlit run serve.py`")
    config.get_config_options(force_reparse=True, options_from_flags=_flags(argv))
    open_files = raise_open_files()
    most = connection_bound(open_files)
    capped = rooms_config.setting(rooms_config.MAX_CONNECTIONS)  # an operator's lower cap
    GuardedProtocol.gate = Gate(most=min(most, int(capped or most)))
    address = config.get_option("server.address") or "0.0.0.0"
    port = int(config.get_option("server.port"))
    cert, key = config.get_option("server.sslCertFile"), config.get_option("server.sslKeyFile")
    ping = float(config.get_option("server.websocketPingInterval") or PING_SECONDS)

    class Server(uvicorn.Server):
        async def shutdown(self, sockets=None) -> None:
            service.stopping()  # a held wait would hold the stop up to its whole length
            await super().shutdown(sockets)

    service = RoomService(shared_rooms(), screens)
    server = Server(uvicorn.Config(
        functools.partial(app, service), factory=True, host=address, port=port,
        http=GuardedProtocol, backlog=backlog(open_files),
        proxy_headers=False, ws="websockets-sansio", ws_ping_interval=ping,
        ws_ping_timeout=ping, ws_max_size=get_max_message_size_bytes(),
        ws_per_message_deflate=bool(config.get_option("server.enableWebsocketCompression")),
        ssl_certfile=cert, ssl_keyfile=key, use_colors=False, access_log=False,
        timeout_graceful_shutdown=5))
    urls = _urls(address, port, bool(cert))
    for url in urls:
        print(f"posviz: open {url}", flush=True)
    token = signing.lecturer_token(service.rooms.secret)  # the same for every process
    print(f"posviz: the lecturer's link (it makes a browser the lecturer: keep it off the "
          f"projector): {urls[-1]}?lecturer={token}", flush=True)
    gate = GuardedProtocol.gate
    print(f"posviz: at most {gate.most} connections at once ({gate.per_address} from one "
          f"address, the last {gate.reserve} for addresses holding few; open-file limit "
          f"{open_files})", flush=True)
    server.run()
    sys.exit(0 if server.started else 1)


if __name__ == "__main__":
    run(sys.argv[1:])
