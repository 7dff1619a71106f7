"""The follower's scripts and styles (GET /_posviz/asset/{name}?v=HASH, gzipped once) and the
rooms' health (GET /_posviz/health: "ok", or 503 when the store cannot be read and written, so
that a proxy sends room traffic elsewhere; the lesson goes on)."""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from rooms.routes.arrival import DOWN_RETRY, NO_STORE
from rooms.routes.service import RoomService

ASSETS = {"viewer.js": "text/javascript", "chart.js": "text/javascript",
          "viewer.css": "text/css", "katex.min.js": "text/javascript",
          "katex.min.css": "text/css", "markdown-it.min.js": "text/javascript",
          "plotly-posviz.min.js": "text/javascript"}


async def asset(service: RoomService, request: Request) -> Response:
    """One of ASSETS: kept for a year when asked for by its version, else checked each time."""
    name = request.path_params["name"]
    if name not in ASSETS:
        return PlainTextResponse("not found", 404)
    kept = ("public, max-age=31536000, immutable" if request.query_params.get("v")
            else "no-cache")
    return Response(await asyncio.to_thread(service.asset, name), media_type=ASSETS[name],
                    headers={"Content-Encoding": "gzip", "Cache-Control": kept,
                             "Vary": "Accept-Encoding"})


async def health(service: RoomService, request: Request) -> Response:
    """"ok", or 503 while the store fails (what failed is in the server's log, shown to no
    one)."""
    if await service.health.failure():
        return PlainTextResponse("rooms unavailable", 503,
                                 headers=NO_STORE | {"Retry-After": str(DOWN_RETRY)})
    return PlainTextResponse("ok", headers=NO_STORE)
