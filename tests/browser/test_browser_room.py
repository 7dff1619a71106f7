"""A lecture room in headless Chromium: a lecturer walks the guided lesson's scenes and three
students follow on the room's screen (static/viewer.js): a laptop that typed the link, a phone
that scanned the QR code, and a phone in Chinese. Scene by scene each shows the headings and
figures of the app's own page for that view in its reader's language; they vote and see the
reveal; a student explores on their own in the app (the lecturer lets students in) and follows
again."""

from __future__ import annotations

import io
import os
import re
import threading
import time
import urllib.request
from urllib.parse import urljoin, urlsplit

import pytest
import segno
from PIL import Image
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from posviz import ports
from posviz.tokens import tokenize
from rooms import CODE_VOTES, open_rooms, signing
from tests.conftest import ARRIVES_MS, ROOT
from tests.helpers.load_fixtures import nav_click, rerun, settle, tab_to
from tests.helpers.room_fixtures import ticket
from ui import documents
from ui.blocks import walk
from ui.i18n import text

pytestmark = pytest.mark.browser

FOLLOW_WITHIN = 30.0  # seconds at most, on a busy machine; the benchmark measures the real figure


def shown_scene(page, scene: int) -> None:
    """Wait until the room's screen shows the lesson's scene (else say what it shows)."""
    try:
        page.wait_for_function(
            "([n]) => [...document.querySelectorAll('#posviz-viewer h2')].some((h) =>"
            " h.textContent.startsWith(n + '.'))", arg=[str(scene)],
            timeout=FOLLOW_WITHIN * 1000, polling=50)
    except PlaywrightTimeout:
        shows = page.evaluate("() => [...document.querySelectorAll('#posviz-viewer :is(h1, h2),"
                              " #posviz-status')].map((e) => e.textContent)")
        raise AssertionError(f"scene {scene} not followed by {page.url}: it shows {shows}"
                             ) from None


def screen(page) -> tuple[list[str], list[str]]:
    """The headings, and the charts by name, that a room's screen shows."""
    return ([h.strip() for h in page.locator("#posviz-viewer :is(h1, h2, h3)").all_inner_texts()],
            page.eval_on_selector_all(".posviz-chart-host",
                                      "hosts => hosts.map((h) => h.dataset.name)"))


def app_page(page) -> tuple[list[str], list[str]]:
    """The headings, and the charts by name, that the app's own page shows (the lecturer's join
    panel aside)."""
    return ([h.strip() for h in page.locator("[data-testid=stMain] :is(h1, h2, h3)")
             .all_inner_texts() if h.strip() != "Join the lecture"],
            page.eval_on_selector_all("[data-testid=stMain] .posviz-chart",
                                      "charts => charts.map((c) => c.dataset.name)"))


def document(query: str, lang: str) -> tuple[list[str], list[str]]:
    """The headings, and the charts by name, of the lesson's document for a room's view in lang
    (the same as the app's page in that language: tests/documents/test_documents.py)."""
    made = list(walk(documents.blocks("lesson", query, lang, frozenset(), room=True)))
    return ([b["text"] for b in made if b["t"] == "heading"],
            [b["name"] for b in made if b["t"] == "chart"])


def student_link(lecturer) -> str:
    code = lecturer.locator("[data-testid=stSidebar] [data-testid=stCode]",
                            has_text="?room=").first
    return code.inner_text().strip()


def qr_link_matches(lecturer, link: str) -> bool:
    """The QR code on the page is the QR code of the link, pixel for pixel."""
    source = lecturer.locator("[data-testid=stImage] img").first.get_attribute("src")
    drawn = Image.open(io.BytesIO(urllib.request.urlopen(urljoin(lecturer.url, source)).read()))
    made = io.BytesIO()
    segno.make(link, error="m").save(made, kind="png", scale=12, border=3)
    expected = Image.open(made)
    return (drawn.size == expected.size
            and drawn.convert("L").tobytes() == expected.convert("L").tobytes())


def test_a_class_follows_the_lesson_on_the_rooms_screen_votes_and_sees_the_reveal(
        server, browser, artifacts, request):
    lecturer = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    laptop = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                has_touch=True, device_scale_factor=2).new_page()
    phone_zh = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                   has_touch=True, locale="zh-CN").new_page()
    students = {"laptop": laptop, "phone": phone, "phone_zh": phone_zh}
    errors = []
    for who, page in (("lecturer", lecturer), *students.items()):
        page.on("pageerror", lambda e, who=who: errors.append(f"{who}: {e}"))
        page.on("console", lambda m, who=who: errors.append(f"{who}: {m.text}")  # two
                if "Multiple different fragmentIds" in m.text else None)  # fragments at once
        request.addfinalizer(page.context.close)  # no tab left in the room for later tests

    lecturer.goto(f"{server}/?text=刚想到了")
    settle(lecturer)
    with rerun(lecturer):
        lecturer.locator("[data-testid=stSidebar]").get_by_role(
            "button", name="Start a room").click()
    link = student_link(lecturer)
    code = link.split("room=")[1][:6]
    # the QR code opens the room's screen with the ticket of when it was drawn (this window,
    # or the one before if the window turned since)
    secret, window = os.environ["POSVIZ_SECRET"].encode(), signing.TICKET_SECONDS
    assert any(qr_link_matches(lecturer, f"{server}/_posviz/follow/{code}?t="
                               f"{signing.ticket(secret, code, time.time() - n * window)}")
               for n in (0, 1))
    scanned = f"{server}/_posviz/follow/{code}?t={ticket(code)}"
    lecturer.locator(f"[data-granted='{code}']").wait_for(state="attached")  # the room element's
    held = {c["name"]: c for c in lecturer.context.cookies()}[f"posviz_key_{code}"]
    assert held["httpOnly"] and held["sameSite"] == "Strict"  # set by the server, unreadable
    # no script on the page reads the key: not in its cookies, not in the page (the element keeps
    # its data to itself, and the next run sends none: tests/app/test_room_pages.py)
    assert not lecturer.evaluate("([key]) => (document.cookie + document.documentElement"
                                 ".outerHTML).includes(key)", [held["value"]])

    laptop.goto(link)  # the app, which sends a follower on to the room's screen
    phone.goto(scanned)
    phone_zh.goto(scanned)  # its browser asks for Chinese
    for student in students.values():
        student.wait_for_url(f"**/_posviz/follow/{code}**", timeout=30_000)
        student.wait_for_selector("#posviz-viewer h1", timeout=30_000)
    assert {c["name"]: c for c in phone.context.cookies()}["posviz_me"]["httpOnly"]

    # the lecturer walks every scene; every screen follows with the page's own content
    nav_click(lecturer, "Guided lesson")
    for scene in range(1, len(documents.scenes()) + 1):
        if scene > 1:
            with rerun(lecturer):
                lecturer.locator(".st-key-lesson_next button").click()
        for student in students.values():
            shown_scene(student, scene)
        if scene > 1:  # the move is said to a screen reader, once, by the screen's live region
            expect(phone.locator("#posviz-announce[aria-live=polite]")).to_have_text(
                re.compile(rf"^Now showing: {scene}\. "))
        query = urlsplit(lecturer.url).query
        mine = app_page(lecturer)
        for who in ("laptop", "phone"):
            assert screen(students[who]) == mine, (scene, who)
        assert screen(phone_zh) == document(query, "zh"), scene
        if scene in (1, 4):
            for who, student in students.items():
                student.screenshot(path=artifacts / f"room-{who}-scene-{scene}.png")

    # the last scene asks which of two maps is the buggy port's: the laptop answers with the
    # keyboard alone, a phone taps; the reveal names the port's map on every screen
    port = "AB"[ports.port_side("\x1f".join(tokenize("刚想到了")))]
    tab_to(laptop, '[data-poll="scene-port"] .posviz-option')
    laptop.keyboard.press("Enter")
    phone.locator('[data-poll="scene-port"] .posviz-option').nth("AB".index(port)).tap()
    for student in (laptop, phone):
        expect(student.locator('[data-poll="scene-port"] .posviz-option.chosen')
               ).to_have_count(1)
    reveal = lecturer.get_by_role("button", name="Reveal the answer to the room")
    reveal.scroll_into_view_if_needed()
    expect(lecturer.get_by_text("Answers: 2 · students connected: 3")).to_be_visible()
    with rerun(lecturer):
        reveal.click()
    expect(phone.locator('[data-poll="scene-port"] .posviz-question-note')).to_have_text(
        f"Right: the answer is {port}, and you chose {port}.", timeout=FOLLOW_WITHIN * 1000)
    expect(phone_zh.locator('[data-poll="scene-port"] .posviz-question-note')).to_contain_text(
        f"正确答案是 {port}", timeout=FOLLOW_WITHIN * 1000)

    # everyone votes on scene 4's question, two say how sure; the lecturer sees 2 of 3 wrong
    # and opens a second round after a discussion; the reveal shows both rounds
    lecturer.locator("[data-testid=stPagination] button", has_text="4").first.click()
    for student in students.values():
        shown_scene(student, 4)
    expect(phone.locator("#posviz-announce")).to_contain_text(text("viewer.question_open", "en"))
    # on a phone the question stands under a figure taller than the screen: a line at the top
    # says it is open and jumps to it, the focus with it
    for student, lang in ((phone, "en"), (phone_zh, "zh")):
        question = student.locator('[data-poll="scene-order"]')
        assert question.bounding_box()["y"] > 844  # out of sight: what the jump is for
        jump = student.get_by_role("link", name=text("viewer.jump_open", lang), exact=True)
        box = jump.bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= 844 and box["height"] >= 44
        jump.click()
        expect(question).to_be_focused()
        student.wait_for_function("(q) => { const { top } = q.getBoundingClientRect();"
                                  " return top >= 0 && top < innerHeight - 100; }",
                                  arg=question.element_handle())  # its text in view
    tab_to(laptop, ".posviz-option")  # the laptop votes with the keyboard alone
    laptop.keyboard.press("Enter")
    for student, option in ((phone, 0), (phone_zh, 1)):
        student.locator(".posviz-option").nth(option).click()
    for student in students.values():
        expect(student.locator(".posviz-option.chosen")).to_have_count(1)
    expect(laptop.get_by_text("Your answer: A.")).to_be_visible()
    expect(laptop.locator(".posviz-jump")).to_have_text(  # the jump says it, too
        text("viewer.jump_answered", "en", mine="A") + " ↓")
    phone.get_by_role("group", name="How sure are you?").get_by_role("button", name="Sure").click()
    phone_zh.get_by_role("group", name="你有多大把握？").get_by_role("button", name="猜的").click()
    for student in (phone, phone_zh):
        expect(student.locator('.posviz-sure-option[aria-pressed="true"]')).to_have_count(1)
    expect(lecturer.get_by_text("Answers: 3 · students connected: 3")).to_be_visible()
    # one right of three is under Peer Instruction's 35%: the tally says explain; this
    # lecturer lets the class discuss all the same
    expect(lecturer.get_by_text("under 35% are right. Explain the idea again")).to_be_visible()
    with rerun(lecturer):
        lecturer.get_by_role("button", name="Discuss, then vote again").click()
    for student in students.values():
        expect(student.locator(".posviz-round")).to_be_visible(timeout=FOLLOW_WITHIN * 1000)
        expect(student.locator(".posviz-option.chosen")).to_have_count(0)  # a fresh round
    expect(phone.locator(".posviz-round")).to_contain_text("Your first answer was A.")
    tab_to(laptop, ".posviz-option")
    laptop.keyboard.press("Enter")
    for student in (phone, phone_zh):  # the phone changed its mind
        student.locator(".posviz-option").nth(1).click()
    for student in students.values():
        expect(student.locator(".posviz-option.chosen")).to_have_count(1)
    reveal = lecturer.get_by_role("button", name="Reveal the answer to the room")
    reveal.scroll_into_view_if_needed()
    expect(lecturer.get_by_text("Answers: 3 · students connected: 3")).to_be_visible()
    with rerun(lecturer):
        reveal.click()
    expect(lecturer.get_by_text("Of the 3 students who answered both rounds, 1 changed their "
                                "answer (A → B: 1).")).to_be_visible()
    expect(laptop.locator(".posviz-question-note")).to_have_text(
        "Not this time: the answer is B; you chose A.", timeout=FOLLOW_WITHIN * 1000)
    expect(phone.locator(".posviz-question-note")).to_have_text(
        "Right: the answer is B, and you chose B.", timeout=FOLLOW_WITHIN * 1000)
    expect(phone.locator("#posviz-announce")).to_have_text(
        "Right: the answer is B, and you chose B.")
    expect(phone_zh.locator(".posviz-question-note")).to_have_text(
        "答对了：正确答案是 B，你选了 B。", timeout=FOLLOW_WITHIN * 1000)
    expect(phone.locator(".posviz-results")).to_have_count(2)  # round 1 beside round 2
    expect(phone.locator(".posviz-results").nth(0)).to_contain_text("2 · 67%")  # A in round 1
    expect(phone.locator(".posviz-results").nth(1)).to_contain_text("2 · 67%")  # B in round 2
    expect(phone.locator(".posviz-rounds")).to_contain_text(
        "Changed their answer between the rounds: 1")
    phone.locator(".posviz-question").scroll_into_view_if_needed()
    phone.screenshot(path=artifacts / "room-phone-reveal.png")
    if os.environ.get("POSVIZ_SCREENSHOT"):  # the README's pictures
        phone.screenshot(path=ROOT / "assets" / "room-phone.png")
        lecturer.screenshot(path=ROOT / "assets" / "room-lecturer.png")

    # the predicted picture: on scene 8 the map is hidden until the class has tapped the first
    # key token 1 gives no attention (the mask's: key 2); the reveal shows the map, and the
    # projector the class's picture beside the model's
    lecturer.locator("[data-testid=stPagination] button", has_text="8").first.click()
    for student in students.values():
        shown_scene(student, 8)
        expect(student.locator('[data-poll="scene-causalpick"] .posviz-option')).to_have_count(4)
        expect(student.locator(".js-plotly-plot")).to_have_count(0)  # no map yet
    for student, key in ((laptop, 0), (phone, 2), (phone_zh, 2)):
        option = student.locator('[data-poll="scene-causalpick"] .posviz-option').nth(key)
        option.click() if student is laptop else option.tap()  # as a phone does
        expect(student.locator('[data-poll="scene-causalpick"] .posviz-option.chosen')
               ).to_have_count(1)
    pick = lecturer.get_by_role("button", name="Reveal the answer to the room").first
    pick.scroll_into_view_if_needed()
    expect(lecturer.get_by_text("Answers: 3 · students connected: 3").first).to_be_visible()
    with rerun(lecturer):
        pick.click()
    expect(lecturer.get_by_text("2 of 3 picked the right key (2).")).to_be_visible()
    lecturer.locator(".st-key-chart_picture_scene-causalpick").scroll_into_view_if_needed()
    lecturer.wait_for_function("() => document.querySelector("
                               "'.st-key-chart_picture_scene-causalpick .js-plotly-plot')")
    lecturer.screenshot(path=artifacts / "room-lecturer-picture.png")
    for student in students.values():
        expect(student.locator(".js-plotly-plot").first).to_be_attached(
            timeout=FOLLOW_WITHIN * 1000)  # the map, now
        expect(student.locator('[data-poll="scene-causalpick"] .posviz-results')).to_be_visible()
    expect(phone_zh.locator('[data-poll="scene-causalpick"] .posviz-question-text')
           ).to_contain_text("点选那个键")
    phone.screenshot(path=artifacts / "room-phone-picture.png")
    lecturer.locator("[data-testid=stPagination] button", has_text="4").first.click()
    for student in students.values():
        shown_scene(student, 4)

    # the lecturer lets students into the app: the laptop explores on its own there, at the
    # lecturer's view, then follows again
    with rerun(lecturer):
        lecturer.locator("[data-testid=stSidebar]").get_by_text(
            "Let students explore in the app").click()
    laptop.get_by_role("link", name="Explore on my own").click(timeout=ARRIVES_MS)
    laptop.wait_for_url("**/lesson?**", timeout=30_000)
    settle(laptop)
    assert "scene=4" in laptop.url and "follow=false" in laptop.url
    expect(laptop.get_by_role("switch", name="Follow the lecturer")).not_to_be_checked()
    laptop.get_by_text("Follow the lecturer").click()
    laptop.wait_for_url(f"**/_posviz/follow/{code}**", timeout=30_000)
    shown_scene(laptop, 4)

    # on a shared computer, Leave leaves no lecturer behind: the server deletes the key's cookie
    lecturer.get_by_role("button", name="Leave the room").click()
    with lecturer.expect_response(lambda r: r.url.endswith("/forget")) as forgot, \
            rerun(lecturer):
        lecturer.get_by_role("button", name="Leave, the room goes on").click()
    assert forgot.value.status == 204
    assert f"posviz_key_{code}" not in {c["name"] for c in lecturer.context.cookies()}

    assert not errors, errors
    assert lecturer.locator("[data-testid=stException]").count() == 0


def test_a_phone_with_the_code_alone_is_asked_the_projectors_word_and_its_answer_counts(
        server, browser, rooms_url):
    """A phone that typed the code, on a network whose answers by code alone are spent (a
    script on the class's address used them): its tap is answered, in Chinese, with a request
    for the projector's word; with the word, its answer counts, the same voter's. The first
    time the answer is sent, the connection drops (a replica dying behind the proxy): the
    screen sends it once more by itself."""
    store = open_rooms(rooms_url)
    code, _ = store.create()
    store.set_view(code, "", "")
    poll = store.ask(code, "Which?", ["a", "b"])
    campus = f"{code}:{store.network('127.0.0.1')}"
    script = threading.Event()

    def answering() -> None:  # a script on the class's address answers by the code, on and on
        while not script.wait(0.2):
            store.spend(CODE_VOTES, campus, force=True)
    for _ in range(CODE_VOTES.burst):
        store.spend(CODE_VOTES, campus)
    threading.Thread(target=answering, daemon=True).start()
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                has_touch=True, locale="zh-CN").new_page()
    dropped = []

    def once(route) -> None:
        if not dropped:
            dropped.append(route.request.url)
            route.abort("connectionreset")
        else:
            route.continue_()
    phone.route("**/vote?*", once)
    try:
        phone.goto(f"{server}/_posviz/follow/{code}")
        phone.wait_for_selector(".posviz-option")
        phone.locator(".posviz-option").nth(1).tap()
        expect(phone.locator(".posviz-question-note")).to_have_text(
            text("viewer.need_word", "zh", mine="B"))
        assert dropped  # sent once more after the drop, and answered: need the word
        script.set()
        field = phone.get_by_label(text("viewer.word_label", "zh").strip(" ：:"))
        field.fill("nothing-like-it")
        phone.get_by_role("button", name=text("viewer.word_submit", "zh")).tap()
        expect(phone.locator(".posviz-question-note")).to_have_text(
            text("viewer.word_wrong", "zh"))
        field.fill(signing.word(store.secret, code, time.time()).upper())
        phone.get_by_role("button", name=text("viewer.word_submit", "zh")).tap()
        expect(phone.locator(".posviz-option.chosen")).to_have_count(1)
        assert store.counts(code, poll.id) == [0, 1]
        me = {c["name"]: c for c in phone.context.cookies()}["posviz_me"]
        assert me["httpOnly"] and store.voter(code, me["value"]).present
    finally:
        script.set()
        phone.context.close()


def test_every_join_is_pressed_as_a_student_presses_it(server, browser, rooms_url):
    """The code typed as the projector shows it, then Join pressed as a student does, never
    Enter: tapped on a phone's home page (a number pad has no Return key) and in its sidebar,
    clicked on a desk, pressed with Space by a keyboard user. Each lands on the room's screen;
    a wrong code tapped is answered in words."""
    store = open_rooms(rooms_url)
    code, _ = store.create()
    store.set_view(code, "", "")
    spaced_code = f"{code[:3]} {code[3:]}"
    phone = dict(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    desk = dict(viewport={"width": 1400, "height": 1000})

    def home(context: dict, lang: str = "en"):
        page = browser.new_context(**context).new_page()
        page.goto(f"{server}/?lang={lang}")
        settle(page)
        return page

    def joined(page) -> None:
        page.wait_for_url(f"**/_posviz/follow/{code}**", timeout=ARRIVES_MS)
        page.wait_for_selector("#posviz-viewer h1", timeout=ARRIVES_MS)
        page.context.close()

    for lang, typed in (("en", "999 999"), ("en", spaced_code), ("zh", code)):
        page = home(phone, lang)
        page.locator(".st-key-room_join_home input").tap()
        page.keyboard.type(typed)
        page.locator(".st-key-room_join_home_go button").tap()
        if typed == "999 999":
            said = text("room.note.no_room", "en", code="999 999")
            expect(page.get_by_text(said)).to_be_visible()
            page.context.close()
        else:
            joined(page)
    page = home(phone)  # the sidebar's Join, on a phone
    page.locator("[data-testid=stExpandSidebarButton]").tap()
    page.locator(".st-key-room_join_side input").tap()
    page.keyboard.type(code)
    page.locator(".st-key-room_join_side_go button").tap()
    joined(page)
    page = home(desk)
    page.locator(".st-key-room_join_home input").click()
    page.keyboard.type(spaced_code)
    page.locator(".st-key-room_join_home_go button").click()
    joined(page)
    page = home(desk)  # a keyboard user: Tab to Join, then Space
    page.locator(".st-key-room_join_home input").focus()
    page.keyboard.type(code)
    tab_to(page, ".st-key-room_join_home_go button")
    page.keyboard.press("Space")
    joined(page)


def test_a_lecturer_link_leads_once_and_leaves_no_key_anywhere(server, browser, rooms_url):
    """A one-time lecturer link is answered with the same page without its token (moved into
    an HttpOnly cookie, which the page uses up): no address the tab ever showed or put in its
    history, and nothing in the page's script, holds the key or the token once used; after
    Leave, the next person at this computer is no lecturer, not even from the history. A new tab
    of the lecturer's browser offers the way back to the room it leads."""
    store = open_rooms(rooms_url)
    code, key = store.create()
    token = store.lead_link(code, key)
    link = f"{server}/lesson?scene=2&room={code}&lead={token}"
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    shown = []
    page.on("framenavigated", lambda frame: shown.append(frame.url))
    page.add_init_script(RECORD_HISTORY_JS)
    leading = page.get_by_text(f"You lead room {code[:3]} {code[3:]}")
    try:
        page.goto(link)
        settle(page)
        expect(leading).to_be_visible()
        assert "scene=2" in page.url and token not in page.url
        page.locator("[data-granted]").wait_for(state="attached")  # handed over
        script_sees = page.evaluate("() => document.cookie + document.documentElement.outerHTML")
        assert key not in script_sees and token not in script_sees
        other = page.context.new_page()  # a new tab of this browser, with no room in its link
        other.goto(f"{server}/")
        back = other.get_by_role("button", name=f"Back to room {code[:3]} {code[3:]}")
        expect(back).to_be_visible()
        back.click()
        expect(other.get_by_text(f"You lead room {code[:3]} {code[3:]}")).to_be_visible()
        other.close()
        page.get_by_role("button", name="Leave the room").click()
        with page.expect_response(lambda r: r.url.endswith("/forget")), rerun(page):
            page.get_by_role("button", name="Leave, the room goes on").click()
        histories = page.evaluate("window.posvizHistory")
        assert [url for url in shown + histories if key in url] == []
        page.reload()  # the next person at this computer
        settle(page)
        expect(leading).to_have_count(0)
        page.goto(link)  # ... opens the link from the browser's history: a student, told why
        settle(page)
        expect(page.get_by_text("That lecturer link has been used already")).to_be_visible()
        expect(leading).to_have_count(0)
        assert store.redeem(code, token) is None
    finally:
        page.context.close()


# Every address a page shows or puts into its history (pushState, replaceState), in order.
RECORD_HISTORY_JS = """(() => {
  const seen = window.posvizHistory = [location.href];
  for (const name of ["pushState", "replaceState"]) {
    const real = history[name].bind(history);
    history[name] = (state, title, url) => {
      seen.push(String(new URL(url || location.href, location.href)));
      return real(state, title, url);
    };
  }
})()"""
