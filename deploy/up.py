"""Start posviz for a whole class: several app replicas, Redis for their shared rooms, and HAProxy
in front, all kept running by supervisord.

    python -m deploy.up                      # 2 replicas on this machine, students open :8500
    python -m deploy.up --replicas 4 --port 80 --public-url http://lecture.example.edu/

It renders deploy/supervisord.conf, deploy/haproxy.cfg and Redis's configuration into a run
folder (default deploy/run/, with every log), then runs supervisord in the foreground: Ctrl+C
stops it all. The run folder keeps the deployment's secrets across restarts, each in a file only
its owner can read: cookie-secret (Streamlit's cookies), posviz-secret (the app signs students'
voter ids with it) and redis-password (Redis always asks for it: loopback is open to every
user of this machine; `REDISCLI_AUTH=$(cat deploy/run/redis-password) redis-cli -p 6390`).

More machines: start replicas there with the same secrets and name each with --backend
HOST:PORT here; Redis must then listen where they can reach it (--redis-bind), and they must
believe HAProxy's X-Forwarded-For (POSVIZ_TRUSTED_PROXIES: this machine's address as they see
it, comma-separated addresses or CIDRs):

    POSVIZ_ROOM_STORE=redis://:<redis-password>@<this machine>:6390/0 \
    STREAMLIT_SERVER_COOKIE_SECRET=<cookie-secret> POSVIZ_SECRET=<posviz-secret> \
    POSVIZ_TRUSTED_PROXIES=<this machine> \
    python -m streamlit run serve.py --server.address 0.0.0.0 --server.port 8601
"""

from __future__ import annotations

import argparse
import getpass
import os
import secrets
import shutil
import sys
import tempfile
from pathlib import Path
from string import Template

from posviz.rooms import network_address

DEPLOY = Path(__file__).resolve().parent
ROOT = DEPLOY.parent
TOOLS = ("supervisord", "haproxy", "redis-server")
TRUSTED_PROXIES = "127.0.0.1"  # HAProxy, as the replicas on this machine see it


def servers(local: list[int], remote: list[str]) -> str:
    """HAProxy's server lines: one per replica, each with its own affinity cookie value."""
    addresses = [f"127.0.0.1:{port}" for port in local] + remote
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
    values = dict(
        run=run, root=ROOT, deploy=DEPLOY, python=sys.executable,
        bind=f"{args.address}:{args.port}", servers=servers(local, args.backend),
        replicas=max(1, len(local)), first_port=args.first_port,
        local_replicas=str(bool(local)).lower(), replica_address=args.replica_address,
        local_redis=str(args.redis is None).lower(), store=store,
        public_url=args.public_url or "", cookie_secret=kept(run, "cookie-secret"),
        posviz_secret=kept(run, "posviz-secret"), trusted_proxies=TRUSTED_PROXIES,
        user=getpass.getuser(), supervisor_password=kept(run, "supervisor-password"),
        redis_server=shutil.which("redis-server") or "redis-server",
        haproxy=shutil.which("haproxy") or "haproxy")
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
                                             "(POSVIZ_PUBLIC_URL)")
    parser.add_argument("--run", default=str(DEPLOY / "run"),
                        help="the folder for the rendered configuration and the logs")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        raise SystemExit(f"deploy.up: {', '.join(missing)} not found: apt-get install "
                         "haproxy redis-server, and pip install -r deploy/requirements.txt")
    conf = render(args)
    print(f"posviz: {args.replicas} replicas; students open {students_url(args)} "
          f"(logs in {conf.parent})", flush=True)
    os.execvp("supervisord", ["supervisord", "-c", str(conf)])


if __name__ == "__main__":
    main()
