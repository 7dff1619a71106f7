"""The three screens a room uses (a desk and a projector in presentation mode, which show the
lecturer's app, and a student's phone), as the screen sweep, the viewer's check and the
accessibility audit open them, and the width a chart is drawn at on each.

A chart is as wide as its place in Streamlit's main column: the column itself (`main` pixels on
the screen), less a bordered box's padding and border (a rem each side), shared with the other
columns of its row less their gaps (a rem each; by the shares the row declares, equally where it
declares none), or, on a screen narrower than 640 px, the whole row's width (Streamlit stacks
columns there). The screen sweep holds Streamlit to this rule on
every page it opens; the viewer's check lays the viewer out by it and holds it to it too, so that
each chart is checked at the width the app draws it at.
"""

from __future__ import annotations

from dataclasses import dataclass, field

STACKED_BELOW = 640  # px: a window narrower stacks a row's columns (Streamlit's own breakpoint)


@dataclass(frozen=True)
class Screen:
    name: str
    width: int
    height: int
    min_font: float  # pixels: no text of a chart smaller
    main: int  # pixels: Streamlit's main column on this screen
    query: dict[str, str] = field(default_factory=dict)
    phone: bool = False  # a touch screen with a phone's viewport
    rem: int = 16  # pixels: the root font size (presentation mode's is larger)
    lecturer: bool = True  # the lecturer's app draws it (a desk, a projector), else a room's
    # follower (the viewer, on a student's phone)

    @property
    def room(self) -> bool:
        """Whether the figures are enlarged for the room (presentation mode)."""
        return self.query.get("present") == "true"

    def context(self, browser, dark: bool):
        return browser.new_context(
            viewport={"width": self.width, "height": self.height}, is_mobile=self.phone,
            has_touch=self.phone, color_scheme="dark" if dark else "light")

    def rule(self) -> list:
        """WIDTHS_JS's argument for this screen."""
        return [self.main, self.rem, self.width < STACKED_BELOW]


SCREENS = [Screen("desk", 1400, 1000, 11, 940),
           Screen("projector", 1280, 720, 16, 1170, {"present": "true"}, rem=22),
           Screen("phone", 390, 844, 11, 358, phone=True, lecturer=False)]


# Whether the page is drawn on a dark background (the theme follows the browser's preference).
DARK_JS = """() => getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor
  .match(/\\d+/g).slice(0, 3).reduce((sum, v) => sum + Number(v), 0) < 3 * 128"""

# Each chart in root whose place is not as wide as the rule says (module docstring), within a
# pixel: its name, its place's width and the rule's. Columns are Streamlit's (the viewer names
# its own so too); a bordered box is any element with a left border between the chart and root.
WIDTHS_JS = r"""([root, [main, rem, stacked]]) => {
  const top = document.querySelector(root);
  return [...top.querySelectorAll('.posviz-chart')].filter((c) => c.offsetParent !== null)
    .flatMap((chart) => {
    const host = chart.parentElement;
    const outer = [];
    for (let e = host.parentElement; e && e !== top; e = e.parentElement) outer.unshift(e);
    let width = main;
    for (const e of outer) {
      if (e.matches('[data-testid=stColumn]') && !stacked) {
        const row = [...e.parentElement.children].filter(
          (c) => c.matches('[data-testid=stColumn]'));
        const n = row.length;
        // a column's share as Streamlit declares it (flex-basis: calc(P% - gap)), an equal
        // share where none is declared; what the bases leave is shared equally
        const share = (c) => {
          const declared = /calc\(([\d.]+)%/.exec(getComputedStyle(c).flexBasis);
          return declared ? Number(declared[1]) / 100 : 1 / n;
        };
        const bases = row.map((c) => share(c) * width - rem);
        const left = width - bases.reduce((a, b) => a + b, 0) - (n - 1) * rem;
        width = bases[row.indexOf(e)] + left / n;
      }
      if (parseFloat(getComputedStyle(e).borderLeftWidth) > 0) width -= 2 * rem;
    }
    const drawn = host.getBoundingClientRect().width;
    return Math.abs(drawn - width) > 1 ? [[chart.dataset.name, drawn, width]] : [];
  });
}"""
