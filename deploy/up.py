"""Start posviz for a whole class: several app replicas, Redis for their shared rooms, and HAProxy
in front, all kept running by supervisord.

    python -m deploy.up                      # 2 replicas on this machine, students open :8500
    python -m deploy.up --replicas 4 --port 80 --public-url http://lecture.example.edu/

It renders deploy/supervisord.conf, deploy/haproxy.cfg and Redis's configuration into a run
folder (default deploy/run/, with every log), then runs supervisord in the foreground: Ctrl+C
stops it all. HAProxy starts last, once every replica answers its health checks (started with
them, it would find none up, log "no server available" and answer its first students 503);
the line "posviz: ready; students open ..." then says the class can come in.

The run folder keeps the deployment's secrets across restarts, each in a file only its owner
can read: cookie-secret (Streamlit's cookies), posviz-secret (the app signs students'
voter ids with it) and redis-password (Redis always asks for it: loopback is open to every
user of this machine; `REDISCLI_AUTH=$(cat deploy/run/redis-password) redis-cli -p 6390`).

More machines: start replicas there with the same secrets and name each with --backend
HOST:PORT here; Redis must then listen where they can reach it (--redis-bind), and they must
believe HAProxy's X-Forwarded-For (POSVIZ_TRUSTED_PROXIES: this machine's address as they see
it, comma-separated addresses or CIDRs):

    POSVIZ_ROOM_STORE=redis://:<redis-password>@<this machine>:6390/0 \
    STREAMLIT_SERVER_COOKIE_SECRET=<cookie-secret> POSVIZ_SECRET=<posviz-secret> \
    POSVIZ_TRUSTED_PROXIES=<this machine> \
    python serve.py --server.address 0.0.0.0 --server.port 8601
"""

from __future__ import annotations

import argparse
import fcntl
import getpass
import http.client
import os
import resource
import secrets
import shlex
import shutil
import stat
import sys
import tempfile
import time
import urllib.request
import xmlrpc.client
from pathlib import Path
from string import Template

from rooms.address import network_address
from rooms.server import connection_bound

DEPLOY = Path(__file__).resolve().parent
ROOT = DEPLOY.parent
TOOLS = ("supervisord", "haproxy", "redis-server")
TRUSTED_PROXIES = "127.0.0.1"  # HAProxy, as the replicas on this machine see it
HEALTH = ("/_stcore/health", "/_posviz/health")  # HAProxy's checks: pages, rooms
READY_SECONDS = 120  # HAProxy starts after this even if a replica never answers
PER_SOURCE = 3000         # connections open at once from one client address (a hall's NAT)
PER_SOURCE_RATE = 4000    # new connections from one address in 10 s
PER_SOURCE_REQUESTS = 20_000  # requests from one address in 10 s


def bounds(replicas: int) -> tuple[int, int]:
    """(each replica's bound on open connections, HAProxy's): a replica on this machine
    raises its open-file limit to the hard limit at start and holds what that allows
    (rooms.server.connection_bound); HAProxy holds no more than the replicas together,
    and no more than its own files allow (two a connection: the client's and the replica's)."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    files = hard if hard != resource.RLIM_INFINITY else 1 << 20
    replica = connection_bound(files)
    return replica, max(256, min(replicas * replica, (files - 256) // 2))


def replicas(args: argparse.Namespace) -> list[str]:
    """Every replica's HOST:PORT, as HAProxy reaches it: this machine's, then --backend's."""
    local = range(args.first_port, args.first_port + args.replicas)
    return [f"127.0.0.1:{port}" for port in local] + args.backend


def servers(addresses: list[str]) -> str:
    """HAProxy's server lines: one per replica, each with its own affinity cookie value."""
    return "\n".join(f"    server r{i} {address} check cookie r{i}"
                     for i, address in enumerate(addresses, start=1))


def render(args: argparse.Namespace) -> Path:
    """Write the run folder's configuration files, each readable by its owner only (they hold
    the secrets); return supervisord's."""
    run = Path(args.run).resolve()
    run.mkdir(mode=0o700, parents=True, exist_ok=True)
    local = list(range(args.first_port, args.first_port + args.replicas))
    if not local and not args.backend:
        raise SystemExit("deploy.up: no replica at all (give --replicas or --backend)")
    if args.redis is None:
        password = kept(run, "redis-password")
        private(run / "redis.conf", redis_conf(args, run, password))
        store = f"redis://:{password}@127.0.0.1:{args.redis_port}/0"
    else:
        store = args.redis
    gate = [str(run), students_url(args), *replicas(args)]  # supervisord expands %: doubled
    replica_maxconn, maxconn = bounds(len(replicas(args)))
    values = dict(
        run=run, root=ROOT, deploy=DEPLOY, python=sys.executable,
        bind=f"{args.address}:{args.port}", servers=servers(replicas(args)),
        gate=shlex.join(gate).replace("%", "%%"), console=console(run),
        replicas=max(1, len(local)), first_port=args.first_port,
        local_replicas=str(bool(local)).lower(), replica_address=args.replica_address,
        local_redis=str(args.redis is None).lower(), store=store,
        public_url=args.public_url or "", cookie_secret=kept(run, "cookie-secret"),
        posviz_secret=kept(run, "posviz-secret"), trusted_proxies=TRUSTED_PROXIES,
        user=getpass.getuser(), supervisor_password=kept(run, "supervisor-password"),
        redis_server=shutil.which("redis-server") or "redis-server",
        haproxy=shutil.which("haproxy") or "haproxy", maxconn=maxconn,
        replica_maxconn=replica_maxconn, per_source=PER_SOURCE,
        per_source_rate=PER_SOURCE_RATE, per_source_requests=PER_SOURCE_REQUESTS)
    for name in ("haproxy.cfg", "supervisord.conf"):
        private(run / name, Template((DEPLOY / name).read_text("utf-8")).substitute(values))
    return run / "supervisord.conf"


def students_url(args: argparse.Namespace) -> str:
    """An address a browser can open: --public-url, else this machine's on its network when
    HAProxy listens on every address, else the one it listens on."""
    if args.public_url:
        return args.public_url
    host = args.address
    if host in ("0.0.0.0", "::", ""):
        host = network_address() or "127.0.0.1"
    return f"http://{host}:{args.port}/"


def console(run: Path) -> str:
    """Where the gate's lines go: supervisord's output, which it inherits from this process,
    when that is a terminal, a pipe or a file; else the run folder's gate.log (a socket such
    as systemd's journal cannot be opened by name). A file is switched to appending first:
    supervisord opens it again for the gate, and two writers each at an offset of its own
    would write over each other's lines."""
    try:
        mode = os.fstat(1).st_mode  # what supervisord inherits (exec keeps it)
    except OSError:  # closed
        return str(run / "gate.log")
    if stat.S_ISREG(mode):
        fcntl.fcntl(1, fcntl.F_SETFL, fcntl.fcntl(1, fcntl.F_GETFL) | os.O_APPEND)
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISREG(mode):
        return "/dev/stdout"
    return str(run / "gate.log")


def healthy(address: str) -> bool:
    """Whether the replica at HOST:PORT answers "ok" on both routes HAProxy checks (asked
    directly, as HAProxy asks: never through an http_proxy of the environment)."""
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    for route in HEALTH:
        try:
            with direct.open(f"http://{address}{route}", timeout=2) as answer:
                if answer.read() != b"ok":
                    return False
        except (OSError, http.client.HTTPException):  # not listening yet, 503 (rooms down)
            return False
    return True


def open_when_ready(run: Path, url: str, addresses: list[str],
                    timeout: float = READY_SECONDS) -> None:
    """supervisord's last program (`python -m deploy.up gate RUN URL HOST:PORT...`): wait until
    every replica answers HAProxy's health checks (or timeout), then start HAProxy. Started
    beside the replicas, HAProxy's first check marks each one down at once, and the backend
    has no server until two checks in a row pass; started after them, it finds them up."""
    deadline = time.monotonic() + timeout
    while (waiting := [a for a in addresses if not healthy(a)]) and time.monotonic() < deadline:
        time.sleep(0.25)
    if waiting:
        print(f"posviz: no answer from {', '.join(waiting)} after {timeout:.0f} s; HAProxy "
              "starts without them (it takes each in once its checks pass)", flush=True)
    from supervisor.xmlrpc import SupervisorTransport  # here: main() says when it is missing

    password = (run / "supervisor-password").read_text("utf-8").strip()
    transport = SupervisorTransport("posviz", password, f"unix://{run}/supervisor.sock")
    try:
        xmlrpc.client.ServerProxy("http://supervisord", transport).supervisor.startProcess(
            "haproxy")
    except xmlrpc.client.Fault as fault:
        if "ALREADY_STARTED" not in fault.faultString:
            raise SystemExit(f"posviz: HAProxy did not start ({fault.faultString}): see "
                             f"{run / 'haproxy.log'}") from None
    print(f"posviz: ready; students open {url}", flush=True)


def redis_conf(args: argparse.Namespace, run: Path, password: str) -> str:
    """Redis's configuration for this deployment: deploy/redis.conf, where to listen and its
    password (here, never on its command line, which `ps` shows to every user)."""
    return "\n".join([
        "# Written by deploy/up.py for this run folder; readable by its owner only.",
        f'include "{DEPLOY / "redis.conf"}"',
        f"bind {args.redis_bind}",
        f"port {args.redis_port}",
        f'dir "{run}"',
        f"requirepass {password}", ""])


def kept(run: Path, name: str) -> str:
    """A secret of this deployment, made once and kept in the run folder across restarts. Every
    replica has the same ones: Streamlit signs its cookies with cookie-secret and posviz its
    students' voter ids with posviz-secret, so a browser moved to another replica is still
    recognised."""
    path = run / name
    if not path.exists():
        private(path, secrets.token_urlsafe(32))
    elif path.stat().st_mode & 0o077:
        path.chmod(0o600)  # one copied in from elsewhere, readable by others
    return path.read_text("utf-8").strip()


def private(path: Path, text: str) -> None:
    """Write a file that only its owner can read from its first byte: a new file made 0600
    (mkstemp), moved over the old one (whose mode may be wider)."""
    fd, fresh = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(fresh, path)
    except BaseException:
        Path(fresh).unlink(missing_ok=True)
        raise


class Help(argparse.RawDescriptionHelpFormatter):
    """--help with the module's text as written, and each option's default where it has one."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if action.default in (None, [], argparse.SUPPRESS) or action.help is None:
            return action.help or ""
        return f"{action.help} (default: %(default)s)"


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m deploy.up", description=__doc__.split(
        "\n\n")[0], formatter_class=Help)
    parser.add_argument("--replicas", type=int, default=2,
                        help="app replicas on this machine (one per core)")
    parser.add_argument("--port", type=int, default=8500, help="where students connect")
    parser.add_argument("--address", default="0.0.0.0", help="HAProxy's listening address")
    parser.add_argument("--first-port", type=int, default=8601,
                        help="the first replica's port; the others follow it")
    parser.add_argument("--replica-address", default="127.0.0.1",
                        help="where this machine's replicas listen (0.0.0.0 to reach them "
                             "from another proxy)")
    parser.add_argument("--backend", action="append", default=[], metavar="HOST:PORT",
                        help="a replica on another machine (repeat for each)")
    parser.add_argument("--redis", metavar="URL",
                        help="an existing Redis for the rooms (default: start one here)")
    parser.add_argument("--redis-port", type=int, default=6390,
                        help="the port of the Redis started here")
    parser.add_argument("--redis-bind", default="127.0.0.1",
                        help="the address the Redis started here listens on (replicas on other "
                             "machines need an address they reach, on a private network; "
                             "its password is in the run folder's redis-password)")
    parser.add_argument("--public-url", help="the address students open, for the QR code "
                                             "(POSVIZ_PUBLIC_URL; default: http://<this "
                                             "machine's address on its network>:<port>/)")
    parser.add_argument("--run", default=str(DEPLOY / "run"),
                        help="the folder for the rendered configuration and the logs")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["gate"]:  # supervisord's own step (supervisord.conf), not an operator's
        run, url, *addresses = argv[1:]
        return open_when_ready(Path(run), url, addresses)
    args = parse(argv)
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        raise SystemExit(f"deploy.up: {', '.join(missing)} not found: apt-get install "
                         "haproxy redis-server, and pip install -r deploy/requirements.txt")
    conf = render(args)
    print(f"posviz: starting {args.replicas} replicas, then HAProxy; students will open "
          f"{students_url(args)} (logs in {conf.parent})", flush=True)
    os.execvp("supervisord", ["supervisord", "-c", str(conf)])


if __name__ == "__main__":
    main()
