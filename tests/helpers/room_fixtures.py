"""Lecture rooms without a browser: the room's HTTP routes; students' phones on the room's screen
(Follower: its page, then waits on the room's route, exactly as static/viewer.js does); students
exploring the app on their own (Student: Streamlit's websocket, as their tab speaks it); and the
lecturer's tab. Shared by the room tests, the load tests and the benchmark."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from rooms import signing
from tests.helpers.load_fixtures import ROOT, Session, element, session, wait_healthy
from ui.state import PERSONAL


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


async def gather_in(batch: int, jobs) -> list:
    """Run coroutines at most batch at a time (students arrive in waves, not all at once)."""
    jobs, out = list(jobs), []
    for first in range(0, len(jobs), batch):
        out += await asyncio.gather(*jobs[first:first + batch])
    return out


class Http:
    """A keep-alive HTTP/1.1 connection, as a browser holds one to the server; from a source
    address of this machine's loopback network (127.0.0.x) when given, as another phone."""

    def __init__(self, url: str, cookies: dict[str, str] | None = None,
                 headers: dict[str, str] | None = None, source: str = "") -> None:
        parts = urlsplit(url)
        self.host, self.port, self.source = parts.hostname, parts.port, source
        self.reader = self.writer = None
        self.cookies = {} if cookies is None else cookies  # shared with the tab's websocket
        self.sent = headers or {}  # sent with every request (e.g. a proxy's X-Forwarded-For)
        self.headers: dict[str, str] = {}  # the last answer's, names in lower case
        self.set_cookies: list[str] = []  # the last answer's Set-Cookie headers
        self.received = 0  # bytes of bodies received, as sent (gzipped or not)

    async def request(self, method: str, path: str, body: object = None
                      ) -> tuple[int, dict | None]:
        """Send one request; return the status and the JSON answer (None for another body)."""
        for attempt in (1, 2):  # a connection the server closed meanwhile is opened again
            try:
                if self.writer is None:
                    self.reader, self.writer = await asyncio.open_connection(
                        self.host, self.port, local_addr=(self.source, 0) if self.source else None)
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
        head += [f"{name}: {value}" for name, value in self.sent.items()]
        if self.cookies:
            head.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        await self.writer.drain()
        status_line, *headers = (await self.reader.readuntil(b"\r\n\r\n")).decode(
            "latin-1").split("\r\n")
        fields = {k.lower(): v.strip() for k, _, v in (h.partition(":") for h in headers if h)}
        self.headers = fields
        length = 0 if method == "HEAD" else int(fields.get("content-length", 0))  # no body
        content = await self.reader.readexactly(length)
        self.received += len(content)
        if fields.get("content-encoding") == "gzip":
            content = gzip.decompress(content)
        self.set_cookies = [v.strip() for k, v in (h.partition(":")[::2] for h in headers)
                            if k.lower() == "set-cookie"]
        keep(self.cookies, self.set_cookies)
        kind = fields.get("content-type", "")
        return int(status_line.split()[1]), json.loads(content) if "json" in kind else None

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()
        self.reader = self.writer = None


def ticket(code: str, secret: bytes | None = None) -> str:
    """The room's ticket of now, as its QR code carries it (signed with the test run's secret,
    which the servers it starts share, unless another is given)."""
    return signing.ticket(secret or os.environ["POSVIZ_SECRET"].encode(), code, time.time())


def keep(cookies: dict[str, str], set_cookie: list[str]) -> None:
    """Keep the cookies of Set-Cookie header values, as a browser does (one set to expire now
    is deleted)."""
    for header in set_cookie:
        name, _, value = header.split(";")[0].strip().partition("=")
        if "max-age=0" in header.lower().replace(" ", ""):
            cookies.pop(name, None)
        else:
            cookies[name] = value


def room_element(messages: list[ForwardMsg]) -> dict | None:
    """The data of the room element (ui/room/element.py) a run drew, or None."""
    for message in messages:
        if element(message) == "bidi_component":
            component = message.delta.new_element.bidi_component
            if component.component_name == "posviz_room":
                return json.loads(component.json)
    return None


def widgets(messages: list[ForwardMsg], kind: str = "button") -> dict[str, str]:
    """Every widget of a kind (button, checkbox for a switch) a run drew: its key (the end of
    its widget id) -> its widget id."""
    found = {}
    for message in messages:
        if element(message) == kind:
            widget = getattr(message.delta.new_element, kind).id  # "$$ID-<hash>-<key>"
            found[widget.split("-", 2)[-1]] = widget
    return found


def shown_text(messages: list[ForwardMsg]) -> str:
    """Everything the run sent, as text (for looking for a marker)."""
    return "\n".join(str(m.delta) for m in messages if m.WhichOneof("type") == "delta")


@dataclass(eq=False)  # a tab is itself: two tabs on the same page are still two
class Student:
    """A student's tab exploring the app on their own in a room, without a browser: its
    websocket session runs the pages (a following tab goes to the room's screen: Follower)."""

    url: str
    code: str
    lang: str = "en"
    page: str = ""
    query: str = ""
    runs: int = 0
    last: list[ForwardMsg] = field(default_factory=list)
    cookies: dict[str, str] = field(default_factory=dict)  # the browser's, for this server
    pages: dict[str, str] = field(default_factory=dict)    # the app's pages, as the tab knows
    seen: list[ForwardMsg] = field(default_factory=list)    # every message, when recording
    record: bool = False
    http: Http | None = None
    _session: Session | None = None
    _exit: contextlib.AsyncExitStack | None = None

    async def join(self, ticket: str = "") -> None:
        """Scan the QR code (the room's screen, which issues the browser its voter id and a
        proxy its affinity cookie), then explore on one's own: the app's page with ?room=, over
        its websocket."""
        self.http = Http(self.url, self.cookies)
        await self.http.request("GET", f"/_posviz/follow/{self.code}?{urlencode({'t': ticket})}")
        query = urlencode({"room": self.code, "lang": self.lang, "follow": "false"})
        await self._connect()
        await self._show("", query, history=False)

    async def _connect(self) -> None:
        """A new websocket session, sending the tab's cookies (the proxy's, and the voter id
        the room's screen set)."""
        await self._end_session()
        self._exit = contextlib.AsyncExitStack()
        self._session = await self._exit.enter_async_context(
            session(self.url, self.cookies, self.pages))
        keep(self.cookies, self._session.socket.response.headers.get_all("Set-Cookie"))
        if self.http is None:
            self.http = Http(self.url, self.cookies)

    async def _end_session(self) -> None:
        if self._exit is not None:
            with contextlib.suppress(Exception):  # a server that went away closed it first
                await self._exit.aclose()
        self._exit = self._session = None

    async def reconnect(self) -> None:
        """What the tab does when its server goes away: a new session (on a server that
        answers) runs the page its address shows; the tab waits on the room again."""
        if self.http is not None:
            await self.http.close()
        await self._connect()
        await self._show(self.page, self.query, history=False)

    async def _show(self, page: str, query: str, history: bool = True,
                    clicked: tuple[str, ...] = ()) -> None:
        self.last = await self._session.open(page, query, history=history, clicked=clicked)
        self.runs += 1
        if self.record:
            self.seen += self.last
        if room_element(self.last) is None:
            raise AssertionError(f"student of {self.code} is not in the room on {page!r}")
        self.page, self.query = page, query

    def personal(self) -> list[tuple[str, str]]:
        return [(k, v) for k, v in parse_qsl(self.query) if k in PERSONAL]

    async def vote(self, poll_id: str, option: int) -> None:
        """Press the button of option (0 for A) of a poll on the page the student shows."""
        widget = widgets(self.last)[f"vote_{poll_id}_{option}"]
        await self._show(self.page, self.query, history=False, clicked=(widget,))

    async def say_sure(self, poll_id: str, sure: bool) -> None:
        """After an answer, press Sure or Guessing under it."""
        widget = widgets(self.last)[f"sure_{poll_id}_{'sure' if sure else 'guessing'}"]
        await self._show(self.page, self.query, history=False, clicked=(widget,))

    async def wander(self, page: str, **query: str) -> None:
        """Go to a view of one's own, as typing its address would (the address decides the
        sentence and every control), keeping one's personal parameters."""
        await self._show(page, urlencode([*self.personal(), *query.items()]))

    async def close(self) -> None:
        if self.http is not None:
            await self.http.close()
        await self._end_session()
        self.http = None


@dataclass(eq=False)
class Follower:
    """A student's phone on the room's screen, without a browser: it opens the screen's page
    (which issues its voter id and membership proof as cookies) and waits on the room's route,
    asking for gzip, exactly as static/viewer.js does; each answer holds the lecturer's view
    drawn as a document in the follower's language. It speaks from its own loopback address
    (source, 127.0.0.x) or through a trusted proxy that names its address (address)."""

    url: str
    code: str
    lang: str = "en"
    address: str = ""  # its network address, as a trusted proxy names it ("" for none)
    source: str = ""   # its own address on this machine's loopback network ("" for 127.0.0.1)
    version: int = -1
    answer: dict | None = None
    cookies: dict[str, str] = field(default_factory=dict)
    http: Http | None = None

    async def join(self, ticket: str = "", voter: bool = True) -> None:
        """Open the room's screen: by the QR code's link with its ticket, or by the code alone
        (no ticket); with voter, the screen must have issued a voter id."""
        self.http = Http(self.url, self.cookies, {"Accept-Encoding": "gzip, deflate, br"} | (
            {"X-Forwarded-For": self.address} if self.address else {}), self.source)
        query = urlencode({"lang": self.lang} | ({"t": ticket} if ticket else {}))
        status, _ = await self.http.request("GET", f"/_posviz/follow/{self.code}?{query}")
        if status != 200 or (voter and "posviz_me" not in self.cookies):
            raise AssertionError(f"the room's screen answered {status}")

    @property
    def me(self) -> str:
        return self.cookies["posviz_me"]

    async def wait(self) -> dict:
        """One wait on the room's route: the room's next version, with its document."""
        proof = self.cookies.get("posviz_joined", "")
        status, answer = await self.http.request(
            "GET", f"/_posviz/room/{self.code}?v={self.version}&lang={self.lang}&j={proof}")
        if status != 200:
            raise AssertionError(f"room route answered {status}: {answer}")
        self.version, self.answer = answer["version"], answer
        return answer

    async def vote(self, poll_id: str, option: int, sure: bool | None = None) -> int:
        """Tap option (0 for A) of a question on the room's screen, and say how sure (None:
        not said)."""
        status, _ = await self.http.request("POST", f"/_posviz/room/{self.code}/vote",
                                            {"poll": poll_id, "option": option, "sure": sure})
        return status

    async def word(self, word: str) -> int:
        """Type the projector's word, as the screen asks for it."""
        status, _ = await self.http.request("POST", f"/_posviz/room/{self.code}/word",
                                            {"word": word})
        return status

    async def close(self) -> None:
        if self.http is not None:
            await self.http.close()
        self.http = None


@dataclass(eq=False)
class Lecturer:
    """A lecturer's tab without a browser: its session runs the pages (made the lecturer's by a
    one-time lecturer link's token at first, then by the HttpOnly cookie the server sets when
    the room element hands it the key), and it publishes each view it shows, as
    static/room.js does once a run has finished."""

    url: str
    code: str
    lead: str  # the lecturer link's token (Rooms.lead_link)
    page: str = ""
    query: str = ""
    last: list[ForwardMsg] = field(default_factory=list)
    http: Http | None = None
    _session: Session | None = None
    _exit: contextlib.AsyncExitStack | None = None
    _linked: bool = False
    cookies: dict[str, str] = field(default_factory=dict)  # the browser's, for this server
    published_at: float = 0.0  # when the last view was sent to the room (time.monotonic())

    async def connect(self) -> None:
        await self.close()
        self._exit = contextlib.AsyncExitStack()
        self._session = await self._exit.enter_async_context(session(self.url, self.cookies))
        self.http = Http(self.url, self.cookies)

    async def show(self, page: str, **query: str) -> None:
        """Open a page with these parameters, then publish it to the room."""
        linked = {} if self._linked else {"lead": self.lead}
        self.page, self.query = page, urlencode(query)
        self.last = await self._session.open(page, urlencode(
            {**query, "room": self.code, **linked}))
        self._linked = True
        data = room_element(self.last)
        if data is None or not data.get("lead"):
            raise AssertionError(f"the lecturer does not lead {self.code} on {page!r}")
        if data.get("grant"):  # the server keeps the key in an HttpOnly cookie
            status, _ = await self.http.request("POST", f"/_posviz/room/{self.code}/lead",
                                                {"key": data["grant"]})
            if status != 204:
                raise AssertionError(f"handing the key over answered {status}")
        self.published_at = time.monotonic()
        status, _ = await self.http.request("POST", f"/_posviz/room/{self.code}/view",
                                            {"page": page, "query": self.query})
        if status != 200:
            raise AssertionError(f"publishing the view answered {status}")

    async def click(self, button: str) -> None:
        """Press a button (by its key) on the page the lecturer shows."""
        widget = widgets(self.last)[button]
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


@dataclass
class Deployment:
    """posviz for a class as `python -m deploy.up` starts it: supervisord, Redis, replicas and
    HAProxy, on ports of their own on 127.0.0.1."""

    proc: subprocess.Popen
    url: str
    ports: list[int]
    run: Path

    def supervisor(self, *command: str) -> str:
        """A supervisorctl command for this deployment's supervisord; its output."""
        return subprocess.run(["supervisorctl", "-c", str(self.run / "supervisord.conf"),
                               *command], capture_output=True, text=True).stdout.strip()

    def pid(self, port: int) -> int:
        """The process id of the replica on port."""
        return int(self.supervisor("pid", f"posviz:posviz-{port}"))

    def store_url(self) -> str:
        """The rooms' Redis, as the replicas reach it (its password included)."""
        conf = (self.run / "supervisord.conf").read_text("utf-8")
        return conf.split('POSVIZ_ROOM_STORE="', 1)[1].split('"', 1)[0]

    def wait_up(self, timeout: float = 90) -> None:
        """Until HAProxy sees every replica up, for its pages and for its rooms (checked on
        `/_stcore/health` and on the rooms' `/_posviz/health`)."""
        deadline = time.monotonic() + timeout
        while down := [f"{backend}/{name}: {s.get('status')} {s.get('last_chk', '')}"
                       for backend in BACKENDS
                       for name, s in _quiet(lambda b=backend: self.servers(b)).items()
                       if s.get("status") != "UP"]:
            if time.monotonic() > deadline:
                raise RuntimeError(f"HAProxy did not see every replica up: {down}")
            time.sleep(0.2)

    def stats(self) -> list[dict[str, str]]:
        """HAProxy's statistics (`show stat` on its admin socket): a row for each frontend,
        backend and server; scur is current sessions, stot all so far, status UP or DOWN."""
        with socket.socket(socket.AF_UNIX) as sock:
            sock.connect(str(self.run / "haproxy.sock"))
            sock.sendall(b"show stat\n")
            raw = b""
            while chunk := sock.recv(65536):
                raw += chunk
        header, *rows = raw.decode().lstrip("# ").splitlines()
        return [dict(zip(header.split(","), row.split(","), strict=False)) for row in rows if row]

    def servers(self, backend: str = "replicas") -> dict[str, dict[str, str]]:
        """HAProxy's statistics of each replica in one backend: `replicas` (pages, websockets)
        or `rooms` (the rooms' routes)."""
        return {r["svname"]: r for r in self.stats()
                if r.get("pxname") == backend and r["svname"] not in ("FRONTEND", "BACKEND")}


BACKENDS = ("replicas", "rooms")


def free_ports(n: int) -> int:
    """The first of n consecutive ports free on 127.0.0.1."""
    while True:
        first = random.randrange(20_000, 60_000)
        try:
            with contextlib.ExitStack() as held:
                for port in range(first, first + n):
                    sock = held.enter_context(socket.socket())
                    sock.bind(("127.0.0.1", port))
            return first
        except OSError:
            continue


@contextlib.contextmanager
def deployment(run: Path, replicas: int = 2) -> Iterator[Deployment]:
    """Start `python -m deploy.up` with its run folder in run; stop it all at the end."""
    first, proxy, redis_port = free_ports(replicas), free_ports(1), free_ports(1)
    log = (run / "deploy.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "deploy.up", "--replicas", str(replicas), "--port", str(proxy),
         "--address", "127.0.0.1", "--first-port", str(first), "--redis-port",
         str(redis_port), "--run", str(run)], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    ports = list(range(first, first + replicas))
    up = Deployment(proc, f"http://127.0.0.1:{proxy}", ports, run)
    try:
        for port in ports:
            wait_healthy(proc, f"http://127.0.0.1:{port}", timeout=90)
        up.wait_up()
        yield up
    finally:
        proc.terminate()  # supervisord stops HAProxy, the replicas and Redis
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def _quiet(servers) -> dict:
    """HAProxy's statistics, or none while its admin socket is not there yet."""
    try:
        return servers() or {"starting": {}}
    except OSError:
        return {"starting": {}}
