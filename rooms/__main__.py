"""The operator's view of a server's lecture rooms: list them, close one, purge closed ones.

    python -m rooms list                 # every room kept, open and closed
    python -m rooms close 482913         # end a room for everyone
    python -m rooms purge 482913         # delete a room and its answers at once
    python -m rooms purge --closed       # delete every closed or ended room

The store is the one the server uses: POSVIZ_ROOM_STORE (or --store), else the SQLite default.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime

from rooms.records import StoreDown, normal_code, spaced
from rooms.rules import Rooms, open_rooms


def _when(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M UTC")


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m rooms", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split(
        "\n\n", 1)[1])
    parser.add_argument("--store", help="the rooms' store URL (default: POSVIZ_ROOM_STORE, "
                                        "else sqlite:///data/rooms.sqlite3)")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="every room kept, open and closed")
    close = commands.add_parser("close", help="end a room for everyone")
    close.add_argument("code")
    purge = commands.add_parser("purge", help="delete rooms and their answers at once")
    which = purge.add_mutually_exclusive_group(required=True)
    which.add_argument("code", nargs="?")
    which.add_argument("--closed", action="store_true", help="every closed or ended room")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    store = open_rooms(args.store)
    try:
        return _run(args, store)
    except StoreDown as down:
        print(f"the rooms' store cannot be reached: {down}", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace, store: Rooms) -> int:
    if args.command == "list":
        kept = store.kept()
        print(f"rooms kept: {len(kept)}, open: {sum(not r.closed for r in kept)} "
              f"(at most {store.limits.rooms} open at once)")
        for r in kept:
            state = "closed" if r.closed else "open"
            print(f"{spaced(r.code)}  {state:6}  opened {_when(r.created)}  lecturer seen "
                  f"{_when(r.lead_seen)}  ends {_when(r.expires)}  "
                  f"students voted {store.voters(r.code)}  connected {store.headcount(r.code)}")
        return 0
    codes = ([r.code for r in store.kept() if r.closed] if getattr(args, "closed", False)
             else [normal_code(args.code)])
    if None in codes or (args.command == "close" and store.room(codes[0]) is None):
        print(f"no room {args.code!r}", file=sys.stderr)
        return 1
    for code in codes:
        (store.close if args.command == "close" else store.purge)(code)
    print(f"{'closed' if args.command == 'close' else 'purged'} {len(codes)} room(s)"
          + "".join(f" {spaced(code)}" for code in codes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
