// The search page's Korean search (search.html only, after Sphinx's searchtools.js; the
// index it reads, searchindex.js, is loaded by the search page alone).
//
// The index (_ext/korean_search.py) holds each Korean word cut where its particles begin
// (야코비안은 → 야코비안) and other words Porter-stemmed, as Sphinx's English.  Here:
//  - a query word loses the particle or ending it ends with (야코비안은, 야코비안의 → 야코비안;
//    에서는 and the like, two at most) when the index knows what is left, unless the index
//    knows the whole word better (길이 is not 길 + 이);
//  - a term matches itself and the longer terms that contain it (행렬 in 행렬곱): a word
//    written in the middle of a compound is still found;
//  - a page must match every word of the query; its score adds each word's best match:
//    a title or heading first (15, inside a longer heading word 7), then the text (5, 2);
//  - each result shows the sentence that holds the words, the words marked (<mark>).
(() => {
  "use strict";
  if (typeof Search === "undefined") return;

  const HANGUL = /[\uac00-\ud7a3]/;
  // Particles, the copula and common endings that follow a noun, longest first.
  const PARTICLES = [
    "으로서", "으로써", "에게서", "이라는", "이라고", "이지만", "입니다", "이에요", "이었다",
    "에서", "에게", "께서", "한테", "으로", "로서", "로써", "까지", "부터", "보다", "처럼",
    "같이", "마다", "조차", "마저", "밖에", "이나", "이든", "이란", "이라", "라는", "라고",
    "이다", "이며", "이고", "이면", "이랑", "하고", "예요", "이야", "였다", "지만",
    "은", "는", "이", "가", "을", "를", "의", "에", "께", "로", "와", "과", "도", "만", "뿐",
    "나", "든", "란", "라", "다", "며", "고", "면", "인", "야", "랑", "요",
  ];

  let keys = null; // every term of the index, text and titles
  const index = () => Search._index;
  const allKeys = () => keys || (keys = [...new Set([
    ...Object.keys(index().terms), ...Object.keys(index().titleterms)])]);
  const stemmer = new Stemmer();
  const key = (word) => (HANGUL.test(word) ? word : stemmer.stemWord(word));
  const exact = (k) => k in index().terms || k in index().titleterms;
  const known = (k) => exact(k) || (k.length > 1 && allKeys().some((t) => t.includes(k)));
  const size = (v) => (v === undefined ? 0 : Array.isArray(v) ? v.length : 1);
  const pages = (k) => size(index().terms[k]) + size(index().titleterms[k]);

  // What is left of a word without a particle (or two) at its end, as the index knows it: a
  // term of its own first, a part of longer terms second; null when nothing is left.  At
  // least two letters must be left (하나 is not 하 + 나, 길이 not 길 + 이), one only when the
  // index does not know the word at all (행이 → 행).
  const strip = (word, least) => {
    let inside = null;
    const walk = (w, depth) => {
      for (const p of PARTICLES) {
        if (!w.endsWith(p) || w.length - p.length < least) continue;
        const rest = key(w.slice(0, -p.length));
        if (exact(rest)) return rest;
        if (inside === null && known(rest)) inside = rest;
        if (depth < 1 && HANGUL.test(rest)) {
          const deeper = walk(rest, depth + 1);
          if (deeper !== null) return deeper;
        }
      }
      return null;
    };
    return walk(word, 0) ?? inside;
  };
  // The index's key for a query word.  A Korean word keeps its form when the index has it and
  // it is not rarer there than the word without its particle: 길이 stays 길이, but
  // 야코비안이 (a term where the analyser missed the particle once) becomes 야코비안.
  const normalise = (word) => {
    const k = key(word);
    if (!HANGUL.test(word)) return k;
    const rest = strip(word, 2) ?? (known(k) ? null : strip(word, 1));
    if (rest === null) return k;
    if (exact(k) && pages(k) > pages(rest)) return k;
    if (!exact(k) && known(k) && !exact(rest)) return k;
    return rest;
  };

  Search._parseQuery = (query) => {
    const searchTerms = new Set();
    const excludedTerms = new Set();
    const objectTerms = new Set(splitQuery(query.toLowerCase().trim()));
    for (const word of splitQuery(query.trim().toLowerCase())) {
      if (stopwords.indexOf(word) !== -1 || /^\d+$/.test(word)) continue;
      if (word[0] === "-") excludedTerms.add(normalise(word.slice(1)));
      else searchTerms.add(normalise(word));
    }
    // the terms are marked in the result's sentence here, and on the page it links to
    localStorage.setItem("sphinx_highlight_terms", [...searchTerms].join(" "));
    return [query, searchTerms, excludedTerms, new Set(), objectTerms];
  };

  Search.performTermsSearch = (searchTerms, excludedTerms) => {
    const { terms, titleterms, filenames, docnames, titles } = index();
    const files = (v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
    const matches = (word) => { // file -> the word's best score in that file
      const best = new Map();
      const add = (v, score) => {
        for (const f of files(v)) best.set(f, Math.max(best.get(f) || 0, score));
      };
      add(terms[word], Scorer.term);
      add(titleterms[word], Scorer.title);
      if (word.length > 1) {
        for (const t of allKeys()) {
          if (t === word || !t.includes(word)) continue;
          add(terms[t], Scorer.partialTerm);
          add(titleterms[t], Scorer.partialTitle);
        }
      }
      return best;
    };
    const per = [...searchTerms].map(matches);
    if (!per.length) return [];
    const excluded = new Set();
    for (const word of excludedTerms)
      for (const f of [...files(terms[word]), ...files(titleterms[word])]) excluded.add(f);
    const results = [];
    for (const [file, first] of per[0]) {
      if (excluded.has(file) || !per.every((m) => m.has(file))) continue;
      const score = per.reduce((sum, m) => sum + m.get(file), 0) || first;
      results.push([docnames[file], titles[file], "", null, score, filenames[file]]);
    }
    return results;
  };

  // Where a term occurs in text: a Korean term as it is, another word from its stem to the
  // end of the word (stem "attent" marks "attention").
  const escape = (s) => s.replace(/[.*+\-?^${}()|[\]\\]/g, "\\$&");
  const pattern = (keywords) => new RegExp([...keywords].filter((k) => k).map((k) =>
    HANGUL.test(k) ? escape(k) : escape(k) + "[\\p{L}\\p{N}_]*").join("|"), "giu");

  // The sentence of the page that holds the most of the words (prose before headings, code
  // and outputs), at most about 200 characters around the first of them, the words marked.
  Search.makeSearchSummary = (htmlText, keywords, anchor) => {
    const doc = new DOMParser().parseFromString(htmlText, "text/html");
    const main = doc.querySelector('[role="main"]') || doc.body;
    main.querySelectorAll(".headerlink, script, style, annotation, .widget-subarea")
      .forEach((e) => e.remove());
    const re = pattern(keywords);
    const count = (s) => new Set((s.match(re) || []).map((m) => m.toLowerCase())).size;
    let best = null;
    const blocks = main.querySelectorAll("p, li, h1, h2, h3, h4, h5, h6, dt, dd, th, td, "
      + "figcaption, caption, .admonition-title, pre");
    for (const block of blocks) {
      if (block.querySelector("p, li, pre")) continue; // its own blocks are looked at
      // a sentence of prose before a heading, a heading before code and outputs
      const kind = block.closest("pre, .cell_output") ? 0 : /^H\d$/.test(block.tagName) ? 1 : 2;
      for (const s of block.textContent.replace(/\s+/g, " ").split(/(?<=[.!?。])\s+/)) {
        const n = count(s);
        if (n && (!best || n > best.n || (n === best.n && kind > best.kind)))
          best = { s: s.trim(), n, kind };
      }
      if (best && best.kind === 2 && best.n === keywords.size) break;
    }
    if (!best) return null;
    let text = best.s;
    if (text.length > 200) {
      re.lastIndex = 0;
      const at = Math.max(0, (re.exec(text) || { index: 0 }).index - 80);
      text = (at ? "…" : "") + text.slice(at, at + 200) + (at + 200 < text.length ? "…" : "");
    }
    const summary = document.createElement("p");
    summary.classList.add("context");
    let last = 0;
    re.lastIndex = 0;
    for (const m of text.matchAll(re)) {
      summary.append(text.slice(last, m.index));
      summary.appendChild(document.createElement("mark")).textContent = m[0];
      last = m.index + m[0].length;
    }
    summary.append(text.slice(last));
    return summary;
  };
})();
