"""The server's secret, and what it signs: students' voter ids, the ticket in a room's QR code
(a student who scanned it joins even while a script floods the class's address with wrong
codes), and the proof that a browser was in a room (its tab keeps following through such a
flood, and a room the server lost is named as such).

Every server process of a deployment must share the secret: POSVIZ_SECRET, else a file made once
in the project's data folder (readable by its owner only), which every process on one machine
reads.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
from pathlib import Path

SECRET_FILE = Path("data") / "secret"
_VOTER = re.compile(r"([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22})")
_JOINED = re.compile(r"([0-9]{6})\.([0-9]{1,12})\.([A-Za-z0-9_-]{22})")


def server_secret(root: Path) -> bytes:
    """POSVIZ_SECRET, else the secret kept in root/data/secret (made on first use, mode 0600;
    two processes starting at once agree on one)."""
    configured = os.environ.get("POSVIZ_SECRET", "").strip()
    if configured:
        return configured.encode()
    path = root / SECRET_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f".secret-{os.getpid()}-{secrets.token_hex(4)}")
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as out:
            out.write(secrets.token_urlsafe(32))
        try:
            os.link(draft, path)  # atomic: the first process's secret wins
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return path.read_text("utf-8").strip().encode()


def _mac(secret: bytes, *parts: str) -> str:
    digest = hmac.new(secret, "\x1f".join(parts).encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:16]).decode().rstrip("=")  # 22 characters


def new_voter(secret: bytes) -> str:
    """A fresh anonymous voter id, signed: `<16 random characters>.<signature>`."""
    token = secrets.token_urlsafe(12)
    return f"{token}.{_mac(secret, 'voter', token)}"


def signed_voter(secret: bytes, raw: object) -> str | None:
    """raw if it is a voter id this server signed, else None."""
    match = _VOTER.fullmatch(raw) if isinstance(raw, str) else None
    if match is None or not hmac.compare_digest(match[2], _mac(secret, "voter", match[1])):
        return None
    return raw


def joined(secret: bytes, code: str, until: float) -> str:
    """A browser's proof that it was in room code, valid until the room would have ended."""
    until = str(int(until))
    return f"{code}.{until}.{_mac(secret, 'joined', code, until)}"


def was_in(secret: bytes, raw: object, code: str, now: float) -> bool:
    """Whether raw proves its browser was in room code, which has not reached its end yet."""
    match = _JOINED.fullmatch(raw) if isinstance(raw, str) else None
    return bool(match and match[1] == code and int(match[2]) > now
                and hmac.compare_digest(match[3], _mac(secret, "joined", code, match[2])))


def ticket(secret: bytes, code: str) -> str:
    """The ticket of room code's QR link: whoever holds it was shown the code, not guessing."""
    return _mac(secret, "ticket", code)


def ticketed(secret: bytes, raw: object, code: str) -> bool:
    return isinstance(raw, str) and hmac.compare_digest(raw.encode(), ticket(secret, code).encode())
