"""The JavaScript that tools/build_pdf.py runs in each part of the book before printing it.

``FIT_JS(column)``: in the print layout (print media emulated at the width of the printed text
column, in CSS px), sets every display formula and table that is wider than the column in a
smaller font until it fits (a formula down to 55 % of its size, a table down to 60 %, after its
cells may wrap), then measures every block of the article and returns what still sticks out
(``over``) with what was changed: the build fails unless ``over`` is empty.
"""

FIT_JS = r"""
((column) => {
  const article = document.querySelector('article.bd-article') || document.body;
  const left = article.getBoundingClientRect().left;
  const right = left + column;
  const where = el => {
    const sec = el.closest('section[id]');
    return (sec ? sec.id : '?') + ': ' + (el.textContent || '').trim().slice(0, 60);
  };
  const sticksOut = el => el.getBoundingClientRect().right > right + 0.5
                          || el.scrollWidth > el.clientWidth + 1;
  const changed = [];
  for (const el of article.querySelectorAll('mjx-container[display="true"]')) {
    if (!sticksOut(el)) continue;
    let f = 1;
    while (f > 0.55 && sticksOut(el)) {
      f = Math.round((f - 0.03) * 100) / 100;
      el.style.fontSize = (100 * f).toFixed(0) + '%';
    }
    changed.push({kind: 'formula', where: where(el), scale: f});
  }
  for (const el of article.querySelectorAll('table')) {
    if (!sticksOut(el) && !(el.parentElement && sticksOut(el.parentElement))) continue;
    el.querySelectorAll('td, th').forEach(c => { c.style.overflowWrap = 'anywhere'; });
    let f = 1;
    while (f > 0.6 && (sticksOut(el) || sticksOut(el.parentElement))) {
      f = Math.round((f - 0.05) * 100) / 100;
      el.style.fontSize = (100 * f).toFixed(0) + '%';
    }
    changed.push({kind: 'table', where: where(el), scale: f});
  }
  const over = [];
  const blocks = 'mjx-container[display="true"], table, pre, img, svg, figure, p, li, dl, ' +
                 'blockquote, .cell_output, .output, .admonition, .proof, .highlight';
  for (const el of article.querySelectorAll(blocks)) {
    if (el.closest('#jb-print-docs-body')) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const clipped = el.scrollWidth > el.clientWidth + 1
                    && getComputedStyle(el).overflowX !== 'visible';
    if (r.right > right + 1 || clipped) {
      over.push({tag: el.tagName.toLowerCase(), where: where(el),
                 width: Math.round(Math.max(r.right - left, el.scrollWidth))});
    }
  }
  return JSON.stringify({column: column, article: article.getBoundingClientRect().width,
                         changed: changed, over: over.slice(0, 40), n_over: over.length});
})
"""
