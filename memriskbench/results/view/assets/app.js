// memriskbench view: a static, file:// friendly trace viewer.
// Data arrives as <script> files (browsers refuse fetch() from file://). Each is one call,
// MRB_data("<JSON text>"), and the text is read with JSON.parse: no value in it is ever code.
// The data hold model output and whatever the publisher of a trace chose to write, so:
// every string goes into the page through textContent / attributes, never innerHTML; every
// object from the data has no prototype, and every lookup by a key from the data is an
// own-property one (a risk id "constructor" must not find Object.prototype.constructor);
// a value of the wrong shape is shown as malformed, and never leaves a page on "loading…".
'use strict';
(function () {
  const app = document.getElementById('app');
  const RATE_METRICS = ['U', 'A', 'F', 'MGS'];
  const OUTCOMES = ['passed', 'failed', 'not scored'];
  // [query key, control id, row field]; "check" matches against row.failed_types instead.
  const FILTERS = [
    ['risk', 'f-risk', 'risk'], ['tier', 'f-tier', 'tier'], ['domain', 'f-domain', 'domain'],
    ['outcome', 'f-outcome', 'outcome'], ['check', 'f-check', null], ['term', 'f-term', 'termination'],
  ];
  // Where each system's episode list was last filtered, so "back" keeps the filter.
  const lastSystemHash = new Map();
  let skipHash = null;
  let overview = null;

  // ---------- small helpers ----------

  const isObj = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);
  const own = (obj, key) => (isObj(obj) && Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined);
  const keys = (obj) => (isObj(obj) ? Object.keys(obj) : []);
  const list = (x) => (Array.isArray(x) ? x : []);
  const json = (x) => JSON.stringify(x, null, 2);
  // Any value as text; objects without a prototype have no toString, so they go through JSON.
  function text(x) {
    if (x === null || x === undefined) return '';
    if (typeof x === 'string') return x;
    if (typeof x === 'number' || typeof x === 'boolean') return String(x);
    try { return JSON.stringify(x); } catch (e) { return '?'; }
  }
  const str = (x) => (typeof x === 'string' ? x : text(x));

  function el(tag, attrs) {
    const node = document.createElement(tag);
    for (const k of Object.keys(attrs || {})) {
      const v = attrs[k];
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, text(v));
    }
    for (let i = 2; i < arguments.length; i++) add(node, arguments[i]);
    return node;
  }

  function add(node, kid) {
    if (kid === null || kid === undefined || kid === false) return;
    if (Array.isArray(kid)) kid.forEach((k) => add(node, k));
    else node.append(kid instanceof Node ? kid : text(kid));
  }

  const errorP = (msg) => el('p', { class: 'error' }, msg);
  const isEst = (x) => isObj(x) && 'value' in x;
  // Two decimals as `score` prints them (Python rounds an exact half to even: 0.625 -> 0.62,
  // where toFixed gives 0.63), so the page and the terminal never disagree on a figure.
  const fmt2 = (x) => {
    if (typeof x !== 'number' || !isFinite(x)) return '–';
    const y = x * 100;
    const f = Math.floor(y);
    const r = y - f === 0.5 ? (f % 2 === 0 ? f : f + 1) : Math.round(y);
    return (r / 100).toFixed(2);
  };
  const enc = (x) => encodeURIComponent(text(x));

  function safeDecode(s) {
    try { return decodeURIComponent(s); } catch (e) { return s; }
  }

  function outcomeClass(o) {
    return o === 'passed' ? 'pass' : o === 'failed' ? 'fail' : 'na';
  }

  // A rate cell: tests read the value from span.v and the interval from span.ci.
  function estCell(est, attrs) {
    const e = isEst(est) ? est : { value: typeof est === 'number' ? est : null, ci95: null, n: null };
    const ci = Array.isArray(e.ci95) && e.ci95.length === 2 ? '[' + fmt2(e.ci95[0]) + ', ' + fmt2(e.ci95[1]) + ']' : '';
    const td = el('td', Object.assign({ class: 'rate' }, attrs), el('span', { class: 'v' }, fmt2(e.value)), ' ',
      el('span', { class: 'ci' }, e.value === null || e.value === undefined ? '' : ci));
    if (e.n !== null && e.n !== undefined) td.title = 'n = ' + text(e.n);
    return td;
  }

  function table(cls, heads, rows) {
    return el('table', cls ? { class: cls } : {},
      el('thead', {}, el('tr', {}, heads.map((h) => (h instanceof Node ? h : el('th', {}, h))))),
      el('tbody', {}, rows));
  }

  // ---------- loading data files ----------

  const delivered = new WeakMap(); // data <script> element -> the JSON text it delivered
  Object.defineProperty(window, 'MRB_data', {
    value: function (json) {
      const s = document.currentScript;
      if (s && typeof json === 'string' && !delivered.has(s)) delivered.set(s, json);
    },
  });
  // Objects without a prototype: a key of the data never reaches Object.prototype.
  const bare = (k, v) => (isObj(v) ? Object.setPrototypeOf(v, null) : v);

  const loading = new Map();
  function load(src) {
    // Paths come from the generator; refuse anything that is not a plain file under data/.
    if (typeof src !== 'string' || !/^data\/[A-Za-z0-9_.\/-]+\.js$/.test(src) || src.indexOf('..') >= 0) {
      return Promise.reject(new Error('refused data file path: ' + text(src)));
    }
    if (!loading.has(src)) {
      loading.set(src, new Promise((resolve, reject) => {
        const s = document.createElement('script');
        s.src = src;
        s.onload = () => {
          const t = delivered.get(s);
          s.remove();
          if (typeof t !== 'string') return reject(new Error('data file ' + src + ' delivered no data'));
          try {
            resolve(JSON.parse(t, bare));
          } catch (e) {
            reject(new Error('data file ' + src + ' is not valid JSON: ' + e.message));
          }
        };
        s.onerror = () => {
          loading.delete(src);
          s.remove();
          reject(new Error('missing data file: ' + src + ' (it could not be loaded)'));
        };
        document.head.appendChild(s);
      }));
    }
    return loading.get(src);
  }

  function sysInfo(n) {
    return list(overview.systems).find((s) => isObj(s) && s.index === n) || null;
  }

  function sysFile(n) {
    const info = sysInfo(n);
    return (info && typeof info.file === 'string' && info.file) || 'data/sys-' + n + '.js';
  }

  function loadSystem(n) {
    if (!sysInfo(n)) return Promise.reject(new Error('no system with index ' + n + ' in data/overview.js'));
    const file = sysFile(n);
    return load(file).then((d) => {
      if (!isObj(d) || !Array.isArray(d.rows)) throw new Error('data file ' + file + ' holds no episode list');
      return d;
    });
  }

  const playOf = (r) => (typeof own(r, 'play') === 'number' ? r.play : 1);

  // Resolves to null when the system did not play the episode (or not that many times).
  function loadEpisode(n, eid, play) {
    return loadSystem(n).then((sys) => {
      const row = sys.rows.find((r) => isObj(r) && r.episode === eid && playOf(r) === play);
      if (!row) return null;
      return load(row.file).then((ep) => {
        if (!isObj(ep)) throw new Error('data file ' + text(row.file) + ' holds no episode');
        return ep;
      });
    });
  }

  // ---------- routing ----------

  function parseHash() {
    const h = location.hash.replace(/^#/, '');
    const qi = h.indexOf('?');
    const path = (qi >= 0 ? h.slice(0, qi) : h).split('/').filter(Boolean).map(safeDecode);
    return { path: path, query: new URLSearchParams(qi >= 0 ? h.slice(qi + 1) : '') };
  }

  // Changes the URL without a hashchange (which would rebuild the page and drop input focus).
  function replaceHash(h) {
    if (location.hash === h) return;
    try {
      history.replaceState(history.state, '', h);
    } catch (e) {
      skipHash = h;
      location.replace(h);
    }
  }

  const compareHash = (eid, a, b) => '#/compare/' + enc(eid) + '?a=' + enc(a) + '&b=' + enc(b);
  const episodeHash = (n, eid, play) => '#/episode/' + n + '/' + enc(eid) + (play > 1 ? '?play=' + play : '');
  const sysIndex = (s) => (/^\d+$/.test(s || '') ? parseInt(s, 10) : null);

  function route() {
    const r = parseHash();
    app.replaceChildren();
    app.className = '';
    window.scrollTo(0, 0);
    try {
      routeTo(r);
    } catch (e) {
      app.append(errorP('this page cannot be shown: ' + e.message), backNav());
    }
  }

  function routeTo(r) {
    const ov = overview;
    document.getElementById('site-title').textContent = text(ov.title) || 'memriskbench view';
    document.getElementById('generated-by').textContent = ov.generated_by ? 'generated by ' + text(ov.generated_by) : '';
    const [view, a, b] = r.path;
    if (!view) return renderOverview();
    if (view === 'system' && sysIndex(a) !== null && !b) return renderSystem(sysIndex(a), r.query);
    if (view === 'episode' && sysIndex(a) !== null && b) {
      return renderEpisodePage(sysIndex(a), b, sysIndex(r.query.get('play')) || 1);
    }
    if (view === 'compare' && a && !b) return renderCompare(a, r.query);
    app.append(el('h1', {}, 'Not found'), errorP('unknown address: ' + location.hash), backNav());
  }

  function backNav(extra) {
    return el('nav', { class: 'back' }, el('a', { href: '#/' }, '← overview'), extra || null);
  }

  // ---------- overview ----------

  function renderOverview() {
    const ov = overview;
    document.title = 'Overview · ' + (text(ov.title) || 'memriskbench view');
    app.append(el('h1', {}, 'Overview'));
    const warnings = list(ov.warnings);
    if (warnings.length) {
      app.append(el('div', { class: 'warning', id: 'warnings' }, el('strong', {}, 'Warnings'),
        el('ul', {}, warnings.map((w) => el('li', {}, w)))));
    }
    const bs = ov.bootstrap;
    if (isObj(bs)) {
      app.append(el('p', { class: 'meta-line' }, 'Intervals: ' + Math.round((Number(bs.level) || 0.95) * 100) + '% ' +
        text(bs.method) + ' bootstrap, ' + text(bs.resamples) + ' resamples, seed ' + text(bs.seed) + '. Hover a cell for n.'));
    }
    for (const variant of Array.isArray(ov.variants) ? ov.variants : ['default', 'safety_aware']) {
      app.append(el('h2', {}, 'Variant: ' + text(variant)), variantTable(ov, variant));
    }
    const pk = isObj(ov.pass_k) ? ov.pass_k : {};
    if (keys(pk).length) app.append(el('h2', {}, 'pass^k'), passKTable(ov, pk));
    const gm = list(ov.systems).filter((s) => isObj(s) && isObj(s.gatemem_imported));
    if (gm.length) app.append(el('h2', {}, 'GateMem (imported checkpoints)'), gatememTable(gm));
    app.append(compareForm(ov));
  }

  const riskName = (r) => own(overview.risk_names, r);

  function variantTable(ov, variant) {
    const risks = list(ov.risks);
    const heads = ['system', 'episodes', 'pass'].map((h) => el('th', {}, h))
      .concat(risks.map((r) => el('th', { title: riskName(r) || null }, r)))
      .concat(RATE_METRICS.concat(['terminations', 'audit']).map((h) => el('th', {}, h)));
    const rows = list(ov.systems).filter(isObj).map((s) => {
      const v = isObj(own(s, variant)) ? own(s, variant) : {};
      const at = (metric) => ({ 'data-system': s.index, 'data-variant': variant, 'data-metric': metric });
      const pass = estCell(v.pass_rate, at('pass'));
      if (isObj(v.checks)) {
        const c = v.checks;
        pass.title = (pass.title ? pass.title + ' · ' : '') + 'checks passed ' + text(c.passed) + ' of ' + text(c.total) +
          (c.not_applicable ? ', ' + text(c.not_applicable) + ' n/a' : '');
      }
      const fin = s.episodes_finished, plan = s.episodes_planned;
      const gate = isObj(v.gatemem) ? v.gatemem : {};
      const terms = isObj(s.terminations) ? s.terminations : {};
      return el('tr', { 'data-system': s.index },
        el('td', { class: 'sys' }, el('a', { href: '#/system/' + text(s.index) }, s.name)),
        el('td', { class: fin !== plan ? 'num incomplete' : 'num', title: 'finished / planned' },
          fin === plan ? text(fin) : text(fin) + ' / ' + text(plan)),
        pass,
        risks.map((r) => estCell(own(v.per_risk, r), at(r))),
        RATE_METRICS.map((m) => estCell(own(gate, m), at(m))),
        el('td', { class: 'terms' }, keys(terms).map((k) => k + ' ' + text(terms[k])).join(' · ')),
        auditCell(s.audit));
    });
    return table('overview', heads, rows);
  }

  function auditCell(a) {
    const td = el('td', { class: 'audit' });
    if (!isObj(a)) {
      td.append('–');
      return td;
    }
    const mism = list(a.mismatched);
    const probs = list(a.problems);
    const rescored = a.rescored_equal === true ? 'rescore equals published results'
      : a.rescored_equal === false ? 'rescore DIFFERS from published results' : 'no published results to compare';
    add(td, [el('span', { class: 'badge ' + (a.ok === true ? 'ok' : 'fail') }, a.ok === true ? 'ok' : 'FAIL'), ' ',
      el('span', { class: 'states' }, 'chain ' + (text(a.chain) || '?') + ' · ' +
        (a.episodes_match ? 'episodes match' : 'episodes changed: ' + mism.length) + ' · ' + rescored)]);
    if (probs.length || mism.length) {
      td.append(el('details', {}, el('summary', {}, 'problems (' + (probs.length + (mism.length ? 1 : 0)) + ')'),
        el('ul', {}, probs.map((p) => el('li', {}, p)),
          mism.length ? el('li', {}, 'changed since the trace was made: ' + mism.map(text).join(', ')) : null)));
    }
    return td;
  }

  function passKTable(ov, pk) {
    const ks = [];
    for (const name of keys(pk)) {
      for (const k of keys(own(pk[name], 'pass^k'))) if (ks.indexOf(k) < 0) ks.push(k);
    }
    ks.sort((x, y) => Number(x) - Number(y));
    const rows = keys(pk).map((name) => {
      const d = isObj(pk[name]) ? pk[name] : {};
      const s = list(ov.systems).find((x) => isObj(x) && x.name === name);
      return el('tr', {}, el('td', { class: 'sys' }, s ? el('a', { href: '#/system/' + text(s.index) }, name) : name),
        el('td', { class: 'num' }, d.runs), el('td', { class: 'num' }, d.episodes),
        ks.map((k) => estCell(own(own(d, 'pass^k'), k), { 'data-pass-k': k, 'data-system-name': name })));
    });
    return table('pass-k', ['system', 'runs', 'episodes'].concat(ks.map((k) => 'pass^' + k)), rows);
  }

  // The imported GateMem block is shown as it comes: modes -> groups -> metrics.
  function gatememTable(systems) {
    const lines = [];
    const metrics = RATE_METRICS.slice();
    for (const s of systems) {
      const g = s.gatemem_imported;
      for (const mode of keys(g)) {
        if (!isObj(g[mode])) continue;
        const flat = keys(g[mode]).some((k) => isEst(g[mode][k]) || typeof g[mode][k] === 'number');
        const groups = flat ? { overall: g[mode] } : g[mode];
        for (const group of keys(groups)) {
          if (!isObj(groups[group])) continue;
          for (const m of keys(groups[group])) if (metrics.indexOf(m) < 0) metrics.push(m);
          lines.push({ s: s, mode: mode, group: group, vals: groups[group] });
        }
      }
    }
    const rows = lines.map((l) => el('tr', {},
      el('td', { class: 'sys' }, el('a', { href: '#/system/' + text(l.s.index) }, l.s.name)),
      el('td', { class: 'num' }, own(l.s.gatemem_imported, 'episodes')),
      el('td', { class: 'num' }, own(l.s.gatemem_imported, 'decisions')),
      el('td', {}, l.mode), el('td', {}, l.group),
      metrics.map((m) => estCell(own(l.vals, m), {
        'data-system': l.s.index, 'data-gm-mode': l.mode, 'data-gm-group': l.group, 'data-gm-metric': m,
      }))));
    return table('gatemem', ['system', 'episodes', 'decisions', 'mode', 'group'].concat(metrics), rows);
  }

  function systemSelect(id, systems, selected) {
    return el('select', { id: id }, systems.map((s) =>
      el('option', { value: s.index, selected: s.index === selected ? 'selected' : null }, text(s.index) + ': ' + text(s.name))));
  }

  function compareForm(ov) {
    const systems = list(ov.systems).filter(isObj);
    const a = systemSelect('cmp-a', systems, systems.length ? systems[0].index : null);
    const b = systemSelect('cmp-b', systems, systems.length > 1 ? systems[1].index : null);
    const eid = el('input', { id: 'cmp-eid', type: 'text', placeholder: 'episode id', required: 'required' });
    const form = el('form', { id: 'compare', class: 'compare-form' }, el('h2', {}, 'Compare'),
      el('label', {}, 'system A ', a), ' ', el('label', {}, 'system B ', b), ' ',
      el('label', {}, 'episode ', eid), ' ', el('button', { type: 'submit' }, 'compare'));
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const id = eid.value.trim();
      if (id) location.hash = compareHash(id, a.value, b.value);
    });
    return form;
  }

  // ---------- episodes of one system ----------

  function renderSystem(n, query) {
    const info = sysInfo(n);
    document.title = 'Episodes · ' + (info ? text(info.name) : n);
    app.append(backNav());
    if (!info) return app.append(errorP('no system with index ' + n + ' in data/overview.js'));
    app.append(el('h1', {}, 'Episodes of ', info.name));
    const box = el('div', { class: 'system-view' }, el('p', { class: 'loading' }, 'loading ' + sysFile(n) + '…'));
    app.append(box);
    loadSystem(n).then((sys) => fillSystem(box, n, sys, query))
      .catch((err) => box.replaceChildren(errorP(err.message)));
  }

  function fillSystem(box, n, sys, query) {
    const rows = sys.rows.filter(isObj);
    const state = { q: query.get('q') || '' };
    const distinct = (f) => Array.from(new Set(rows.map(f).filter((x) => x !== null && x !== undefined && x !== '').map(text))).sort();
    const riskOrder = list(overview.risks);
    const values = {
      risk: distinct((r) => r.risk).sort((x, y) => (riskOrder.indexOf(x) - riskOrder.indexOf(y)) || (x < y ? -1 : 1)),
      tier: distinct((r) => r.tier), domain: distinct((r) => r.domain), outcome: OUTCOMES,
      check: Array.from(new Set([].concat.apply([], rows.map((r) => list(r.failed_types).map(text))))).sort(),
      term: distinct((r) => r.termination),
    };
    const controls = el('div', { class: 'filters' });
    for (const [key, id] of FILTERS) {
      state[key] = query.get(key) || '';
      const opts = values[key].slice();
      if (state[key] && opts.indexOf(state[key]) < 0) opts.push(state[key]);
      const sel = el('select', { id: id }, el('option', { value: '' }, 'all'),
        opts.map((v) => el('option', { value: v }, key === 'risk' && riskName(v) ? v + ' ' + text(riskName(v)) : v)));
      sel.value = state[key];
      sel.addEventListener('change', () => { state[key] = sel.value; changed(); });
      controls.append(el('label', {}, (key === 'check' ? 'failed check' : key === 'term' ? 'termination' : key) + ' ', sel), ' ');
    }
    const q = el('input', { id: 'f-q', type: 'search', placeholder: 'search episodes, requests, replies' });
    q.value = state.q;
    q.addEventListener('input', () => { state.q = q.value; changed(); });
    controls.append(el('label', {}, 'search ', q));

    const count = el('p', { id: 'count' });
    const tbody = el('tbody');
    const tbl = el('table', { id: 'episodes' }, el('thead', {}, el('tr', {},
      ['episode', 'risk', 'tier', 'domain', 'outcome', 'failed checks', 'termination'].map((h) => el('th', {}, h)))), tbody);
    box.replaceChildren(controls, count, tbl);
    lastSystemHash.set(n, location.hash || '#/system/' + n);

    function hashFor() {
      const p = new URLSearchParams();
      for (const [key] of FILTERS) if (state[key]) p.set(key, state[key]);
      if (state.q.trim()) p.set('q', state.q.trim());
      const s = p.toString();
      return '#/system/' + n + (s ? '?' + s : '');
    }
    function changed() {
      const h = hashFor();
      lastSystemHash.set(n, h);
      replaceHash(h);
      apply();
    }
    function matches(r, words) {
      for (const [key, , field] of FILTERS) {
        if (!state[key]) continue;
        if (field ? text(r[field]) !== state[key] : list(r.failed_types).map(text).indexOf(state[key]) < 0) return false;
      }
      const hay = text(r.search || r.episode).toLowerCase();
      return words.every((w) => hay.indexOf(w) >= 0);
    }
    function apply() {
      const words = state.q.toLowerCase().split(/\s+/).filter(Boolean);
      const shown = rows.filter((r) => matches(r, words));
      const frag = document.createDocumentFragment();
      for (const r of shown) frag.append(episodeRow(n, r));
      tbody.replaceChildren(frag);
      count.textContent = shown.length + ' of ' + rows.length + ' episodes';
    }
    apply();
  }

  function episodeRow(n, r) {
    const play = playOf(r);
    const plays = own(r, 'plays');
    return el('tr', { 'data-episode': r.episode, 'data-play': plays ? play : null, title: r.note || null },
      el('td', {}, el('a', { class: 'ep-link', href: episodeHash(n, r.episode, play) }, r.episode),
        plays ? el('span', { class: 'play' }, ' (play ' + play + ' of ' + text(plays) + ')') : null,
        r.note ? el('span', { class: 'note-flag', title: r.note }, ' ⚠') : null),
      el('td', { title: riskName(r.risk) || null }, r.risk),
      el('td', {}, r.tier), el('td', {}, r.domain),
      el('td', { class: outcomeClass(r.outcome), title: 'safety_aware: ' + (text(r.outcome_safety_aware) || '–') }, r.outcome),
      el('td', {}, list(r.failed_types).map(text).join(', ')),
      el('td', {}, r.termination));
  }

  // ---------- one episode ----------

  function renderEpisodePage(n, eid, play) {
    const info = sysInfo(n);
    document.title = eid + ' · ' + (info ? text(info.name) : n);
    app.append(backNav(info ? [' ', el('a', { href: lastSystemHash.get(n) || '#/system/' + n, class: 'back-to-system' },
      '← episodes of ', info.name)] : null));
    app.append(el('h1', {}, eid, play > 1 ? ' (play ' + play + ')' : null));
    if (!info) return app.append(errorP('no system with index ' + n + ' in data/overview.js'));
    const others = list(overview.systems).filter((s) => isObj(s) && s.index !== n);
    if (others.length) {
      const sel = systemSelect('cmp-other', others, others[0].index);
      const form = el('form', { class: 'compare-form', id: 'compare-with' },
        el('label', {}, 'compare with… ', sel), ' ', el('button', { type: 'submit' }, 'compare'));
      form.addEventListener('submit', (ev) => { ev.preventDefault(); location.hash = compareHash(eid, n, sel.value); });
      app.append(form);
    }
    const box = el('div', { class: 'episode-view' });
    app.append(box);
    fillEpisode(box, n, eid, play);
  }

  function fillEpisode(box, n, eid, play) {
    box.replaceChildren(el('p', { class: 'loading' }, 'loading…'));
    loadEpisode(n, eid, play)
      .then((ep) => box.replaceChildren(ep ? episodeNode(ep, n) : el('p', { class: 'missing' }, 'not in this trace')))
      .catch((err) => box.replaceChildren(errorP(err.message)));
  }

  function renderCompare(eid, query) {
    const a = sysIndex(query.get('a')), b = sysIndex(query.get('b'));
    document.title = 'Compare ' + eid;
    app.className = 'wide';
    app.append(backNav(), el('h1', {}, 'Compare ', eid));
    const sides = el('div', { class: 'sides' });
    app.append(sides);
    for (const [label, n] of [['A', a], ['B', b]]) {
      const side = el('div', { class: 'side', 'data-system': n === null ? null : n });
      sides.append(side);
      const info = n === null ? null : sysInfo(n);
      if (!info) { side.append(errorP('system ' + label + ': no system with index ' + query.get(label.toLowerCase()))); continue; }
      side.append(el('h2', {}, label + ': ', el('a', { href: '#/system/' + n }, info.name)),
        el('p', {}, el('a', { href: episodeHash(n, eid, 1) }, 'open alone')));
      const box = el('div', { class: 'episode-view' });
      side.append(box);
      fillEpisode(box, n, eid, 1);
    }
  }

  // A record the generator found malformed, or that this page could not draw: said so, and
  // shown as it was written.
  function malformedCard(it, why) {
    return el('div', { class: 'card malformed' },
      el('div', { class: 'card-head' }, el('span', { class: 'badge fail' }, 'malformed record'), ' ',
        el('span', { class: 'tag' }, isObj(it) ? text(it.kind) : typeof it)),
      el('ul', { class: 'malformed-why' }, why.map((w) => el('li', {}, w))),
      el('details', {}, el('summary', {}, 'as written'), el('pre', {}, json(it))));
  }

  function guarded(it, draw) {
    const why = isObj(it) ? list(it.malformed) : ['not an object'];
    if (why.length) return malformedCard(it, why);
    try {
      return draw(it);
    } catch (e) {
      return malformedCard(it, ['cannot be shown: ' + e.message]);
    }
  }

  function episodeNode(ep, n) {
    const root = el('div', { class: 'episode', 'data-system': n, 'data-episode': ep.episode });
    const info = sysInfo(n);
    const plays = own(ep, 'plays');
    const meta = [
      ['system', el('a', { href: '#/system/' + n }, ep.name || (info && info.name) || String(n))],
      ['episode', ep.episode],
      ['risk', text(ep.risk) + (riskName(ep.risk) ? ' (' + text(riskName(ep.risk)) + ')' : '')],
      ['tier', ep.tier], ['domain', ep.domain],
      ['outcome', el('span', { class: 'outcome ' + outcomeClass(ep.outcome) }, ep.outcome)],
      ['termination', ep.termination], ['path', list(ep.path).map(text).join(' → ')],
    ];
    if (plays) meta.push(['play', text(own(ep, 'play')) + ' of ' + text(plays) + ' (this trace plays the episode more than once)']);
    if (ep.description) meta.push(['description', ep.description]);
    root.append(el('dl', { class: 'meta' }, meta.map(([k, v]) => [el('dt', {}, k), el('dd', {}, v)])));
    if (ep.note) root.append(el('p', { class: 'warning' }, ep.note));
    const tl = el('div', { class: 'timeline' });
    if (!Array.isArray(ep.timeline)) tl.append(malformedCard(ep.timeline, ['the timeline is not a list']));
    for (const it of list(ep.timeline)) {
      const kind = own(it, 'kind');
      if (kind === 'event') tl.append(guarded(it, eventCard));
      else if (kind === 'memory_op') tl.append(guarded(it, memOpCard));
      else if (kind === 'decision') tl.append(guarded(it, (x) => decisionCard(x, root)));
      else if (!isObj(it)) tl.append(malformedCard(it, ['not an object']));
      else tl.append(el('div', { class: 'card other' }, el('div', { class: 'card-head' }, text(kind)), el('pre', {}, json(it))));
    }
    root.append(tl, el('p', { class: 'termination' }, el('strong', {}, 'termination: '), text(ep.termination) || '–'));
    return root;
  }

  function opText(op) {
    if (!isObj(op)) return str(op);
    let s = (text(op.op) || '?') + (op.id ? ' ' + text(op.id) : '');
    if (op.key !== undefined && op.key !== null) s += ' ' + text(op.key);
    if (op.value !== undefined && op.value !== null) s += ' = ' + (typeof op.value === 'string' ? '"' + op.value + '"' : JSON.stringify(op.value));
    const extra = ['scope', 'visibility', 'owner'].filter((k) => op[k] !== undefined && op[k] !== null && op[k] !== '')
      .map((k) => k + ' ' + str(op[k]));
    if (extra.length) s += ' (' + extra.join(', ') + ')';
    if (op.supersedes) s += ' supersedes ' + text(op.supersedes);
    return s;
  }

  function opBadge(op) {
    const kind = isObj(op) ? text(op.op || 'other').replace(/[^a-z_]/gi, '') : 'other';
    return el('span', { class: 'badge op op-' + kind, title: JSON.stringify(op) }, opText(op));
  }

  function kvList(obj) {
    if (!isObj(obj)) return el('ul', { class: 'kv' }, el('li', {}, str(obj)));
    return el('ul', { class: 'kv' }, keys(obj).map((k) => el('li', {}, el('span', { class: 'k' }, k), ': ', str(obj[k]))));
  }

  // A field that must be a list and is something else makes its record malformed.
  function listed(it, key) {
    const v = it[key];
    if (v !== undefined && v !== null && !Array.isArray(v)) throw new Error(key + ' is not a list');
    return list(v);
  }

  function eventCard(it) {
    const memory = listed(it, 'memory'), policy = listed(it, 'policy'), constraints = listed(it, 'constraints');
    const card = el('div', { class: 'card event', id: 'event-' + text(it.event) },
      el('div', { class: 'card-head' }, el('span', { class: 'tag' }, it.event), ' ',
        el('strong', { class: 'speaker' }, it.speaker), ' ', el('span', { class: 'time' }, it.timestamp)),
      el('p', { class: 'text' }, it.text));
    if (memory.length) card.append(el('div', { class: 'ops' }, el('span', { class: 'label' }, 'memory '), memory.map(opBadge)));
    for (const [key, xs] of [['policy', policy], ['constraints', constraints]]) {
      if (xs.length) card.append(el('div', { class: 'kvs ' + key }, el('span', { class: 'label' }, key), xs.map(kvList)));
    }
    return card;
  }

  function memOpCard(it) {
    const card = el('div', { class: 'card memory-op' },
      el('div', { class: 'card-head' }, el('span', { class: 'tag' }, it.event), ' ', el('strong', {}, 'memory operation by the system'), ' ',
        el('span', { class: it.result === 'ok' ? 'result pass' : 'result fail' }, 'result: ' + str(it.result))),
      it.op ? el('div', { class: 'ops' }, opBadge(it.op)) : null);
    if (it.raw_output !== undefined && it.raw_output !== null) {
      card.append(el('details', {}, el('summary', {}, 'raw output'), el('pre', { class: 'raw' }, str(it.raw_output))));
    }
    return card;
  }

  // Failed under the default (normalized) matching; n/a checks never fail.
  const checkFailed = (c) => isObj(c) && c.applicable !== false && c.normalized === false;

  function decisionCard(it, root) {
    const verdict = it.passed === true ? ['pass', 'PASS'] : it.passed === false ? ['fail', 'FAIL'] : ['na', 'n/a'];
    const card = el('section', { class: 'card decision', id: 'decision-' + text(it.decision), 'data-decision': it.decision },
      el('div', { class: 'card-head' }, el('span', { class: 'tag' }, it.decision), ' ', el('span', { class: 'time' }, it.timestamp), ' ',
        'requester: ', el('strong', {}, text(it.requester) || '?'), ' ', el('span', { class: 'badge ' + verdict[0] }, verdict[1])),
      el('p', { class: 'query' }, el('span', { class: 'label' }, 'request '), it.query));
    const steps = listed(it, 'steps');
    const checks = listed(it, 'checks').filter(isObj);
    const failed = checks.filter(checkFailed);
    steps.forEach((st, i) => card.append(guardedStep(st, i, failed)));
    if (checks.length) card.append(checksTable(checks, root));
    return card;
  }

  function guardedStep(st, i, failed) {
    const why = isObj(st) ? list(st.malformed) : ['not an object'];
    if (!why.length) {
      try {
        return stepNode(st, i, failed);
      } catch (e) {
        why.push('cannot be shown: ' + e.message);
      }
    }
    return el('div', { class: 'step malformed', 'data-step': own(st, 'step') },
      el('div', { class: 'step-head' }, el('strong', {}, 'step ' + text(own(st, 'step'))), ' ',
        el('span', { class: 'badge fail' }, 'malformed record')),
      el('ul', { class: 'malformed-why' }, why.map((w) => el('li', {}, w))),
      el('details', {}, el('summary', {}, 'as written'), el('pre', {}, json(st))));
  }

  function listOr(xs, none) {
    return xs.length ? xs.map(text).join(', ') : none;
  }

  function stepNode(st, i, failed) {
    const no = st.step !== undefined && st.step !== null ? st.step : i;
    const tok = isObj(st.tokens) ? ' · tokens ' + text(st.tokens.prompt) + ' + ' + text(st.tokens.completion) : '';
    const shown = st.shown_events === null || st.shown_events === undefined ? 'shown: whole history'
      : 'shown events: ' + listOr(list(st.shown_events), '(none)');
    const mem = Array.isArray(st.shown_memory) ? ' · shown memory: ' + listOr(st.shown_memory, '(none)') : '';
    const node = el('div', { class: 'step', 'data-step': no },
      el('div', { class: 'step-head' }, el('strong', {}, 'step ' + text(no)), el('span', { class: 'small' }, tok)),
      el('p', { class: 'shown' }, shown + mem));
    if (st.context_text !== null && st.context_text !== undefined) {
      node.append(el('details', { class: 'context' }, el('summary', {}, 'context shown (' + str(st.context_text).length + ' chars)'),
        el('pre', {}, str(st.context_text))));
    }
    if (st.raw_output !== null && st.raw_output !== undefined) {
      node.append(el('details', { open: 'open', class: 'raw-output' }, el('summary', {}, 'raw output'), el('pre', { class: 'raw' }, str(st.raw_output))));
    }
    const a = st.action;
    if (isObj(a)) {
      const act = el('div', { class: 'action' }, el('span', { class: 'label' }, 'action '), el('span', { class: 'badge type' }, text(a.type) || '?'));
      if (a.content !== undefined && a.content !== null) {
        const spans = [];
        for (const c of failed) {
          for (const sp of list(c.spans)) {
            if (Array.isArray(sp) && sp.length === 3 && sp[0] === no) spans.push({ s: sp[1], e: sp[2], id: text(c.id) });
          }
        }
        act.append(el('pre', { class: 'content' }, highlight(str(a.content), spans)));
      }
      if (a.tool) act.append(el('div', { class: 'tool' }, el('span', { class: 'label' }, 'tool '), el('code', {}, a.tool)));
      if (a.args !== undefined && a.args !== null) act.append(el('pre', { class: 'args' }, json(a.args)));
      const rest = keys(a).filter((k) => ['type', 'content', 'tool', 'args'].indexOf(k) < 0);
      if (rest.length) act.append(kvList(rest.reduce((o, k) => ((o[k] = a[k]), o), Object.create(null))));
      node.append(act);
    } else if (a === null || a === undefined) {
      node.append(el('p', { class: 'action none' }, 'no parsed action'));
    } else {
      node.append(el('p', { class: 'action malformed' }, 'malformed action (not an object): ' + str(a)));
    }
    if (st.error) node.append(el('p', { class: 'step-error' }, 'error: ' + str(st.error)));
    if (st.tool_result !== null && st.tool_result !== undefined) {
      node.append(el('details', { open: 'open', class: 'tool-result' }, el('summary', {}, 'tool result'), el('pre', {}, json(st.tool_result))));
    }
    return node;
  }

  // Spans are in UTF-16 code units, as JavaScript indexes strings (the generator converts them).
  // Overlapping spans become one mark that names every check it belongs to.
  function highlight(s, spans) {
    const ivs = spans
      .map((x) => ({ s: Math.max(0, Math.min(s.length, Number(x.s))), e: Math.max(0, Math.min(s.length, Number(x.e))), id: x.id }))
      .filter((x) => isFinite(x.s) && isFinite(x.e) && x.e > x.s)
      .sort((x, y) => x.s - y.s || x.e - y.e);
    const merged = [];
    for (const iv of ivs) {
      const last = merged[merged.length - 1];
      if (last && iv.s < last.e) {
        last.e = Math.max(last.e, iv.e);
        if (last.ids.indexOf(iv.id) < 0) last.ids.push(iv.id);
      } else {
        merged.push({ s: iv.s, e: iv.e, ids: [iv.id] });
      }
    }
    const frag = document.createDocumentFragment();
    let pos = 0;
    for (const m of merged) {
      if (m.s > pos) frag.append(s.slice(pos, m.s));
      frag.append(el('mark', { class: 'hl', 'data-check': m.ids.join(' ') }, s.slice(m.s, m.e)));
      pos = m.e;
    }
    if (pos < s.length) frag.append(s.slice(pos));
    return frag;
  }

  function verdictCell(c, key) {
    if (c.applicable === false || typeof c[key] !== 'boolean') return el('td', { class: 'na' }, 'n/a');
    return c[key] ? el('td', { class: 'pass' }, 'PASS') : el('td', { class: 'fail' }, 'FAIL');
  }

  function checksTable(checks, root) {
    // Marks stay focused while their row is pinned (clicked), and while it is hovered.
    function refocus(hover) {
      const on = new Set(Array.from(root.querySelectorAll('tr.pinned')).map((tr) => tr.getAttribute('data-check')));
      if (hover !== null) on.add(hover);
      for (const m of root.querySelectorAll('mark.hl')) {
        m.classList.toggle('focus', (m.getAttribute('data-check') || '').split(' ').some((id) => on.has(id)));
      }
    }
    const rows = checks.map((c) => {
      const id = text(c.id);
      const tr = el('tr', { class: checkFailed(c) ? 'failed-check' : null, 'data-check': id },
        el('td', {}, el('code', {}, id)),
        el('td', {}, c.type, c.ambient === true ? [' ', el('span', { class: 'tag ambient' }, 'ambient')] : null),
        verdictCell(c, 'normalized'), verdictCell(c, 'strict'),
        el('td', { class: 'evidence' }, c.evidence));
      tr.addEventListener('mouseenter', () => refocus(id));
      tr.addEventListener('mouseleave', () => refocus(null));
      tr.addEventListener('click', () => { tr.classList.toggle('pinned'); refocus(id); });
      return tr;
    });
    return table('checks', ['check', 'type', 'normalized', 'strict', 'evidence'], rows);
  }

  // ---------- start ----------

  window.addEventListener('hashchange', () => {
    if (skipHash !== null && location.hash === skipHash) { skipHash = null; return; }
    skipHash = null;
    if (overview) route();
  });
  load('data/overview.js').then((ov) => {
    if (!isObj(ov)) throw new Error('data/overview.js holds no overview');
    overview = ov;
    route();
  }).catch((err) => app.replaceChildren(errorP(err.message)));
})();
