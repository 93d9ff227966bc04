// On a narrow screen each group of the navigation is one line that
// scrolls sideways: bring the current page's link into that line's view,
// without moving the page itself.
const current = document.querySelector('.site-nav a[aria-current="page"]');
const line = current?.closest("ul");
if (current && line && line.scrollWidth > line.clientWidth) {
  line.scrollLeft = current.offsetLeft - line.offsetLeft - (line.clientWidth - current.offsetWidth) / 2;
}
