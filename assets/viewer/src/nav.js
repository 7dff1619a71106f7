// The sidebar on a phone: a tap on one of its page links closes it, as Streamlit's own page
// navigation does, so that the page the link opens is seen rather than the sidebar over it.
// On a wider screen, where the sidebar stands beside the page, it stays open. Once per tab;
// draws nothing.

const SIDEBAR = "[data-testid=stSidebar]";
const CLOSE = "[data-testid=stSidebarCollapseButton] button";
const OVERLAID = "(max-width: 767.98px)";  // Streamlit's sidebar covers the page below this

let watching = false;

function closeAfterLink(event) {
  const link = event.target.closest(`${SIDEBAR} a[href]`);
  if (!link || !window.matchMedia(OVERLAID).matches) return;
  setTimeout(() => {  // after the link's own handler has started the page's switch
    const close = document.querySelector(CLOSE);
    if (close && document.querySelector(SIDEBAR)?.dataset.collapsed === "false") close.click();
  }, 0);
}

export default function () {
  if (!watching) {
    document.addEventListener("click", closeAfterLink);
    watching = true;
  }
}
