"""The JavaScript that tools/build_pdf.py runs in the single-page book before printing it.

Each constant is a function expression; build_pdf.py calls it with its arguments.

- ``FIT_JS(column)``: in the print layout (print media emulated at the width of the printed text
  column, in CSS px), sets every display formula and table that is wider than the column in a
  smaller font until it fits (a formula down to 55 % of its size, a table down to 60 %, after its
  cells may wrap), then measures every block of the article and returns what still sticks out
  (``over``) with what was changed: the build fails unless ``over`` is empty.
- ``TOC_JS()``: turns Jupyter Book's printed contents (``#jb-print-toc``) into a contents with
  page numbers: every entry links to its heading (given a unique id) and gets an empty box of fixed
  width for its page number, filled after the first printing; every subsection heading gets an
  invisible link too, so that the PDF has a named destination for each heading (Chromium writes
  destinations only for targets of links). Returns the outline: ``[level, title, id]`` in the
  book's order, titles as plain text (a formula as its TeX source).
- ``FILL_JS(pages)``: writes the page numbers (``{id: page}``) into the boxes and returns a small
  page: the contents alone, in the same containers and with the same style sheets, its body of
  class ``pdf-page-numbers-only`` (print.css then shows only the numbers). Printed, it gives pages
  with only the numbers on them, in their places, to be laid over the contents pages.
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

TOC_JS = r"""
(() => {
  const toc = document.querySelector('#jb-print-toc');
  if (!toc) throw new Error('no #jb-print-toc in the single-page book');
  let n = 0;
  const idOf = heading => {
    // A heading not shown in print (the introduction's title) is found by its section.
    if (heading.getClientRects().length === 0) heading = heading.parentElement;
    if (!heading.dataset.pdfId) {
      heading.dataset.pdfId = 'pdf-h' + (n++);
      heading.id = heading.id || heading.dataset.pdfId;
    }
    return heading.id;
  };
  const math = new Map();
  if (window.MathJax && MathJax.startup && MathJax.startup.document) {
    for (const item of MathJax.startup.document.math) {
      if (item.typesetRoot) math.set(item.typesetRoot, item.math);
    }
  }
  const plain = heading => {
    const copy = heading.cloneNode(true);
    copy.querySelectorAll('.headerlink').forEach(e => e.remove());
    const originals = heading.querySelectorAll('mjx-container');
    copy.querySelectorAll('mjx-container').forEach((e, i) => {
      e.replaceWith(document.createTextNode(math.get(originals[i]) || e.textContent));
    });
    return copy.textContent.replace(/\s+/g, ' ').trim();
  };
  const headingOf = target => {
    let el = target;
    while (el && el.tagName !== 'SECTION') el = el.nextElementSibling;
    return el ? el.querySelector(':scope > h1, :scope > h2, :scope > h3, :scope > h4') : null;
  };
  const outline = [];
  const hidden = document.createElement('div');
  hidden.className = 'pdf-destinations';
  // A heading in the outline, and its document's own subsections (not the documents it contains).
  const withSubsections = (level, heading) => {
    outline.push([level, plain(heading), idOf(heading), heading]);
    for (const sub of heading.parentElement.querySelectorAll(
        ':scope > section > :is(h2, h3, h4, h5)')) {
      const a = document.createElement('a');
      a.href = '#' + idOf(sub);
      hidden.appendChild(a);
      outline.push([level + 1, plain(sub), idOf(sub), sub]);
    }
  };
  const intro = document.querySelector('article.bd-article section > h1');
  if (intro) {
    const a = document.createElement('a');
    a.href = '#' + idOf(intro);
    hidden.appendChild(a);
    withSubsections(1, intro);
  }
  for (const link of toc.querySelectorAll('li > a[href^="#"]')) {
    const li = link.parentElement;
    const level = parseInt((li.className.match(/toctree-l(\d)/) || [0, 1])[1], 10);
    const target = document.getElementById(decodeURIComponent(link.getAttribute('href').slice(1)));
    const heading = target ? headingOf(target) : null;
    if (!heading) throw new Error('no heading for the contents entry ' + link.textContent);
    const id = idOf(heading);
    link.setAttribute('href', '#' + id);
    const title = document.createElement('span');
    title.className = 'pdf-toc-title';
    while (link.firstChild) title.appendChild(link.firstChild);
    const leader = document.createElement('span');
    leader.className = 'pdf-toc-leader';
    const page = document.createElement('span');
    page.className = 'pdf-toc-page';
    page.dataset.target = id;
    link.append(title, leader, page);
    link.classList.add('pdf-toc-link');
    withSubsections(level, heading);
  }
  toc.appendChild(hidden);
  const order = (a, b) => a[3] === b[3] ? 0 :
    (a[3].compareDocumentPosition(b[3]) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1);
  outline.sort(order);
  return JSON.stringify(outline.map(([level, title, id]) => [level, title, id]));
})
"""

FILL_JS = r"""
((pages) => {
  for (const box of document.querySelectorAll('.pdf-toc-page')) {
    box.textContent = String(pages[box.dataset.target] || '');
  }
  // The contents alone, in the same containers and with the same style sheets (no scripts).
  const attrs = el => [...el.attributes].map(a =>
    a.name + '="' + a.value.replace(/&/g, '&amp;').replace(/"/g, '&quot;') + '"').join(' ');
  const keep = document.querySelector('#jb-print-docs-body');
  let html = keep.outerHTML;
  for (let el = keep.parentElement; el !== document.documentElement; el = el.parentElement) {
    const tag = el.tagName.toLowerCase();
    html = '<' + tag + ' ' + attrs(el) + '>' + html + '</' + tag + '>';
  }
  const head = document.head.cloneNode(true);
  head.querySelectorAll('script').forEach(e => e.remove());
  return '<!DOCTYPE html><html ' + attrs(document.documentElement) + '>' + head.outerHTML
         + html.replace(/^<body([^>]*?)class="/, '<body$1class="pdf-page-numbers-only ')
               .replace(/^<body(?![^>]*class=)/, '<body class="pdf-page-numbers-only"')
         + '</html>';
})
"""
