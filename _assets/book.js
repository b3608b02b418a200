// The book's page script (every page, deferred; no library).
//  - A formula wider than its column scrolls sideways (book.css); here it also takes the
//    keyboard focus (tabindex="0"), so it can be scrolled without a mouse, and stops taking
//    it when the window is wide enough again.  The same for code blocks, cell outputs, the
//    rows of a printed table (_ext/output_rows.py) and tables that overflow (the theme's own
//    version of this measured the whole page after every change: _ext/book_html.py removes
//    it).
//  - Printing opens every folded <details> (hidden code, solutions) and closes them again
//    afterwards, and scales a formula wider than the printed column to fit it.
//  - sphinx-copybutton has no Korean messages ("Copy", "Copied!"), and sphinx-togglebutton
//    labels its buttons "Toggle hidden content": they get Korean here.
(() => {
  "use strict";
  const COPY = {
    "Copy": "복사", "Copied!": "복사했습니다", "Failed to copy": "복사하지 못했습니다",
    "Copy to clipboard": "클립보드에 복사",
  };

  function korean(button) {
    const tip = button.getAttribute("data-tooltip");
    if (tip in COPY) button.setAttribute("data-tooltip", COPY[tip]);
    // the button's content is an icon titled in English ("Copy to clipboard", "Copied!"):
    // its name is given here
    const done = tip === "Copied!" || tip === COPY["Copied!"];
    button.setAttribute("aria-label", done ? "복사했습니다" : "코드 복사");
    const img = button.querySelector("img");
    if (img && img.alt in COPY) img.alt = COPY[img.alt];
  }

  function toggleButtons() {
    for (const b of document.querySelectorAll('button.toggle-button[aria-label="Toggle hidden content"]')) {
      b.setAttribute("aria-label", "숨긴 내용 펼치기/접기");
    }
  }

  function copyButtons() {
    const buttons = document.querySelectorAll("button.copybtn");
    buttons.forEach(korean);
    const watch = new MutationObserver((changes) => changes.forEach((c) => korean(c.target)));
    buttons.forEach((b) => watch.observe(b, { attributes: true, attributeFilter: ["data-tooltip"] }));
  }
  // The theme's blocks (pydata-sphinx-theme's addTabStopsToScrollableElements) and formulas.
  // Tables are not measured: the build makes every table container a focusable region.
  const BLOCKS = "pre, pre .attn-rows, .cell_output > .output, .jp-RenderedHTMLCommon";
  const SCROLLERS = `div.math > .katex-display, span.math, ${BLOCKS}`;
  const printMedia = window.matchMedia("print");

  function mark(el) {
    if (printMedia.matches) {  // on paper a formula is fitted, not scrolled
      if (el.matches("div.math > .katex-display")) fit(el, true);
      return;
    }
    let scrolls;
    if (el.matches(BLOCKS)) {
      // a tab stop where it overflows; none where it does not (no tabindex=-1: a block
      // measured before it was laid out would keep a stop taken away when it overflows later)
      scrolls = el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight;
    } else if (el.matches("span.math")) {
      // the theme clips an inline formula at its line's width: one that is wider scrolls
      // instead (a pixel or two is a sub- or superscript's overhang: book.css lets it show)
      scrolls = el.scrollWidth > el.clientWidth + 3;
      el.classList.toggle("math-scroll", scrolls);
    } else {
      scrolls = el.scrollWidth > el.clientWidth;
    }
    if (scrolls && !el.hasAttribute("tabindex")) {
      el.setAttribute("tabindex", "0");
      el.dataset.bookScroll = "";
    } else if (!scrolls && "bookScroll" in el.dataset) {
      el.removeAttribute("tabindex");
      delete el.dataset.bookScroll;
    }
  }

  // Measuring a formula lays it out.  The article's blocks are laid out only near the screen
  // (content-visibility in book.css), so the formulas are measured after the page has loaded,
  // a batch at a time in idle moments: the first explorer is not kept waiting for a layout of
  // the whole page.
  const idle = window.requestIdleCallback
    || ((f) => setTimeout(() => { const t = performance.now() + 8; f({ timeRemaining: () => t - performance.now() }); }, 1));
  // <html data-book-formulas="measuring"> until every formula has been measured ("measured").
  document.documentElement.dataset.bookFormulas = "measuring";
  let queue = null;
  function schedule() {
    if (queue) return;
    document.documentElement.dataset.bookFormulas = "measuring";
    queue = [...document.querySelectorAll(SCROLLERS)];
    idle(step);
  }
  function step(deadline) {
    while (queue.length && deadline.timeRemaining() > 2) mark(queue.shift());
    if (queue.length) {
      idle(step);
    } else {
      queue = null;
      document.documentElement.dataset.bookFormulas = "measured";
    }
  }

  // On paper a formula cannot scroll: one wider than the printed column is scaled to fit.
  function fit(el, printing) {
    el.style.zoom = "";
    if (printing && el.scrollWidth > el.clientWidth + 1) {
      el.style.zoom = Math.floor((100 * el.clientWidth) / el.scrollWidth) / 100;
    }
  }
  function fitFormulas(printing) {
    document.querySelectorAll("div.math > .katex-display").forEach((el) => fit(el, printing));
  }

  const opened = [];
  window.addEventListener("beforeprint", () => {
    for (const d of document.querySelectorAll("details:not([open])")) {
      d.open = true;
      opened.push(d);
    }
  });
  window.addEventListener("afterprint", () => {
    while (opened.length) opened.pop().open = false;
    fitFormulas(false);
  });
  printMedia.addEventListener("change", () => {
    fitFormulas(printMedia.matches);
    // and again at the next frame, once the page is laid out for the new medium
    requestAnimationFrame(() => fitFormulas(printMedia.matches));
    schedule();
  });

  // Each formula is watched once the page has loaded: its width changes with the window, the
  // fonts, a print preview.
  let watching = false;
  function watch() {
    watching = true;
    schedule();
    if (!window.ResizeObserver) return;
    const observer = new ResizeObserver((entries) => entries.forEach((e) => mark(e.target)));
    idle(() => document.querySelectorAll(SCROLLERS).forEach((el) => observer.observe(el)));
  }

  // Widths change with the window and as fonts arrive; before the first measuring has begun
  // (a second after load) there is nothing to measure again: `watch` measures them all then.
  // (fonts.ready resolves about when the page loads: scheduling then would lay formulas out
  // just as the reader's first move comes.)
  const again = () => { if (watching) schedule(); };
  window.addEventListener("resize", again);

  function loaded() {
    // Widths change as fonts arrive.  Asked for here, not when this script runs: reading
    // document.fonts.ready lays the page out at once (53 ms on chapter 3, before its first
    // frame, in the middle of the deferred scripts: docs/DESIGN.md, "The first explorer").
    if (document.fonts) document.fonts.ready.then(again);
    setTimeout(watch, 1000);  // a second for the reader's first move before any measuring
    setTimeout(() => {  // after sphinx-copybutton and sphinx-togglebutton have added theirs
      copyButtons();
      toggleButtons();
    }, 0);
  }
  if (document.readyState === "complete") loaded();
  else window.addEventListener("load", loaded);
})();
