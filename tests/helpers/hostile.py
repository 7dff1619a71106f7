"""Text a person can type that breaks naive code: every page must take all of it calmly.

CATEGORIES groups the inputs by what they attack; HOSTILE is all of them, in that order.
`check` says whether a page took one calmly, from what it showed (`from_document`,
`from_streamlit`).
"""

from typing import Any

from posviz.tokens import MAX_TOKENS, tokenize
from ui.blocks import walk
from ui.i18n import text
from ui.shared import OWN_TOKENIZER, VIEWER

CATEGORIES: dict[str, list[str]] = {
    # Nothing to tokenize: every page must prompt for a sentence instead of failing.
    "empty": [
        "", " ", "   ", "\t", "\n", "\r\n", "\n\n\n", " \t \n ", "\u3000", "\u00a0",
        "\u2003\u2009\u200a", "\u200b", "\u200b\u200c\u200d\u2060", "\ufeff", "\u00ad",
    ],
    # One token, the smallest sentence: a page's pairs, offsets and sliders must still make sense.
    "single": [
        "x", "刚", "a", "7", "!", "é", "😀", "🇨🇳", "ß", "\u0301", "ـ", "ㄅ", "가", "あ", "Ω",
    ],
    # Length: text far past the 64-token cut, and one token far past any label width.
    "length": [
        "刚想到了" * 2500,                          # 10,000 characters, 10,000 tokens
        "the " * 5000,                             # 5,000 identical tokens
        "x" * 5000,                                # one very long token
        "x" * 10_000,                              # 10,000 characters, one token
        "😀" * 3000,                               # 3,000 emoji tokens
        "9" * 4000,                                # one 4,000-digit number
        "a" * 200 + " " + "b" * 200,               # two long tokens
        ("Supercalifragilisticexpialidocious " * 3).strip(),
        "é" * 500,                                  # precomposed letter repeated
        "e\u0301" * 500,                            # one letter with 500 combining accents
        " ".join(f"w{i}" for i in range(64)),       # digits split words: 128 tokens
        " ".join("tok" + chr(97 + i % 26) * (1 + i // 26) for i in range(64)),  # exactly 64
        " ".join("tok" + chr(97 + i % 26) * (1 + i // 26) for i in range(65)),  # one over
        "a " * 63,                                  # 63 identical tokens
        "了" * 64,                                  # 64 identical CJK tokens
    ],
    # Combining marks: accents must stay on their letters, stacks must not blow up labels.
    "combining": [
        "cafe\u0301 nai\u0308ve e\u0301\u0302",
        "Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334\u0319\u0324\u031e\u0349\u035a"
        "\u032f\u031e\u0320\u034dA\u036b\u0357\u0334\u0362\u0335\u031c\u0330\u0354L\u0368\u0367"
        "\u0369\u0358\u0320G\u0311\u0357\u030e\u0305\u035b\u0341\u0334\u033b\u0348\u034d\u0354"
        "\u0339O\u0342\u030c\u030c\u0358\u0328\u0335\u0339\u033b\u031d\u0333",   # "zalgo"
        "\u0301\u0302\u0303 lone marks",
        "a\u0300\u0301\u0302\u0303\u0304\u0305\u0306\u0307\u0308\u0309",
        "क्षत्रिय हिन्दी",                             # Devanagari conjuncts
        "ผู้ใหญ่ ภาษาไทย",                             # Thai marks above and below
        "한국어 \u1100\u1161\u11a8",                   # Hangul, precomposed and jamo
        "\u0915\u094d\u200d\u0937",                    # virama with a joiner
        "n\u0303o\u0303 a\u030a",
        "\u20dd\u20de circle marks",
    ],
    # Zero-width and invisible characters inside and between words.
    "invisible": [
        "a\u200bb\u200d\ufeff c\x00d\x07",
        "zero\u200bwidth\u200bspace",
        "join\u200dme",
        "non\u200cjoiner",
        "word\u2060joiner",
        "soft\u00adhyphen",
        "\u2061\u2062\u2063\u2064 invisible operators",
        "tag\U000e0041\U000e0042 chars",
        "variation\ufe0e\ufe0f selectors",
        "\u180e mongolian vowel separator",
        "\u115f\u1160 hangul fillers \u3164",
        "a\u034fb grapheme joiner",
    ],
    # Emoji: ZWJ families, skin tones, flags, keycaps, tag sequences.
    "emoji": [
        "👨\u200d👩\u200d👧\u200d👦🇨🇳 👍🏽 1️⃣",
        "🏳️\u200d🌈 🏴\u200d☠️",
        "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # Scotland tag flag
        "🇺🇸🇨🇳🇯🇵🇩🇪🇫🇷",
        "🇦",                                          # a lone regional indicator
        "🇦🇧🇨",                                       # an odd number of indicators
        "#️⃣ *️⃣ 0️⃣ 9️⃣",
        "👩🏿\u200d🔬 🧑🏻\u200d🤝\u200d🧑🏿",
        "❤️ ❤ ☺️ ✌🏾",
        "😀😃😄😁😆😅😂🤣",
        "emoji😀inside😀words",
        "\u200d😀\u200d",                              # joiners around an emoji
        "🫠🫨🪿 new emoji",
    ],
    # Right to left and bidi controls: text direction must not reorder labels or break layout.
    "bidi": [
        "مرحبا بالعالم שלום",
        "\u202eabc\u202c \u2067x\u2069",
        "\u202d\u202e\u202a\u202b\u202c",
        "\u2066\u2067\u2068\u2069",
        "\u200e\u200f\u061c marks",
        "abc \u202eevil.exe\u202c txt",
        "עברית English عربي 中文",
        "العربية١٢٣ 123",
        "\u202e" * 50 + "x",
        "שָׁלוֹם עֲלֵיכֶם",                             # Hebrew with points
        "ﷺ ﷽",                                         # Arabic ligatures
    ],
    # Surrogate-like escapes and odd code points (a str from the browser is always valid UTF-8).
    "codepoints": [
        "\\ud800\\udc00 escaped surrogates",
        "\\u0000 \\x00 \\n literal escapes",
        "&#xD800; &#0; &amp; &lt;",
        "%00 %0A %E2%80%AE url escapes",
        "\ufffd replacement \ufffd",
        "\uffff\ufffe noncharacters",
        "\U0010ffff last code point",
        "\ue000\uf8ff private use",
        "\U0001d11e musical symbol",
        "\U00020000 \U0002a6d6 CJK extension B",
        "𠮷野家",
    ],
    # NUL and control characters.
    "controls": [
        "\x00",
        "a\x00b",
        "\x00" * 100,
        "\x01\x02\x03\x04\x05\x06\x07\x08",
        "bell\x07 backspace\x08 escape\x1b[31mred\x1b[0m",
        "form\x0cfeed vertical\x0btab",
        "\x7f delete \x80\x9f C1",
        "line\u2028separator\u2029paragraph",
        "carriage\rreturn",
        "\x1b]0;title\x07",
    ],
    # Full-width forms, compatibility characters and look-alikes.
    "fullwidth": [
        "ｆｕｌｌ ｗｉｄｔｈ　ｔｅｘｔ",
        "ＡＢＣ１２３！？",
        "１２３４５６７８９０",
        "，。！？：；「」『』",
        "ﾊﾝｶｸ ｶﾀｶﾅ",
        "Ⅻ ⅻ ① ⑳ ㊿",
        "ﬁ ﬂ ﬀ ligatures",
        "раураl cyrillic look-alike",
        "０.５ ＋ ０.５",
    ],
    # Mathematical alphanumerics and other astral letters.
    "math": [
        "𝐛𝐨𝐥𝐝 𝑖𝑡𝑎𝑙𝑖𝑐 𝓈𝒸𝓇𝒾𝓅𝓉",
        "𝔣𝔯𝔞𝔨𝔱𝔲𝔯 𝕕𝕠𝕦𝕓𝕝𝕖",
        "𝟘𝟙𝟚𝟛 𝟎𝟏𝟐",
        "∑∫∂√∞ ≤ ≥ ≠",
        "α β γ δ ε θ λ π σ ω",
        "x² + y³ = z⁴",
        "½ ¾ ⅓",
        "𝒜𝒷𝒸 ℂℍℕℙℚℝℤ",
    ],
    # HTML and script: must be shown as text, never run.
    "markup": [
        "<b>x</b> <script>alert(1)</script> <img src=x onerror=alert(1)>",
        "<img src=x onerror=\"window.__pwned=1\"><script>window.__pwned=2</script>",
        "<svg onload=alert(1)>",
        "<iframe src=javascript:alert(1)></iframe>",
        "<a href=\"javascript:alert(1)\">click</a>",
        "</span></div></body>",
        "<style>*{display:none}</style>",
        "\"><script>alert(document.cookie)</script>",
        "'; DROP TABLE tokens; --",
        "<!-- comment --> <![CDATA[x]]>",
        "&lt;b&gt;entity&lt;/b&gt; &#60;script&#62;",
        "{{7*7}} ${7*7} #{7*7}",
        "<math><mi>x</mi></math>",
        "<details open ontoggle=alert(1)>",
        "javascript:alert(1)",
        "<!--<script>window.__pwned=3</script>-->",
        "\u2028</script>\u2029<script>window.__pwned=4</script>",
    ],
    # Markdown syntax: must not turn into headings, bold, code or links.
    "markdown": [
        "$\\frac{1}{2}$ **bold** `code` # head [a](b)",
        "**bold** __under__ *it* _em_",
        "`code` ``double`` ```fence```",
        "# heading",
        "> quote\n- item\n1. one",
        "[link](http://example.com) ![img](x)",
        "| a | b |\n|---|---|",
        "~~strike~~ ==mark==",
        ":material/home: :smile:",
        ":red[colored] :blue-background[x]",
        "\\* escaped \\_ marks",
        "---",
        "***",
        "- [ ] task",
    ],
    # LaTeX syntax, alone and inside dollars.
    "latex": [
        "$\\frac{}{}$",
        "$$\\int_0^1 x\\,dx$$",
        "\\(x\\) \\[y\\]",
        "$x^2$ and $y_1$",
        "\\begin{matrix} a & b \\end{matrix}",
        "$\\unknowncommand{x}$",
        "$",
        "$$",
        "$\\$",
        "\\newcommand{\\x}{y} \\x",
        "{ } { } \\",
        "% comment ^ _ &",
    ],
    # Mixed scripts and the lesson's own sentences.
    "mixed": [
        "我 love 刚想到了!",
        "刚想到了", "了到想刚",
        "dog bites man",
        "the dog chased the dog",
        "日本語とEnglishの混在",
        "Ελληνικά кириллица ქართული",
        "3.14159 1,000,000 -5 1e10",
        "don't can't won't",
        "e-mail well-known",
        "C++ C# F#",
        "a.b.c?d!e",
    ],
}



def _alternating(text: str) -> str:
    """Every other letter in upper case: </ScRiPt>, which HTML reads as </script>."""
    return "".join(c.upper() if i % 2 else c.lower() for i, c in enumerate(text))


def _entities(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&#x3C;").replace(">", "&#62;")


def _percent(text: str) -> str:
    return text.replace("%", "%25").replace("<", "%3C").replace(">", "%3E").replace('"', "%22")


def _variants(samples: list[str]) -> list[str]:
    """Case and encoding variants of each markup sample (a renderer that escapes only
    `</script` in lower case, or that decodes entities or %-escapes, runs them): in upper case
    with a space before the closing bracket of its end tags, in alternating case, as HTML
    entities and %-escaped; none twice, none a sample itself."""
    made = [variant(text) for text in samples for variant in (
        lambda t: t.upper().replace("</SCRIPT>", "</SCRIPT >"), _alternating, _entities,
        _percent)]
    return [text for text in dict.fromkeys(made) if text not in samples]


CATEGORIES["markup_variants"] = _variants(CATEGORIES["markup"])
HOSTILE: list[str] = [text for group in CATEGORIES.values() for text in group]


RENDERED = ("title", "header", "subheader", "markdown", "caption", "latex", "info", "warning",
            "error", "success")  # elements that read Markdown (or LaTeX)
MARKDOWN_BLOCKS = ("heading", "markdown", "caption", "note")  # blocks the screens read so


def check(where: str, typed: str, lang: str, shown: dict[str, Any],
          prose: list[str], page: str | None) -> None:
    """The empty prompt and the cut notice exactly when due (never on a page that reads the
    sentence with a tokenizer of its own and says itself where that cuts); the typed text in
    no Markdown element unless the page's own words hold it anyway (prose: drawn for another
    sentence)."""
    n = len(tokenize(typed))
    if n == 0:  # in the app's words, or a document's (a screen without the sidebar)
        prompt = text("common.empty" + ("" if shown["controls"] else VIEWER), lang)
        assert prompt in shown["info"], f"{where}: no empty prompt"
    clipped = text("common.clipped", lang, kept=MAX_TOKENS, total=n)
    due = n > MAX_TOKENS and page not in OWN_TOKENIZER
    assert (clipped in shown["warning"]) == due, \
        f"{where}: the notice that the text was cut is missing or wrong"
    if len(typed.strip()) >= 6 and not any(typed.strip() in value for value in prose):
        assert not any(typed.strip() in value for value in shown["rendered"]), \
            f"{where}: in Markdown"


def from_document(blocks: list[dict]) -> dict[str, Any]:
    """A document's notes by kind, and every text the screens render as Markdown."""
    out: dict[str, Any] = {"info": [], "warning": [], "rendered": [], "controls": False}
    for block in walk(blocks):
        if block["t"] == "note" and block["kind"] in out:
            out[block["kind"]].append(block["text"])
        if block["t"] in MARKDOWN_BLOCKS:
            out["rendered"].append(block["text"])
        if block["t"] == "question":
            out["rendered"] += [block["lead"], block["text"]]
    return out


def from_streamlit(at) -> dict[str, Any]:
    notes = {kind: [e.value for e in getattr(at, kind)] for kind in ("info", "warning")}
    return notes | {"rendered": [e.value for kind in RENDERED for e in getattr(at, kind)],
                    "controls": True}
