"""Text a person can type that breaks naive code: every page must take all of it calmly."""

HOSTILE = [
    "",
    "   ",
    "x",
    "刚",
    "刚想到了" * 2500,                      # 10,000 characters
    "cafe\u0301 nai\u0308ve e\u0301\u0302",  # combining marks
    "مرحبا بالعالم שלום",                    # right to left
    "\u202eabc\u202c \u2067x\u2069",         # bidi controls
    "<b>x</b> <script>alert(1)</script> <img src=x onerror=alert(1)>",
    "$\\frac{1}{2}$ **bold** `code` # head [a](b)",
    "👨\u200d👩\u200d👧\u200d👦🇨🇳 👍🏽 1️⃣",
    "我 love 刚想到了!",
    "a\u200bb\u200d\ufeff c\x00d\x07",
    "x" * 5000,                              # one very long token
    "the " * 5000,                           # 5,000 identical tokens
]
