"""Who the lecturer is (ui/lecturer.py, with rooms.address): this machine's own browser, never
another loopback address, and behind a trusted proxy the address it forwards for."""

from __future__ import annotations

from rooms.address import own_addresses, peer_address, this_machine


def on_this_machine(address: str) -> bool:
    return address in own_addresses()


def test_this_machines_own_addresses_are_the_lecturers_and_no_other_loopback():
    assert on_this_machine(peer_address(None, None))  # Streamlit's word for 127.0.0.1, ::1
    assert on_this_machine(peer_address("::1", None))
    assert on_this_machine(peer_address("::ffff:127.0.0.1", None))
    for phone in ("127.0.0.2", "127.0.0.5", "127.0.1.1", "127.1.2.3", "10.0.0.7",
                  "2001:db8::1", "not an address"):
        assert not on_this_machine(peer_address(phone, None)), phone
    assert all(a in ("127.0.0.1", "::1") or not a.startswith("127.") for a in own_addresses())


def test_a_forwarded_address_counts_only_behind_a_trusted_proxy(monkeypatch):
    """A header anyone can send names nobody, unless the peer is a proxy the operator trusts:
    then the address it appended is the client's (a student behind it is no lecturer)."""
    monkeypatch.delenv("POSVIZ_TRUSTED_PROXIES", raising=False)
    assert on_this_machine(peer_address(None, "203.0.113.9"))  # the header is not believed
    assert not on_this_machine(peer_address("127.0.0.3", "127.0.0.1"))
    monkeypatch.setenv("POSVIZ_TRUSTED_PROXIES", "127.0.0.1")
    assert peer_address(None, "203.0.113.9, 198.51.100.4") == "198.51.100.4"
    assert not on_this_machine(peer_address(None, "198.51.100.4"))
    assert on_this_machine(peer_address(None, "127.0.0.1"))  # the lecturer through the proxy


def test_a_request_through_a_proxy_not_trusted_is_nobodys(monkeypatch):
    """A proxy on this machine that the operator did not name makes every reader's peer
    127.0.0.1: a request that carries a proxy's header then loads nothing."""
    monkeypatch.delenv("POSVIZ_TRUSTED_PROXIES", raising=False)
    assert this_machine(None, {})
    for header in ("X-Forwarded-For", "X-Real-IP", "Forwarded"):
        assert not this_machine(None, {header: "198.51.100.4"}), header
    monkeypatch.setenv("POSVIZ_TRUSTED_PROXIES", "127.0.0.1")
    assert this_machine(None, {"X-Forwarded-For": "127.0.0.1"})
    assert not this_machine(None, {"X-Forwarded-For": "198.51.100.4"})


def test_a_session_leading_its_room_is_the_lecturer_and_a_document_is_nobody(monkeypatch):
    """The room's leader, from any computer, is the lecturer; a page drawn as a document (a
    room's screen, a file) is nobody's, even drawn on this computer."""
    from types import SimpleNamespace

    from ui import lecturer
    from ui.shared import settings

    monkeypatch.setattr(lecturer, "this_machine", lambda peer, headers: False)  # a remote one
    monkeypatch.setattr(lecturer.st, "context", SimpleNamespace(ip_address="198.51.100.4",
                                                                headers={}))
    s = settings({}, "en", controls=True)
    assert not lecturer.is_lecturer(s)
    leading = SimpleNamespace(lecturer=True)
    assert lecturer.is_lecturer(type(s)(**{**s.__dict__, "room": leading}))
    following = SimpleNamespace(lecturer=False)
    assert not lecturer.is_lecturer(type(s)(**{**s.__dict__, "room": following}))
    monkeypatch.setattr(lecturer, "this_machine", lambda peer, headers: True)
    assert not lecturer.is_lecturer(settings({}, "en"))  # a document: no controls


def test_with_a_passphrase_this_machines_address_alone_proves_nothing(monkeypatch):
    """A tunnel on the lecturer's laptop (ssh -R) brings every student from the laptop's own
    address: with a passphrase set, that address no longer makes a session the lecturer's;
    the passphrase typed (or the lecturer's link) does, and without a passphrase the laptop's
    own browser is the lecturer's as ever."""
    from types import SimpleNamespace

    from ui import lecturer
    from ui.room import keys
    from ui.shared import settings

    monkeypatch.setattr(lecturer, "this_machine", lambda peer, headers: True)  # via the tunnel
    monkeypatch.setattr(lecturer.st, "context", SimpleNamespace(ip_address="127.0.0.1",
                                                                headers={}, cookies={}))
    monkeypatch.setattr(lecturer.st, "session_state", {})
    s = settings({}, "en", controls=True)
    monkeypatch.delenv("POSVIZ_LECTURER_PASSWORD", raising=False)
    assert lecturer.is_lecturer(s)
    monkeypatch.setenv("POSVIZ_LECTURER_PASSWORD", "a long passphrase")
    assert not lecturer.is_lecturer(s)
    lecturer.st.session_state[keys.PROVEN] = True  # the passphrase typed at Start a room
    assert lecturer.is_lecturer(s)
