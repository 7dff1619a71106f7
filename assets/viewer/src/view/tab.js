// What the view's elements (page, view, announce: one module, static/view.js) keep for the tab.

export const tab = {
  view: undefined,  // what the reader sees ("lesson/4"), as the view element last said
  keys: null,       // the view's next, back and reveal buttons (CSS selectors), or none
  pager: null,      // what a screen reader hears for the page's st.pagination, or none
  formulas: null,   // the selector of the page's formulas, as the page element last said
  holding: null,    // the hold of a new view at its top, while it lasts
  announced: null,  // what was last said to a screen reader on this view
};
