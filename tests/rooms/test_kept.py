"""The bytes-bounded map a server process keeps made documents and replies in."""

from __future__ import annotations

from rooms.kept import Kept


def test_the_least_lately_asked_for_goes_first_once_the_bytes_are_full():
    kept = Kept(most=10, size=len)
    kept.put("a", "xxxx")
    kept.put("b", "xxxx")
    assert kept.get("a") == "xxxx"  # asked for: now the latest
    kept.put("c", "xxxx")
    assert (kept.get("a"), kept.get("b"), kept.get("c")) == ("xxxx", None, "xxxx")
    assert kept.held == 8 and len(kept) == 2


def test_a_value_put_again_is_weighed_again_and_one_too_large_stays_alone():
    kept = Kept(most=10, size=len)
    kept.put("a", "x" * 6)
    kept.put("a", "x" * 2)
    assert kept.held == 2
    kept.put("b", "x" * 50)
    assert (kept.get("a"), len(kept), kept.held) == (None, 1, 50)
