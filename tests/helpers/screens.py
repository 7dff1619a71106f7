"""The three screens a room uses (a desk, a projector in presentation mode, a phone), as the
screen sweep and the accessibility audit open them."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Screen:
    name: str
    width: int
    height: int
    min_font: float  # pixels: no text of a chart smaller
    query: dict[str, str] = field(default_factory=dict)
    phone: bool = False  # a touch screen with a phone's viewport

    def context(self, browser, dark: bool):
        return browser.new_context(
            viewport={"width": self.width, "height": self.height}, is_mobile=self.phone,
            has_touch=self.phone, color_scheme="dark" if dark else "light")


SCREENS = [Screen("desk", 1400, 1000, 11), Screen("projector", 1280, 720, 16, {"present": "true"}),
           Screen("phone", 390, 844, 11, phone=True)]


# Whether the page is drawn on a dark background (the theme follows the browser's preference).
DARK_JS = """() => getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor
  .match(/\\d+/g).slice(0, 3).reduce((sum, v) => sum + Number(v), 0) < 3 * 128"""
