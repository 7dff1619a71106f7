"""The guided lesson as a live handout, written without a server: one HTML file that opens from
disk (a course page, a USB stick, a phone) with every scene for the given sentence, and a
sentence box whose live figures the reader's own browser computes for any sentence typed
(ui.documents.lesson_file; assets/viewer/src/viewer/live.js).

    python -m ui.handout --lang zh --out lesson.html
    python -m ui.handout --lang en --text "the cat sat on the mat" --position off --out cat.html
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from urllib.parse import urlencode

from ui import documents
from ui.i18n import LANGS
from ui.shared import DEFAULT_TEXT


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(prog="python -m ui.handout", description=__doc__.split(
        "\n\n")[0])
    parser.add_argument("--lang", choices=sorted(LANGS), default="en")
    parser.add_argument("--text", default=DEFAULT_TEXT, help="the lesson's own sentence")
    parser.add_argument("--position", choices=("on", "off"), default="on",
                        help="the position switch the scenes are drawn with")
    parser.add_argument("--out", type=Path, default=None,
                        help="the file to write (default: posviz-lesson-<lang>.html)")
    args = parser.parse_args(argv)
    out = args.out or Path(f"posviz-lesson-{args.lang}.html")
    # the app's caches, used here without a server, say so once per cache: nothing is wrong
    logging.getLogger("streamlit.runtime.caching.cache_data_api").setLevel(logging.ERROR)
    query = urlencode({"text": args.text, "pos": str(args.position == "on").lower()})
    out.write_bytes(documents.lesson_file(query, args.lang))
    return out


if __name__ == "__main__":
    print(main())
