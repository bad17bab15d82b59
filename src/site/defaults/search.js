// The search box of a retrylab site. The build writes an index of every page's headings
// and prose into pagefind/ (Pagefind's indexing library); this script asks it through
// Pagefind's own search script, which it loads only when the reader first opens the box,
// and which then loads only the chunks of the index a query needs. Each result opens its
// page at the heading of the section that matches best.
//
// `/` opens the box from anywhere on the page; Escape clears it, then leaves it; the
// arrow keys move between the box and the results.
const box = document.querySelector(".site-search");
const input = box && box.querySelector("input");
if (input) {
  const base = box.dataset.base || "/";
  const most = 8;
  let pagefind = null;
  let panel = null;
  let status = null;
  let list = null;
  let asked = "";

  // Loaded once; tried again on the next query after a failure (the reader offline).
  const load = () => {
    pagefind ??= import(`${base}pagefind/pagefind.js`).then(async (module) => {
      await module.options({ excerptLength: 16 });
      module.init();
      return module;
    }).catch((e) => {
      pagefind = null;
      throw e;
    });
    return pagefind;
  };

  // The panel of results, made when first needed: a status that is read out, and a list.
  const open = () => {
    if (!panel) {
      panel = document.createElement("div");
      panel.className = "search-results";
      panel.id = "site-search-results";
      status = document.createElement("p");
      status.className = "search-status";
      status.setAttribute("role", "status");
      list = document.createElement("ol");
      panel.append(status, list);
      box.append(panel);
      input.setAttribute("aria-controls", panel.id);
      // A click on a result keeps the focus where it is until the link is followed
      // (a browser that does not focus links on click would otherwise close the panel
      // first).
      panel.addEventListener("mousedown", (event) => event.preventDefault());
    }
    panel.hidden = false;
  };
  const close = () => {
    if (panel) panel.hidden = true;
  };

  // The section of a page that holds the most of the query's words: its heading's
  // address, or the page's when the words are above its first heading. The footnotes
  // (the sources) only when nothing else on the page has them.
  const best = (data) => {
    let chosen = null;
    for (const sub of data.sub_results || []) {
      const notes = sub.url.endsWith("#footnote-label");
      const hits = (sub.locations || []).length - (notes ? 1e6 : 0);
      if (!chosen || hits > chosen.hits) chosen = { sub, hits };
    }
    return chosen ? chosen.sub : null;
  };

  const show = async (query) => {
    asked = query;
    if (!query) {
      close();
      return;
    }
    open();
    let search;
    let found;
    try {
      const module = await load();
      search = await module.debouncedSearch(query, {}, 150);
      // A newer query has been typed since.
      if (search === null || query !== asked) return;
      found = await Promise.all(search.results.slice(0, most).map((r) => r.data()));
    } catch (e) {
      if (query !== asked) return;
      status.textContent = location.protocol === "file:"
        ? "The search needs the site served over HTTP, not opened as files."
        : "The search could not be loaded; try again in a moment.";
      list.replaceChildren();
      return;
    }
    if (query !== asked) return;
    const n = search.results.length;
    const quoted = `\u201c${query}\u201d`;
    status.textContent = n === 0
      ? `No page has ${quoted}.`
      : n === 1 ? `1 page has ${quoted}.`
        : n > most ? `${n} pages have ${quoted}; the ${most} closest:` : `${n} pages have ${quoted}.`;
    list.replaceChildren(...found.map((data) => {
      const section = best(data);
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = section ? section.url : data.url;
      const title = document.createElement("span");
      title.className = "search-page";
      title.textContent = data.meta.title || data.url;
      link.append(title);
      if (section && section.title && section.title !== data.meta.title) {
        const heading = document.createElement("span");
        heading.className = "search-section";
        heading.textContent = section.title;
        link.append(heading);
      }
      const excerpt = document.createElement("span");
      excerpt.className = "search-excerpt";
      // Read inert (a template runs nothing and loads nothing); only the words
      // Pagefind marks stay marked, and the rest is text.
      const text = document.createElement("template");
      text.innerHTML = (section || data).excerpt || "";
      excerpt.append(...[...text.content.childNodes].map((node) => node.nodeName === "MARK"
        ? Object.assign(document.createElement("mark"), { textContent: node.textContent })
        : document.createTextNode(node.textContent)));
      link.append(excerpt);
      item.append(link);
      return item;
    }));
  };

  const links = () => (list ? [...list.querySelectorAll("a")] : []);

  box.hidden = false;
  input.addEventListener("focus", () => {
    load().catch(() => {});
    if (input.value.trim()) show(input.value.trim());
  });
  input.addEventListener("input", () => show(input.value.trim()));
  input.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      if (input.value) {
        input.value = "";
        show("");
      } else {
        input.blur();
      }
    } else if (event.key === "ArrowDown" && links().length) {
      event.preventDefault();
      open();
      links()[0].focus();
    }
  });
  box.addEventListener("keydown", (event) => {
    const all = links();
    const at = all.indexOf(document.activeElement);
    if (at < 0) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const next = at + (event.key === "ArrowDown" ? 1 : -1);
      (next < 0 ? input : all[Math.min(next, all.length - 1)]).focus();
    } else if (event.key === "Escape") {
      event.preventDefault();
      input.focus();
      close();
    }
  });
  box.addEventListener("focusout", (event) => {
    if (!box.contains(event.relatedTarget)) close();
  });
  document.addEventListener("keydown", (event) => {
    const target = event.target;
    const typing = target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName);
    if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      input.focus();
      input.select();
    }
  });
}
