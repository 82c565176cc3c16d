// memriskbench view: a static, file:// friendly trace viewer.
// Data arrives as <script> files (browsers refuse fetch() from file://). The data holds model
// output, so every string goes into the page through textContent / attributes, never innerHTML.
'use strict';
(function () {
  const MRB = (window.MRB = window.MRB || {});
  const app = document.getElementById('app');
  const RATE_METRICS = ['U', 'A', 'F', 'MGS'];
  const OUTCOMES = ['passed', 'failed', 'not scored'];
  // [query key, control id, row field]; "check" matches against row.failed_types instead.
  const FILTERS = [
    ['risk', 'f-risk', 'risk'], ['tier', 'f-tier', 'tier'], ['domain', 'f-domain', 'domain'],
    ['outcome', 'f-outcome', 'outcome'], ['check', 'f-check', null], ['term', 'f-term', 'termination'],
  ];
  // Where each system's episode list was last filtered, so "back" keeps the filter.
  const lastSystemHash = {};
  let skipHash = null;

  // ---------- small helpers ----------

  function el(tag, attrs) {
    const node = document.createElement(tag);
    for (const k of Object.keys(attrs || {})) {
      const v = attrs[k];
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, String(v));
    }
    for (let i = 2; i < arguments.length; i++) add(node, arguments[i]);
    return node;
  }

  function add(node, kid) {
    if (kid === null || kid === undefined || kid === false) return;
    if (Array.isArray(kid)) kid.forEach((k) => add(node, k));
    else node.append(kid instanceof Node ? kid : String(kid));
  }

  const errorP = (msg) => el('p', { class: 'error' }, msg);
  const isObj = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);
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
  const enc = encodeURIComponent;
  const json = (x) => JSON.stringify(x, null, 2);
  const str = (x) => (typeof x === 'string' ? x : JSON.stringify(x));

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
    if (e.n !== null && e.n !== undefined) td.title = 'n = ' + e.n;
    return td;
  }

  function table(cls, heads, rows) {
    return el('table', cls ? { class: cls } : {},
      el('thead', {}, el('tr', {}, heads.map((h) => (h instanceof Node ? h : el('th', {}, h))))),
      el('tbody', {}, rows));
  }

  // ---------- loading data files ----------

  const loading = {};
  function load(src) {
    // Paths come from the generator; refuse anything that is not a plain file under data/.
    if (!/^data\/[A-Za-z0-9_.\/-]+\.js$/.test(src) || src.indexOf('..') >= 0) {
      return Promise.reject(new Error('refused data file path: ' + src));
    }
    if (!loading[src]) {
      loading[src] = new Promise((resolve, reject) => {
        const s = document.createElement('script');
        s.src = src;
        s.onload = () => resolve();
        s.onerror = () => {
          delete loading[src];
          s.remove();
          reject(new Error('missing data file: ' + src + ' (it could not be loaded)'));
        };
        document.head.appendChild(s);
      });
    }
    return loading[src];
  }

  function sysInfo(n) {
    return (MRB.overview.systems || []).find((s) => s.index === n) || null;
  }

  function sysFile(n) {
    const info = sysInfo(n);
    return (info && info.file) || 'data/sys-' + n + '.js';
  }

  function loadSystem(n) {
    if (!sysInfo(n)) return Promise.reject(new Error('no system with index ' + n + ' in data/overview.js'));
    const file = sysFile(n);
    return load(file).then(() => {
      const d = MRB.system && MRB.system[n];
      if (!d) throw new Error('data file ' + file + ' did not define system ' + n);
      return d;
    });
  }

  // Resolves to null when the system did not play the episode.
  function loadEpisode(n, eid) {
    return loadSystem(n).then((sys) => {
      const row = (sys.rows || []).find((r) => r.episode === eid);
      if (!row) return null;
      return load(row.file).then(() => {
        const ep = MRB.episode && MRB.episode[n + '/' + eid];
        if (!ep) throw new Error('data file ' + row.file + ' did not define episode ' + n + '/' + eid);
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
  const sysIndex = (s) => (/^\d+$/.test(s || '') ? parseInt(s, 10) : null);

  function route() {
    const r = parseHash();
    app.replaceChildren();
    app.className = '';
    window.scrollTo(0, 0);
    if (!isObj(MRB.overview)) {
      app.append(errorP('missing data file: data/overview.js (it could not be loaded or defines no MRB.overview)'));
      return;
    }
    const ov = MRB.overview;
    document.getElementById('site-title').textContent = ov.title || 'memriskbench view';
    document.getElementById('generated-by').textContent = ov.generated_by ? 'generated by ' + ov.generated_by : '';
    const [view, a, b] = r.path;
    if (!view) return renderOverview();
    if (view === 'system' && sysIndex(a) !== null && !b) return renderSystem(sysIndex(a), r.query);
    if (view === 'episode' && sysIndex(a) !== null && b) return renderEpisodePage(sysIndex(a), b);
    if (view === 'compare' && a && !b) return renderCompare(a, r.query);
    app.append(el('h1', {}, 'Not found'), errorP('unknown address: ' + location.hash), backNav());
  }

  function backNav(extra) {
    return el('nav', { class: 'back' }, el('a', { href: '#/' }, '← overview'), extra || null);
  }

  // ---------- overview ----------

  function renderOverview() {
    const ov = MRB.overview;
    document.title = 'Overview · ' + (ov.title || 'memriskbench view');
    app.append(el('h1', {}, 'Overview'));
    const warnings = ov.warnings || [];
    if (warnings.length) {
      app.append(el('div', { class: 'warning', id: 'warnings' }, el('strong', {}, 'Warnings'),
        el('ul', {}, warnings.map((w) => el('li', {}, w)))));
    }
    const bs = ov.bootstrap;
    if (isObj(bs)) {
      app.append(el('p', { class: 'meta-line' }, 'Intervals: ' + Math.round((bs.level || 0.95) * 100) + '% ' +
        (bs.method || '') + ' bootstrap, ' + bs.resamples + ' resamples, seed ' + bs.seed + '. Hover a cell for n.'));
    }
    for (const variant of ov.variants || ['default', 'safety_aware']) {
      app.append(el('h2', {}, 'Variant: ' + variant), variantTable(ov, variant));
    }
    const pk = ov.pass_k || {};
    if (Object.keys(pk).length) app.append(el('h2', {}, 'pass^k'), passKTable(ov, pk));
    const gm = (ov.systems || []).filter((s) => s.gatemem_imported);
    if (gm.length) app.append(el('h2', {}, 'GateMem (imported checkpoints)'), gatememTable(gm));
    app.append(compareForm(ov));
  }

  function variantTable(ov, variant) {
    const risks = ov.risks || [];
    const names = ov.risk_names || {};
    const heads = ['system', 'episodes', 'pass'].map((h) => el('th', {}, h))
      .concat(risks.map((r) => el('th', { title: names[r] || null }, r)))
      .concat(RATE_METRICS.concat(['terminations', 'audit']).map((h) => el('th', {}, h)));
    const rows = (ov.systems || []).map((s) => {
      const v = isObj(s[variant]) ? s[variant] : {};
      const at = (metric) => ({ 'data-system': s.index, 'data-variant': variant, 'data-metric': metric });
      const pass = estCell(v.pass_rate, at('pass'));
      if (isObj(v.checks)) {
        const c = v.checks;
        pass.title = (pass.title ? pass.title + ' · ' : '') + 'checks passed ' + c.passed + ' of ' + c.total +
          (c.not_applicable ? ', ' + c.not_applicable + ' n/a' : '');
      }
      const fin = s.episodes_finished, plan = s.episodes_planned;
      const gate = isObj(v.gatemem) ? v.gatemem : {};
      return el('tr', { 'data-system': s.index },
        el('td', { class: 'sys' }, el('a', { href: '#/system/' + s.index }, s.name)),
        el('td', { class: fin !== plan ? 'num incomplete' : 'num', title: 'finished / planned' },
          fin === plan ? String(fin) : fin + ' / ' + plan),
        pass,
        risks.map((r) => estCell((v.per_risk || {})[r], at(r))),
        RATE_METRICS.map((m) => estCell(gate[m], at(m))),
        el('td', { class: 'terms' }, Object.keys(s.terminations || {}).map((k) => k + ' ' + s.terminations[k]).join(' · ')),
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
    const mism = a.mismatched || [];
    const probs = a.problems || [];
    const rescored = a.rescored_equal === true ? 'rescore equals published results'
      : a.rescored_equal === false ? 'rescore DIFFERS from published results' : 'no published results to compare';
    add(td, [el('span', { class: 'badge ' + (a.ok ? 'ok' : 'fail') }, a.ok ? 'ok' : 'FAIL'), ' ',
      el('span', { class: 'states' }, 'chain ' + (a.chain || '?') + ' · ' +
        (a.episodes_match ? 'episodes match' : 'episodes changed: ' + mism.length) + ' · ' + rescored)]);
    if (probs.length || mism.length) {
      td.append(el('details', {}, el('summary', {}, 'problems (' + (probs.length + (mism.length ? 1 : 0)) + ')'),
        el('ul', {}, probs.map((p) => el('li', {}, p)),
          mism.length ? el('li', {}, 'changed since the trace was made: ' + mism.join(', ')) : null)));
    }
    return td;
  }

  function passKTable(ov, pk) {
    const ks = [];
    for (const name of Object.keys(pk)) {
      for (const k of Object.keys(pk[name]['pass^k'] || {})) if (ks.indexOf(k) < 0) ks.push(k);
    }
    ks.sort((x, y) => Number(x) - Number(y));
    const rows = Object.keys(pk).map((name) => {
      const d = pk[name];
      const s = (ov.systems || []).find((x) => x.name === name);
      return el('tr', {}, el('td', { class: 'sys' }, s ? el('a', { href: '#/system/' + s.index }, name) : name),
        el('td', { class: 'num' }, d.runs), el('td', { class: 'num' }, d.episodes),
        ks.map((k) => estCell((d['pass^k'] || {})[k], { 'data-pass-k': k, 'data-system-name': name })));
    });
    return table('pass-k', ['system', 'runs', 'episodes'].concat(ks.map((k) => 'pass^' + k)), rows);
  }

  // The imported GateMem block is shown as it comes: modes -> groups -> metrics.
  function gatememTable(systems) {
    const lines = [];
    const metrics = RATE_METRICS.slice();
    for (const s of systems) {
      const g = s.gatemem_imported;
      for (const mode of Object.keys(g)) {
        if (!isObj(g[mode])) continue;
        const flat = Object.keys(g[mode]).some((k) => isEst(g[mode][k]) || typeof g[mode][k] === 'number');
        const groups = flat ? { overall: g[mode] } : g[mode];
        for (const group of Object.keys(groups)) {
          if (!isObj(groups[group])) continue;
          for (const m of Object.keys(groups[group])) if (metrics.indexOf(m) < 0) metrics.push(m);
          lines.push({ s: s, mode: mode, group: group, vals: groups[group] });
        }
      }
    }
    const rows = lines.map((l) => el('tr', {},
      el('td', { class: 'sys' }, el('a', { href: '#/system/' + l.s.index }, l.s.name)),
      el('td', { class: 'num' }, l.s.gatemem_imported.episodes), el('td', { class: 'num' }, l.s.gatemem_imported.decisions),
      el('td', {}, l.mode), el('td', {}, l.group),
      metrics.map((m) => estCell(l.vals[m], {
        'data-system': l.s.index, 'data-gm-mode': l.mode, 'data-gm-group': l.group, 'data-gm-metric': m,
      }))));
    return table('gatemem', ['system', 'episodes', 'decisions', 'mode', 'group'].concat(metrics), rows);
  }

  function systemSelect(id, systems, selected) {
    return el('select', { id: id }, systems.map((s) =>
      el('option', { value: s.index, selected: s.index === selected ? 'selected' : null }, s.index + ': ' + s.name)));
  }

  function compareForm(ov) {
    const systems = ov.systems || [];
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
    document.title = 'Episodes · ' + (info ? info.name : n);
    app.append(backNav());
    if (!info) return app.append(errorP('no system with index ' + n + ' in data/overview.js'));
    app.append(el('h1', {}, 'Episodes of ' + info.name));
    const box = el('div', { class: 'system-view' }, el('p', { class: 'loading' }, 'loading ' + sysFile(n) + '…'));
    app.append(box);
    loadSystem(n).then((sys) => fillSystem(box, n, sys, query), (err) => box.replaceChildren(errorP(err.message)));
  }

  function fillSystem(box, n, sys, query) {
    const ov = MRB.overview;
    const rows = sys.rows || [];
    const state = { q: query.get('q') || '' };
    const distinct = (f) => Array.from(new Set(rows.map(f).filter((x) => x !== null && x !== undefined && x !== ''))).sort();
    const riskOrder = ov.risks || [];
    const values = {
      risk: distinct((r) => r.risk).sort((x, y) => (riskOrder.indexOf(x) - riskOrder.indexOf(y)) || (x < y ? -1 : 1)),
      tier: distinct((r) => r.tier), domain: distinct((r) => r.domain), outcome: OUTCOMES,
      check: Array.from(new Set([].concat.apply([], rows.map((r) => r.failed_types || [])))).sort(),
      term: distinct((r) => r.termination),
    };
    const controls = el('div', { class: 'filters' });
    for (const [key, id] of FILTERS) {
      state[key] = query.get(key) || '';
      const opts = values[key].slice();
      if (state[key] && opts.indexOf(state[key]) < 0) opts.push(state[key]);
      const sel = el('select', { id: id }, el('option', { value: '' }, 'all'),
        opts.map((v) => el('option', { value: v }, key === 'risk' && (ov.risk_names || {})[v] ? v + ' ' + ov.risk_names[v] : v)));
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
    lastSystemHash[n] = location.hash || '#/system/' + n;

    function hashFor() {
      const p = new URLSearchParams();
      for (const [key] of FILTERS) if (state[key]) p.set(key, state[key]);
      if (state.q.trim()) p.set('q', state.q.trim());
      const s = p.toString();
      return '#/system/' + n + (s ? '?' + s : '');
    }
    function changed() {
      const h = hashFor();
      lastSystemHash[n] = h;
      replaceHash(h);
      apply();
    }
    function matches(r, words) {
      for (const [key, , field] of FILTERS) {
        if (!state[key]) continue;
        if (field ? r[field] !== state[key] : (r.failed_types || []).indexOf(state[key]) < 0) return false;
      }
      const hay = String(r.search || r.episode || '').toLowerCase();
      return words.every((w) => hay.indexOf(w) >= 0);
    }
    function apply() {
      const words = state.q.toLowerCase().split(/\s+/).filter(Boolean);
      const shown = rows.filter((r) => matches(r, words));
      const frag = document.createDocumentFragment();
      for (const r of shown) frag.append(episodeRow(n, r, ov));
      tbody.replaceChildren(frag);
      count.textContent = shown.length + ' of ' + rows.length + ' episodes';
    }
    apply();
  }

  function episodeRow(n, r, ov) {
    return el('tr', { 'data-episode': r.episode, title: r.note || null },
      el('td', {}, el('a', { class: 'ep-link', href: '#/episode/' + n + '/' + enc(r.episode) }, r.episode),
        r.note ? el('span', { class: 'note-flag', title: r.note }, ' ⚠') : null),
      el('td', { title: (ov.risk_names || {})[r.risk] || null }, r.risk),
      el('td', {}, r.tier), el('td', {}, r.domain),
      el('td', { class: outcomeClass(r.outcome), title: 'safety_aware: ' + (r.outcome_safety_aware || '–') }, r.outcome),
      el('td', {}, (r.failed_types || []).join(', ')),
      el('td', {}, r.termination));
  }

  // ---------- one episode ----------

  function renderEpisodePage(n, eid) {
    const info = sysInfo(n);
    document.title = eid + ' · ' + (info ? info.name : n);
    app.append(backNav(info ? [' ', el('a', { href: lastSystemHash[n] || '#/system/' + n, class: 'back-to-system' },
      '← episodes of ' + info.name)] : null));
    app.append(el('h1', {}, eid));
    if (!info) return app.append(errorP('no system with index ' + n + ' in data/overview.js'));
    const others = (MRB.overview.systems || []).filter((s) => s.index !== n);
    if (others.length) {
      const sel = systemSelect('cmp-other', others, others[0].index);
      const form = el('form', { class: 'compare-form', id: 'compare-with' },
        el('label', {}, 'compare with… ', sel), ' ', el('button', { type: 'submit' }, 'compare'));
      form.addEventListener('submit', (ev) => { ev.preventDefault(); location.hash = compareHash(eid, n, sel.value); });
      app.append(form);
    }
    const box = el('div', { class: 'episode-view' });
    app.append(box);
    fillEpisode(box, n, eid);
  }

  function fillEpisode(box, n, eid) {
    box.replaceChildren(el('p', { class: 'loading' }, 'loading…'));
    loadEpisode(n, eid).then(
      (ep) => box.replaceChildren(ep ? episodeNode(ep, n) : el('p', { class: 'missing' }, 'not in this trace')),
      (err) => box.replaceChildren(errorP(err.message)));
  }

  function renderCompare(eid, query) {
    const a = sysIndex(query.get('a')), b = sysIndex(query.get('b'));
    document.title = 'Compare ' + eid;
    app.className = 'wide';
    app.append(backNav(), el('h1', {}, 'Compare ' + eid));
    const sides = el('div', { class: 'sides' });
    app.append(sides);
    for (const [label, n] of [['A', a], ['B', b]]) {
      const side = el('div', { class: 'side', 'data-system': n === null ? null : n });
      sides.append(side);
      const info = n === null ? null : sysInfo(n);
      if (!info) { side.append(errorP('system ' + label + ': no system with index ' + query.get(label.toLowerCase()))); continue; }
      side.append(el('h2', {}, label + ': ', el('a', { href: '#/system/' + n }, info.name)),
        el('p', {}, el('a', { href: '#/episode/' + n + '/' + enc(eid) }, 'open alone')));
      const box = el('div', { class: 'episode-view' });
      side.append(box);
      fillEpisode(box, n, eid);
    }
  }

  function episodeNode(ep, n) {
    const ov = MRB.overview;
    const root = el('div', { class: 'episode', 'data-system': n, 'data-episode': ep.episode });
    const info = sysInfo(n);
    const meta = [
      ['system', el('a', { href: '#/system/' + n }, ep.name || (info && info.name) || String(n))],
      ['episode', ep.episode],
      ['risk', (ep.risk || '') + ((ov.risk_names || {})[ep.risk] ? ' (' + ov.risk_names[ep.risk] + ')' : '')],
      ['tier', ep.tier], ['domain', ep.domain],
      ['outcome', el('span', { class: 'outcome ' + outcomeClass(ep.outcome) }, ep.outcome)],
      ['termination', ep.termination], ['path', (ep.path || []).join(' → ')],
    ];
    if (ep.description) meta.push(['description', ep.description]);
    root.append(el('dl', { class: 'meta' }, meta.map(([k, v]) => [el('dt', {}, k), el('dd', {}, v)])));
    if (ep.note) root.append(el('p', { class: 'warning' }, ep.note));
    const tl = el('div', { class: 'timeline' });
    for (const it of ep.timeline || []) {
      if (it.kind === 'event') tl.append(eventCard(it));
      else if (it.kind === 'memory_op') tl.append(memOpCard(it));
      else if (it.kind === 'decision') tl.append(decisionCard(it, root));
      else tl.append(el('div', { class: 'card other' }, el('div', { class: 'card-head' }, String(it.kind)), el('pre', {}, json(it))));
    }
    root.append(tl, el('p', { class: 'termination' }, el('strong', {}, 'termination: '), ep.termination || '–'));
    return root;
  }

  function opText(op) {
    if (!isObj(op)) return str(op);
    let s = (op.op || '?') + (op.id ? ' ' + op.id : '');
    if (op.key !== undefined && op.key !== null) s += ' ' + op.key;
    if (op.value !== undefined && op.value !== null) s += ' = ' + (typeof op.value === 'string' ? '"' + op.value + '"' : JSON.stringify(op.value));
    const extra = ['scope', 'visibility', 'owner'].filter((k) => op[k] !== undefined && op[k] !== null && op[k] !== '')
      .map((k) => k + ' ' + str(op[k]));
    if (extra.length) s += ' (' + extra.join(', ') + ')';
    if (op.supersedes) s += ' supersedes ' + op.supersedes;
    return s;
  }

  function opBadge(op) {
    const kind = isObj(op) ? String(op.op || 'other').replace(/[^a-z_]/gi, '') : 'other';
    return el('span', { class: 'badge op op-' + kind, title: JSON.stringify(op) }, opText(op));
  }

  function kvList(obj) {
    if (!isObj(obj)) return el('ul', { class: 'kv' }, el('li', {}, str(obj)));
    return el('ul', { class: 'kv' }, Object.keys(obj).map((k) => el('li', {}, el('span', { class: 'k' }, k), ': ', str(obj[k]))));
  }

  function eventCard(it) {
    const card = el('div', { class: 'card event', id: 'event-' + it.event },
      el('div', { class: 'card-head' }, el('span', { class: 'tag' }, it.event), ' ',
        el('strong', { class: 'speaker' }, it.speaker || ''), ' ', el('span', { class: 'time' }, it.timestamp || '')),
      el('p', { class: 'text' }, it.text || ''));
    if ((it.memory || []).length) card.append(el('div', { class: 'ops' }, el('span', { class: 'label' }, 'memory '), it.memory.map(opBadge)));
    for (const key of ['policy', 'constraints']) {
      if ((it[key] || []).length) card.append(el('div', { class: 'kvs ' + key }, el('span', { class: 'label' }, key), it[key].map(kvList)));
    }
    return card;
  }

  function memOpCard(it) {
    const card = el('div', { class: 'card memory-op' },
      el('div', { class: 'card-head' }, el('span', { class: 'tag' }, it.event || ''), ' ', el('strong', {}, 'memory operation by the system'), ' ',
        el('span', { class: it.result === 'ok' ? 'result pass' : 'result fail' }, 'result: ' + str(it.result))),
      it.op ? el('div', { class: 'ops' }, opBadge(it.op)) : null);
    if (it.raw_output !== undefined && it.raw_output !== null) {
      card.append(el('details', {}, el('summary', {}, 'raw output'), el('pre', { class: 'raw' }, str(it.raw_output))));
    }
    return card;
  }

  // Failed under the default (normalized) matching; n/a checks never fail.
  const checkFailed = (c) => c.applicable !== false && c.normalized === false;

  function decisionCard(it, root) {
    const verdict = it.passed === true ? ['pass', 'PASS'] : it.passed === false ? ['fail', 'FAIL'] : ['na', 'n/a'];
    const card = el('section', { class: 'card decision', id: 'decision-' + it.decision, 'data-decision': it.decision },
      el('div', { class: 'card-head' }, el('span', { class: 'tag' }, it.decision), ' ', el('span', { class: 'time' }, it.timestamp || ''), ' ',
        'requester: ', el('strong', {}, it.requester || '?'), ' ', el('span', { class: 'badge ' + verdict[0] }, verdict[1])),
      el('p', { class: 'query' }, el('span', { class: 'label' }, 'request '), it.query || ''));
    const checks = it.checks || [];
    const failed = checks.filter(checkFailed);
    (it.steps || []).forEach((st, i) => card.append(stepNode(st, i, failed)));
    if (checks.length) card.append(checksTable(checks, root));
    return card;
  }

  function listOr(xs, none) {
    return xs.length ? xs.join(', ') : none;
  }

  function stepNode(st, i, failed) {
    const no = st.step !== undefined && st.step !== null ? st.step : i;
    const tok = isObj(st.tokens) ? ' · tokens ' + st.tokens.prompt + ' + ' + st.tokens.completion : '';
    const shown = st.shown_events === null || st.shown_events === undefined ? 'shown: whole history'
      : 'shown events: ' + listOr(st.shown_events, '(none)');
    const mem = Array.isArray(st.shown_memory) ? ' · shown memory: ' + listOr(st.shown_memory, '(none)') : '';
    const node = el('div', { class: 'step', 'data-step': no },
      el('div', { class: 'step-head' }, el('strong', {}, 'step ' + no), el('span', { class: 'small' }, tok)),
      el('p', { class: 'shown' }, shown + mem));
    if (st.context_text !== null && st.context_text !== undefined) {
      node.append(el('details', { class: 'context' }, el('summary', {}, 'context shown (' + String(st.context_text).length + ' chars)'),
        el('pre', {}, str(st.context_text))));
    }
    if (st.raw_output !== null && st.raw_output !== undefined) {
      node.append(el('details', { open: 'open', class: 'raw-output' }, el('summary', {}, 'raw output'), el('pre', { class: 'raw' }, str(st.raw_output))));
    }
    const a = st.action;
    if (isObj(a)) {
      const act = el('div', { class: 'action' }, el('span', { class: 'label' }, 'action '), el('span', { class: 'badge type' }, a.type || '?'));
      if (a.content !== undefined && a.content !== null) {
        const spans = [];
        for (const c of failed) {
          for (const sp of c.spans || []) {
            if (Array.isArray(sp) && sp.length === 3 && sp[0] === no) spans.push({ s: sp[1], e: sp[2], id: c.id });
          }
        }
        act.append(el('pre', { class: 'content' }, highlight(str(a.content), spans)));
      }
      if (a.tool) act.append(el('div', { class: 'tool' }, el('span', { class: 'label' }, 'tool '), el('code', {}, a.tool)));
      if (a.args !== undefined && a.args !== null) act.append(el('pre', { class: 'args' }, json(a.args)));
      const rest = Object.keys(a).filter((k) => ['type', 'content', 'tool', 'args'].indexOf(k) < 0);
      if (rest.length) act.append(kvList(rest.reduce((o, k) => ((o[k] = a[k]), o), {})));
      node.append(act);
    } else {
      node.append(el('p', { class: 'action none' }, 'no parsed action'));
    }
    if (st.error) node.append(el('p', { class: 'step-error' }, 'error: ' + str(st.error)));
    if (st.tool_result !== null && st.tool_result !== undefined) {
      node.append(el('details', { open: 'open', class: 'tool-result' }, el('summary', {}, 'tool result'), el('pre', {}, json(st.tool_result))));
    }
    return node;
  }

  // Overlapping spans become one mark that names every check it belongs to.
  function highlight(text, spans) {
    const ivs = spans
      .map((x) => ({ s: Math.max(0, Math.min(text.length, Number(x.s))), e: Math.max(0, Math.min(text.length, Number(x.e))), id: String(x.id) }))
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
      if (m.s > pos) frag.append(text.slice(pos, m.s));
      frag.append(el('mark', { class: 'hl', 'data-check': m.ids.join(' ') }, text.slice(m.s, m.e)));
      pos = m.e;
    }
    if (pos < text.length) frag.append(text.slice(pos));
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
      if (hover) on.add(hover);
      for (const m of root.querySelectorAll('mark.hl')) {
        m.classList.toggle('focus', (m.getAttribute('data-check') || '').split(' ').some((id) => on.has(id)));
      }
    }
    const rows = checks.map((c) => {
      const tr = el('tr', { class: checkFailed(c) ? 'failed-check' : null, 'data-check': c.id },
        el('td', {}, el('code', {}, c.id)),
        el('td', {}, c.type, c.ambient ? [' ', el('span', { class: 'tag ambient' }, 'ambient')] : null),
        verdictCell(c, 'normalized'), verdictCell(c, 'strict'),
        el('td', { class: 'evidence' }, c.evidence || ''));
      tr.addEventListener('mouseenter', () => refocus(c.id));
      tr.addEventListener('mouseleave', () => refocus(null));
      tr.addEventListener('click', () => { tr.classList.toggle('pinned'); refocus(c.id); });
      return tr;
    });
    return table('checks', ['check', 'type', 'normalized', 'strict', 'evidence'], rows);
  }

  // ---------- start ----------

  window.addEventListener('hashchange', () => {
    if (skipHash !== null && location.hash === skipHash) { skipHash = null; return; }
    skipHash = null;
    route();
  });
  route();
})();
