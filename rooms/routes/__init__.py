"""The rooms' HTTP routes beside the app (served by serve.py through st.App), each handed the
room service it serves (rooms.routes.service.RoomService, built once by serve.py):

GET  /_posviz/follow/{code}?t=TICKET  the follower's screen               rooms.routes.follow
GET  /_posviz/room/{code}?v=N&lang=L  a follower's wait on its room       rooms.routes.follow
POST /_posviz/room/{code}/vote        an answer                           rooms.routes.voting
POST /_posviz/room/{code}/word        the projector's word, typed         rooms.routes.voting
POST /_posviz/room/{code}/view        the lecturer's view, published      rooms.routes.lecturer
POST /_posviz/room/{code}/lead        the key into its HttpOnly cookie    rooms.routes.lecturer
POST /_posviz/room/{code}/forget      the key's cookie deleted            rooms.routes.lecturer
GET  /_posviz/asset/{name}?v=HASH     the screen's scripts and styles     rooms.routes.assets
GET  /_posviz/health                  whether the store answers           rooms.routes.assets

Any other method on these paths is answered 405 with Allow (never the app's page).
What every route checks on arrival (the code, wrong codes, membership, bodies) is
rooms.routes.arrival's; the long-poll hub is rooms.routes.hub; the cookies, rooms.routes.cookies.
`KeyLinks` (rooms.routes.lecturer), a middleware, answers the app's pages opened from a lecturer
link.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from rooms.routes import assets, follow, lecturer, voting
from rooms.routes.arrival import NO_STORE, posted
from rooms.routes.service import RoomService

METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]  # each route takes all
Handler = Callable[[RoomService, Request], Awaitable[Response]]


def _serving(service: RoomService, handler: Handler, method: str
             ) -> Callable[[Request], Awaitable[Response]]:
    """handler as an endpoint of these routes, serving from service; any other method is
    answered 405 (a GET route takes HEAD too). The route takes every method, so that no other
    one falls through to the app's page."""
    allowed = ("GET", "HEAD") if method == "GET" else (method,)

    async def endpoint(request: Request) -> Response:
        if request.method not in allowed:
            return Response(status_code=405, headers={"Allow": ", ".join(allowed)} | NO_STORE)
        return await handler(service, request)
    endpoint.__name__ = endpoint.__qualname__ = handler.__name__
    return endpoint


def routes(service: RoomService) -> list[Route]:
    """The rooms' routes, serving from service."""
    table: list[tuple[str, Handler, str]] = [
        ("/_posviz/health", assets.health, "GET"),
        ("/_posviz/follow/{code}", follow.viewer, "GET"),
        ("/_posviz/asset/{name}", assets.asset, "GET"),
        ("/_posviz/room/{code}", follow.follow, "GET"),
        ("/_posviz/room/{code}/view", posted(lecturer.publish), "POST"),
        ("/_posviz/room/{code}/vote", posted(voting.vote), "POST"),
        ("/_posviz/room/{code}/word", posted(voting.word), "POST"),
        ("/_posviz/room/{code}/lead", posted(lecturer.lead, key_in_body=True), "POST"),
        ("/_posviz/room/{code}/forget", posted(lecturer.forget), "POST")]
    return [Route(path, _serving(service, handler, method), methods=METHODS)
            for path, handler, method in table]
