/* dadp-book: layout for narrow and wide content (dadp_book/sphinx_ext.py loads it on every
   page).
   - Content wider than its column (a long display formula on a phone, a wide table)
     scrolls inside its own box. Such a box gets keyboard focus (tabindex), a name for
     screen readers and the class dadp-scrolls, whose shadows (_static/dadp.css) show that
     there is more to the side. Run after MathJax has typeset and on every resize.
   - A prose table of four columns or more (the errata's list of findings) becomes one card
     per row on a phone: each cell carries its column's name (data-label), and the class
     dadp-stack lets _static/dadp.css stack the cells below 600 px, so no column is hidden
     off-screen. */
(function () {
  "use strict";
  var SELECTOR = "main mjx-container[display='true'], main div.math, "
    + "main div.cell_output div.output, main div.pst-scrollable-table-container, "
    + "main div.highlight pre, main div.table-wrapper";
  function label(box) {
    if (box.matches("mjx-container, div.math")) return "Formula, scrolls sideways";
    if (box.querySelector("table")) return "Table, scrolls sideways";
    return "Wide content, scrolls sideways";
  }
  function mark() {
    document.querySelectorAll(SELECTOR).forEach(function (box) {
      var style = getComputedStyle(box);
      var scrolls = ["auto", "scroll"].indexOf(style.overflowX) >= 0
        && box.scrollWidth > box.clientWidth + 1;
      if (scrolls && !box.classList.contains("dadp-scrolls")) {
        box.classList.add("dadp-scrolls");
        if (!box.hasAttribute("tabindex")) {
          box.setAttribute("tabindex", "0");
          box.dataset.dadpTabindex = "1";
        }
        if (!box.hasAttribute("role")) box.setAttribute("role", "region");
        if (!box.hasAttribute("aria-label")) box.setAttribute("aria-label", label(box));
      } else if (!scrolls && box.classList.contains("dadp-scrolls")) {
        box.classList.remove("dadp-scrolls");
        if (box.dataset.dadpTabindex) {
          box.removeAttribute("tabindex");
          delete box.dataset.dadpTabindex;
        }
      }
    });
  }
  function afterMath(tries) {
    var startup = window.MathJax && MathJax.startup && MathJax.startup.promise;
    if (startup) { startup.then(mark); return; }
    if (!document.querySelector(".math") || tries > 200) { mark(); return; }
    setTimeout(function () { afterMath(tries + 1); }, 50);
  }
  function stackTables() {
    document.querySelectorAll("main table.table:not(.dadp-table)").forEach(function (table) {
      var heads = Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) {
        return th.textContent.trim();
      });
      if (heads.length < 4) return;
      table.classList.add("dadp-stack");
      table.querySelectorAll("tbody tr").forEach(function (row) {
        Array.prototype.forEach.call(row.children, function (cell, i) {
          if (heads[i]) cell.setAttribute("data-label", heads[i]);
        });
      });
    });
  }
  function start() {
    stackTables();
    afterMath(0);
    var timer = null;
    window.addEventListener("resize", function () {
      clearTimeout(timer);
      timer = setTimeout(mark, 150);
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
  window.dadpMarkScrolling = mark;
})();
