// The colour theme: the system's preference unless the reader picked one
// with the toggle, which is remembered. A classic script in <head>, so the
// chosen theme applies before the first paint.
(function () {
  var key = "tablelab-theme";
  var root = document.documentElement;
  var saved = null;
  try { saved = localStorage.getItem(key); } catch (e) { /* storage may be off */ }
  if (saved === "light" || saved === "dark") root.dataset.theme = saved;

  function current() {
    if (root.dataset.theme) return root.dataset.theme;
    return window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }

  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("theme-toggle");
    if (!button) return;
    function label() {
      var dark = current() === "dark";
      button.textContent = dark ? "Light theme" : "Dark theme";
      button.setAttribute("aria-pressed", String(dark));
    }
    button.hidden = false;
    label();
    button.addEventListener("click", function () {
      var next = current() === "dark" ? "light" : "dark";
      root.dataset.theme = next;
      try { localStorage.setItem(key, next); } catch (e) { /* not remembered */ }
      label();
    });
    window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", label);
  });
})();
