// Streamlit's frontend answers an address that names no page with its own dialog, in English,
// and runs the home page in its place; the home page says it in the reader's language
// (app.py) and closes that dialog, for the few seconds it may take to appear.
const close = () => [...document.querySelectorAll("[role=dialog]")]
  .filter((dialog) => dialog.querySelector("h2")?.textContent === "Page not found")
  .forEach((dialog) => dialog.querySelector("button[aria-label=Close]")?.click());

export default function () {
  close();
  const watch = new MutationObserver(close);
  watch.observe(document.body, { childList: true, subtree: true });
  setTimeout(() => watch.disconnect(), 3000);
}
