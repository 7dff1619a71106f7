"""Typed text shown exactly as typed: no Markdown, LaTeX or HTML in it survives."""


def entities(typed: str) -> str:
    """Every character as an HTML entity, for st.html."""
    return "".join(f"&#{ord(c)};" for c in typed)
