/* dadp-book: previews on a touch screen (dadp_book/sphinx_tips.py).
   sphinx-tippy gives links previews that show on hover and on keyboard focus. A phone has
   no hover, and a tap would follow the link at once: here the first tap on a link with a
   preview shows the preview, a second tap on the same link follows it, and a tap anywhere
   else closes it. */
(function () {
  "use strict";
  var touched = null;      // the link under the finger, and whether its preview was open
  document.addEventListener("pointerdown", function (event) {
    var link = event.target.closest ? event.target.closest("a[href]") : null;
    touched = event.pointerType === "touch" && link && link._tippy
      ? { link: link, open: link._tippy.state.isVisible && link.dataset.dadpTapped === "1" }
      : null;
  }, true);
  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a[href]") : null;
    if (!touched || !link || touched.link !== link) return;
    if (touched.open) return;                      // second tap: follow the link
    event.preventDefault();
    document.querySelectorAll("a[data-dadp-tapped]").forEach(function (other) {
      if (other !== link) {
        delete other.dataset.dadpTapped;
        if (other._tippy) other._tippy.hide();
      }
    });
    link.dataset.dadpTapped = "1";
    link._tippy.show();
  }, true);
})();
