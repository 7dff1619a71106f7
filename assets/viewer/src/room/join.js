// A room's join field (ui.room.join_box, on the home page and in the sidebar) shows a phone's
// number pad: the app draws a text field, which Streamlit gives no inputmode. The page element
// (view/page.js) applies it as the page changes.

export function numberPads(scope) {
  scope.querySelectorAll('[class*="st-key-room_join"] input').forEach((input) => {
    if (input.inputMode !== "numeric") input.inputMode = "numeric";
  });
}
