"""Lecture rooms without a browser: the room's HTTP routes, and students whose sessions follow a
room exactly as ui/room.js makes a browser tab follow it (wait on the room's route; on a change,
rerun the lecturer's view as a history navigation). Shared by the room tests, the load tests and
the benchmark."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urlsplit

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from posviz.rooms import PERSONAL
from tests.load_fixtures import Session, element, session


class Loop:
    """One event loop on a thread of its own, for as long as a room test needs it: connections
    opened by one call stay usable by the next (Playwright's sync API holds the main thread's
    loop, so the room's clients cannot run there)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, work):
        """Run a coroutine on the loop and return its result."""
        return asyncio.run_coroutine_threadsafe(work, self.loop).result()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


class Http:
    """A keep-alive HTTP/1.1 connection, as a browser holds one to the server."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname, parts.port
        self.reader = self.writer = None
        self.cookies: dict[str, str] = {}

    async def request(self, method: str, path: str, body: object = None
                      ) -> tuple[int, dict | None]:
        """Send one request; return the status and the JSON answer (None for another body)."""
        for attempt in (1, 2):  # a connection the server closed meanwhile is opened again
            try:
                if self.writer is None:
                    self.reader, self.writer = await asyncio.open_connection(self.host,
                                                                             self.port)
                return await self._exchange(method, path, body)
            except (ConnectionError, asyncio.IncompleteReadError):
                await self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def _exchange(self, method: str, path: str, body: object) -> tuple[int, dict | None]:
        payload = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}",
                f"Content-Length: {len(payload)}"]
        if body is not None:
            head.append("Content-Type: application/json")
        if self.cookies:
            head.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        await self.writer.drain()
        status_line, *headers = (await self.reader.readuntil(b"\r\n\r\n")).decode(
            "latin-1").split("\r\n")
        fields = {k.lower(): v.strip() for k, _, v in (h.partition(":") for h in headers if h)}
        content = await self.reader.readexactly(int(fields.get("content-length", 0)))
        for cookie in (v for k, v in fields.items() if k == "set-cookie"):
            name, _, value = cookie.split(";")[0].partition("=")
            self.cookies[name] = value
        kind = fields.get("content-type", "")
        return int(status_line.split()[1]), json.loads(content) if "json" in kind else None

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()
        self.reader = self.writer = None


def room_element(messages: list[ForwardMsg]) -> dict | None:
    """The data of the room element (ui/room.py) a run drew, or None."""
    for message in messages:
        if element(message) == "bidi_component":
            component = message.delta.new_element.bidi_component
            if component.component_name == "posviz_room":
                return json.loads(component.json)
    return None


def buttons(messages: list[ForwardMsg]) -> dict[str, str]:
    """Every button a run drew: its key (the end of its widget id) -> its widget id."""
    found = {}
    for message in messages:
        if element(message) == "button":
            widget = message.delta.new_element.button.id  # "$$ID-<hash>-<key>"
            found[widget.split("-", 2)[-1]] = widget
    return found


def shown_text(messages: list[ForwardMsg]) -> str:
    """Everything the run sent, as text (for looking for a marker)."""
    return "\n".join(str(m.delta) for m in messages if m.WhichOneof("type") == "delta")


@dataclass
class Student:
    """A student's tab in a room, without a browser: its websocket session runs the pages, and it
    follows the room as ui/room.js does."""

    url: str
    code: str
    lang: str = "en"
    page: str = ""
    query: str = ""
    version: int = -1
    me: str = ""
    runs: int = 0
    last: list[ForwardMsg] = field(default_factory=list)
    http: Http | None = None
    _session: Session | None = None
    _exit: contextlib.AsyncExitStack | None = None

    async def join(self) -> None:
        """Open the student link (home with ?room=), as a QR code does."""
        await self._connect()
        await self._show("", urlencode({"room": self.code, "lang": self.lang}), history=False)

    async def _connect(self) -> None:
        """A new websocket session, sending the voter cookie the room element set (if any)."""
        await self.close()
        self._exit = contextlib.AsyncExitStack()
        cookies = {"posviz_me": self.me} if self.me else None
        self._session = await self._exit.enter_async_context(session(self.url, cookies))
        self.http = Http(self.url)

    async def reconnect(self) -> None:
        """What the tab does when its server comes back: a new session runs the page its
        address shows; the tab waits on the room again."""
        await self._connect()
        await self._show(self.page, self.query, history=False)

    async def _show(self, page: str, query: str, history: bool = True,
                    clicked: tuple[str, ...] = ()) -> None:
        self.last = await self._session.open(page, query, history=history, clicked=clicked)
        self.runs += 1
        data = room_element(self.last)
        if data is None:
            raise AssertionError(f"student of {self.code} is not in the room on {page!r}")
        self.me, self.page, self.query = data["me"], page, query

    def personal(self) -> list[tuple[str, str]]:
        return [(k, v) for k, v in parse_qsl(self.query) if k in PERSONAL and k != "key"]

    async def wait(self) -> dict:
        """One wait on the room's route (held by the server until the room changes)."""
        status, answer = await self.http.request(
            "GET", f"/_posviz/room/{self.code}?v={self.version}&me={self.me}")
        if status != 200:
            raise AssertionError(f"room route answered {status}: {answer}")
        return answer

    async def follow(self, answer: dict) -> bool:
        """Do what the tab does with an answer: go to the lecturer's view if the room moved
        (or, on the first answer, if the tab shows another view). Returns whether it moved."""
        first, self.version = self.version == -1, answer["version"]
        own = [(k, v) for k, v in parse_qsl(self.query) if k not in PERSONAL]
        showing = self.page == answer["page"] and urlencode(own) == answer["query"]
        if first and showing:
            return False
        query = urlencode([*parse_qsl(answer["query"]), *self.personal()])
        await self._show(answer["page"], query)
        return True

    async def vote(self, poll_id: str, option: int) -> None:
        """Press the button of option (0 for A) of a poll on the page the student shows."""
        widget = buttons(self.last)[f"vote_{poll_id}_{option}"]
        await self._show(self.page, self.query, history=False, clicked=(widget,))

    async def close(self) -> None:
        if self.http is not None:
            await self.http.close()
        if self._exit is not None:
            with contextlib.suppress(Exception):  # a server that went away closed it first
                await self._exit.aclose()
        self.http = self._exit = self._session = None


@dataclass
class Lecturer:
    """A lecturer's tab without a browser: its session runs the pages (with the key from the
    lecturer link at first, then from the cookie the room element sets), and it publishes each
    view it shows, as ui/room.js does once a run has finished."""

    url: str
    code: str
    key: str
    page: str = ""
    query: str = ""
    last: list[ForwardMsg] = field(default_factory=list)
    http: Http | None = None
    _session: Session | None = None
    _exit: contextlib.AsyncExitStack | None = None
    _linked: bool = False

    async def connect(self) -> None:
        await self.close()
        self._exit = contextlib.AsyncExitStack()
        cookies = {f"posviz_key_{self.code}": self.key} if self._linked else None
        self._session = await self._exit.enter_async_context(session(self.url, cookies))
        self.http = Http(self.url)

    async def show(self, page: str, **query: str) -> None:
        """Open a page with these parameters, then publish it to the room."""
        linked = {} if self._linked else {"key": self.key}
        self.page, self.query = page, urlencode(query)
        self.last = await self._session.open(page, urlencode(
            {**query, "room": self.code, **linked}))
        self._linked = True
        data = room_element(self.last)
        if data is None or data.get("key") != self.key:
            raise AssertionError(f"the lecturer does not lead {self.code} on {page!r}")
        status, _ = await self.http.request("POST", f"/_posviz/room/{self.code}/view",
                                            {"key": self.key, "page": page,
                                             "query": self.query})
        if status != 200:
            raise AssertionError(f"publishing the view answered {status}")

    async def click(self, button: str) -> None:
        """Press a button (by its key) on the page the lecturer shows."""
        widget = buttons(self.last)[button]
        self.last = await self._session.open(
            self.page, urlencode([*parse_qsl(self.query), ("room", self.code)]),
            clicked=(widget,))

    async def close(self) -> None:
        if self.http is not None:
            await self.http.close()
        if self._exit is not None:
            with contextlib.suppress(Exception):
                await self._exit.aclose()
        self.http = self._exit = self._session = None
