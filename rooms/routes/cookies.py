"""The cookies the rooms set: HttpOnly always (no script in a page reads or writes one), Secure
over https, SameSite as each needs."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from rooms.address import trusted


def secure(request: Request) -> bool:
    """Whether the browser reached the app over https (directly, or through a trusted proxy
    that says so)."""
    if request.url.scheme == "https":
        return True
    peer = request.client.host if request.client else None
    return trusted(peer) and request.headers.get("x-forwarded-proto") == "https"


def set_cookie(response: Response, request: Request, name: str, value: str, seconds: float,
               samesite: str = "lax") -> None:
    """Set one of the rooms' cookies, for `seconds` (a minute at least)."""
    response.set_cookie(name, value, max_age=max(60, int(seconds)), path="/",
                        secure=secure(request), httponly=True, samesite=samesite)


def delete_cookie(response: Response, request: Request, name: str,
                  samesite: str = "lax") -> None:
    response.delete_cookie(name, path="/", secure=secure(request), httponly=True,
                           samesite=samesite)
