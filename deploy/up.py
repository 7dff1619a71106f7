"""Start posviz for a whole class: several app replicas, Redis for their shared rooms, and HAProxy
in front, all kept running by supervisord.

    python -m deploy.up                      # 2 replicas on this machine, students open :8500
    python -m deploy.up --replicas 4 --port 80 --public-url http://lecture.example.edu/

It renders deploy/supervisord.conf and deploy/haproxy.cfg into a run folder (default
deploy/run/, with every log), then runs supervisord in the foreground: Ctrl+C stops it all.
More machines: start replicas there (`POSVIZ_ROOM_STORE=redis://<this machine>:6390/0
python -m streamlit run serve.py --server.address 0.0.0.0 --server.port 8601`, the same
STREAMLIT_SERVER_COOKIE_SECRET) and name each with --backend HOST:PORT here; Redis must then
listen where they can reach it (--redis-bind).
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import sys
from pathlib import Path
from string import Template

DEPLOY = Path(__file__).resolve().parent
ROOT = DEPLOY.parent
TOOLS = ("supervisord", "haproxy", "redis-server")


def servers(local: list[int], remote: list[str]) -> str:
    """HAProxy's server lines: one per replica, each with its own affinity cookie value."""
    addresses = [f"127.0.0.1:{port}" for port in local] + remote
    return "\n".join(f"    server r{i} {address} check cookie r{i}"
                     for i, address in enumerate(addresses, start=1))


def render(args: argparse.Namespace) -> Path:
    """Write the run folder's configuration files; return supervisord's."""
    run = Path(args.run).resolve()
    run.mkdir(parents=True, exist_ok=True)
    local = list(range(args.first_port, args.first_port + args.replicas))
    if not local and not args.backend:
        raise SystemExit("deploy.up: no replica at all (give --replicas or --backend)")
    store = args.redis or f"redis://127.0.0.1:{args.redis_port}/0"
    values = dict(
        run=run, root=ROOT, deploy=DEPLOY, python=sys.executable,
        bind=f"{args.address}:{args.port}", servers=servers(local, args.backend),
        replicas=max(1, len(local)), first_port=args.first_port,
        local_replicas=str(bool(local)).lower(), replica_address=args.replica_address,
        redis_port=args.redis_port, redis_bind=args.redis_bind,
        local_redis=str(args.redis is None).lower(), store=store,
        public_url=args.public_url or "", cookie_secret=cookie_secret(run),
        redis_server=shutil.which("redis-server") or "redis-server",
        haproxy=shutil.which("haproxy") or "haproxy")
    for name in ("haproxy.cfg", "supervisord.conf"):
        text = Template((DEPLOY / name).read_text("utf-8")).substitute(values)
        (run / name).write_text(text, "utf-8")
    return run / "supervisord.conf"


def cookie_secret(run: Path) -> str:
    """One secret for every replica of this deployment (kept across restarts in the run
    folder): Streamlit signs its cookies with it, so a browser moved to another replica is
    still recognised."""
    kept = run / "cookie-secret"
    if not kept.exists():
        kept.write_text(secrets.token_urlsafe(32), "utf-8")
        kept.chmod(0o600)
    return kept.read_text("utf-8").strip()


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m deploy.up", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replicas", type=int, default=2,
                        help="app replicas on this machine (default 2: one per core here)")
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
    parser.add_argument("--redis-port", type=int, default=6390)
    parser.add_argument("--redis-bind", default="127.0.0.1",
                        help="where the Redis started here listens (replicas on other "
                             "machines need an address they reach, on a private network)")
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
    print(f"posviz: {args.replicas} replicas behind http://{args.address}:{args.port}/ "
          f"(logs in {conf.parent})", flush=True)
    os.execvp("supervisord", ["supervisord", "-c", str(conf)])


if __name__ == "__main__":
    main()
