"""The lecture room's session keys are named once, in ui/room/keys.py: no other module of the
room reads or writes st.session_state, or gives a widget its key, by a key spelled out."""

import ast

import pytest

from tests.conftest import ROOT
from ui.room import keys

ROOM = sorted(p for p in (ROOT / "ui" / "room").glob("*.py") if p.name != "keys.py")
SESSION_METHODS = ("get", "pop", "setdefault", "update", "keys", "items", "values", "to_dict")


def _spelled(node: ast.AST | None) -> bool:
    """Whether node is a key written out: a string, or an f-string."""
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant)
                                               and isinstance(node.value, str))


def _session(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "session_state"


def spelled_keys(source: str) -> list[str]:
    """Where source names a session key or a widget's key with a string: st.session_state["k"],
    st.session_state.k, st.session_state.get("k"), st.session_state.update(k=...) or with a
    dict of spelled keys, "k" in st.session_state, remembered("k", ...), a call's key="k"."""
    found = []
    for node in ast.walk(ast.parse(source)):
        where = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Subscript) and _session(node.value) and _spelled(node.slice):
            found.append(f"{where}: session_state[...]")
        elif (isinstance(node, ast.Attribute) and _session(node.value)
              and node.attr not in SESSION_METHODS):
            found.append(f"{where}: session_state.{node.attr}")
        elif isinstance(node, ast.Compare) and any(_session(c) for c in node.comparators) \
                and _spelled(node.left):
            found.append(f"{where}: ... in session_state")
        if not isinstance(node, ast.Call):
            continue
        method, first = node.func, node.args[0] if node.args else None
        spelled = _spelled(first) or isinstance(first, ast.Dict) and any(
            _spelled(k) for k in first.keys)
        if isinstance(method, ast.Attribute) and _session(method.value) and (
                spelled or method.attr == "update" and node.keywords):
            found.append(f"{where}: session_state.{method.attr}(...)")
        if isinstance(method, ast.Name) and method.id == "remembered" and _spelled(first):
            found.append(f"{where}: remembered(...)")
        found += [f"{where}: key=..." for k in node.keywords
                  if k.arg == "key" and _spelled(k.value)]
    return found


@pytest.mark.parametrize("path", ROOM, ids=lambda p: p.name)
def test_the_room_names_its_session_keys(path):
    assert not spelled_keys(path.read_text("utf-8")), path.name


def test_spelled_keys_are_found_in_every_form():
    source = ('st.session_state["kept_room"] = 1\nst.session_state.room_key\n'
              'st.session_state.get("room_seen")\nst.session_state.update(kept_room="")\n'
              'st.session_state.update({"room_key": None})\n"room_forgot" in st.session_state\n'
              'remembered("follow", True, flag)\nst.button("x", key=f"vote_{i}")\n')
    assert len(spelled_keys(source)) == 8
    assert not spelled_keys('st.session_state[keys.ROOM] = st.session_state.get(keys.KEY)\n'
                            'st.session_state.update({keys.ROOM: ""})\n'
                            'st.button("x", key=keys.vote("q", 0))\n')


def test_every_key_is_one_of_a_kind():
    """No two names of keys.py stand for one key."""
    named = {name: value for name, value in vars(keys).items()
             if name.isupper() and isinstance(value, str)}
    assert len(set(named.values())) == len(named), named
