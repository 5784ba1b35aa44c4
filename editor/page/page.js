// The editor's page: the project's state from /state, kept live by the editor's server-sent events
// (/events). Parameter widgets write the material's JSON through POST /material; the editor's own
// watcher rebuilds it and the new picture arrives as a `preview` event.
'use strict';

// What the page measured, for people (the header) and for tests and benchmarks.
window.kiln = { eventToPage: [], dragToPixels: [], state: null, readOnly: false };

const $ = (selector, root = document) => root.querySelector(selector);
const make = (tag, props = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key.startsWith('data-')) node.setAttribute(key, value);
    else node[key] = value;
  }
  for (const child of children) if (child) node.append(child);
  return node;
};
const pictureUrl = (material) => '/pictures/' + material.replace(/\.json$/, '.png');
const fmt = (n, digits = 2) => (Math.round(n * 10 ** digits) / 10 ** digits).toString();
const bytes = (n) => n > 1 << 20 ? fmt(n / (1 << 20), 1) + ' MiB' : n > 1024 ? fmt(n / 1024, 1) + ' KiB' : n + ' B';

// ---- materials -------------------------------------------------------------------------------

const cards = new Map();     // material file -> its card's parts
const awaiting = new Map();  // material file -> when the edit whose picture is awaited was made

function colourWidget(value) {
  // A colour: three or four numbers from 0 to 1 under a name that says so.
  return (value.length === 3 || value.length === 4) && value.every((v) => v >= 0 && v <= 1);
}
const isColourName = (name) => /colou?r|tint|albedo|emissive/i.test(name);
const toHex = (v) => '#' + v.slice(0, 3).map((c) => Math.round(c * 255).toString(16).padStart(2, '0')).join('');
const fromHex = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);

// One write in flight per material; a newer value waits and replaces any older one waiting.
const writing = new Map();
function write(file, param, value) {
  if (window.kiln.readOnly) return;
  const slot = writing.get(file) || { busy: false, next: null };
  writing.set(file, slot);
  slot.next = { param, value, at: performance.now() };
  if (!slot.busy) send(file, slot);
}
async function send(file, slot) {
  const edit = slot.next;
  slot.next = null;
  slot.busy = true;
  // The picture may come back before the answer does: the edit's time is noted first.
  awaiting.set(file, edit.at);
  try {
    const res = await fetch('/material', { method: 'POST', headers: { 'Content-Type': 'application/json' },
                                           body: JSON.stringify({ file, param: edit.param, value: edit.value }) });
    if (!res.ok) {
      awaiting.delete(file);
      log({ event: 'page_error', file, error: await res.text() });
    }
  } finally {
    slot.busy = false;
    if (slot.next) send(file, slot);
  }
}

function paramRow(file, param) {
  const row = make('div', { class: 'param', 'data-param': param.name });
  const shown = make('span', { class: 'value' });
  row.append(make('label', { text: param.name, title: param.name }));
  const values = param.value.slice();
  const show = () => { shown.textContent = values.map((v) => fmt(v)).join(' '); };
  if (isColourName(param.name) && colourWidget(values)) {
    const picker = make('input', { type: 'color', value: toHex(values), disabled: window.kiln.readOnly });
    picker.setAttribute('data-param', param.name);
    picker.addEventListener('input', () => {
      fromHex(picker.value).forEach((c, i) => { values[i] = c; });
      show();
      write(file, param.name, values.slice());
    });
    row.append(picker);
    row.update = (v) => { if (document.activeElement !== picker) { v.forEach((c, i) => { values[i] = c; }); picker.value = toHex(v); show(); } };
  } else {
    const box = make('div', { class: 'components' });
    const sliders = values.map((v, i) => {
      const max = Math.max(1, Math.ceil(Math.abs(v) * 2));
      const slider = make('input', { type: 'range', min: v < 0 ? -max : 0, max, step: 0.01, value: v,
                                     disabled: window.kiln.readOnly });
      slider.setAttribute('data-param', param.name);
      slider.setAttribute('data-component', i);
      slider.addEventListener('input', () => {
        values[i] = Number(slider.value);
        show();
        write(file, param.name, values.length === 1 ? values[0] : values.slice());
      });
      box.append(slider);
      return slider;
    });
    row.append(box);
    row.update = (v) => v.forEach((c, i) => {
      if (sliders[i] && document.activeElement !== sliders[i]) { values[i] = c; sliders[i].value = c; }
      show();
    });
  }
  row.append(shown);
  show();
  return row;
}

function renderMaterial(m) {
  let card = cards.get(m.file);
  if (!card) {
    const root = make('article', { class: 'card', 'data-file': m.file });
    card = { root, picture: make('img', { class: 'picture', alt: m.file }), name: make('div', { class: 'name' }),
             sub: make('div', { class: 'sub' }), problem: make('div', { class: 'problem' }),
             passes: make('table', { class: 'passes' }), params: make('div', { class: 'params' }), rows: new Map() };
    root.append(card.picture, card.name, card.sub, card.problem, card.passes, card.params);
    cards.set(m.file, card);
    $('#materials').append(root);
  }
  card.name.textContent = m.file;
  card.sub.textContent = m.shader ? m.shader + (m.keywords && m.keywords.length ? ' · ' + m.keywords.join(' ') : '') : '';
  card.problem.textContent = m.error || '';
  card.root.classList.toggle('error', !!m.error);
  if (m.picture && !card.picture.getAttribute('src')) card.picture.src = m.picture + '?v=' + Date.now();
  // A material with nothing to draw (a post-process pass) or no picture yet says so.
  card.picture.classList.toggle('none', !m.picture && !card.picture.getAttribute('src'));
  card.picture.alt = m.picture ? m.file : 'no preview';
  card.passes.replaceChildren(make('tr', {}, make('th', { text: 'pass' }), make('th', { text: 'variant' }),
                                   make('th', { text: 'state' }), make('th', { text: 'ms' })),
    ...(m.passes || []).map((p) => make('tr', { 'data-variant': p.variant },
      make('td', { text: p.pass }), make('td', { class: 'mono', text: p.digest || '-' }),
      make('td', {}, make('span', { class: 'chip ' + p.state, text: p.state })),
      make('td', { text: p.compile_ms !== undefined ? fmt(p.compile_ms, 1) : '' }))));
  for (const param of m.params || []) {
    let row = card.rows.get(param.name);
    if (!row) {
      row = paramRow(m.file, param);
      card.rows.set(param.name, row);
      card.params.append(row);
    } else {
      row.update(param.value);
    }
  }
}

function showPicture(file, sentAt) {
  const card = cards.get(file);
  if (!card) return;
  const asked = awaiting.get(file);
  card.picture.onload = () => {
    if (asked !== undefined) {
      window.kiln.dragToPixels.push(performance.now() - asked);
      awaiting.delete(file);
    }
  };
  card.picture.src = pictureUrl(file) + '?v=' + sentAt;
}

// ---- shaders, scripts, textures, caches ------------------------------------------------------

function renderShaders(shaders) {
  $('#shaders').replaceChildren(...shaders.map((s) => {
    const box = make('div', { class: 'shader', 'data-shader': s.id },
      make('div', {}, make('strong', { text: s.id }), make('span', { class: 'sub', text: '  ' + s.stage_files.join(', ') })),
      make('div', { class: 'sub', text: s.variants.length + ' variants in use: ' + s.variants.join(', ') }));
    for (const e of s.errors) {
      const where = e.file ? e.file + ':' + e.line : '';
      box.append(make('div', { class: 'error' }, make('span', { class: 'where', text: where }),
                      make('span', { text: (where ? ' ' : '') + e.message })));
      if (e.source) box.append(make('pre', { text: e.source }));
    }
    return box;
  }));
}

function renderScripts(scripts) {
  $('#scripts tbody').replaceChildren(...scripts.map((s) => make('tr', { 'data-script': s.file },
    make('td', { text: s.file + (s.error ? ' — ' + s.error : ''), class: s.error ? 'problem' : '' }),
    make('td', { text: s.pages ?? '' }), make('td', { text: s.compiled ?? '' }),
    make('td', { text: s.from_cache ?? '' }), make('td', { text: s.interpreted ?? '' }))));
}

const figures = new Map();  // texture file -> its figure; thumbnails are fetched again only when it changes
function renderTextures(textures) {
  for (const t of textures) {
    let figure = figures.get(t.file);
    if (!figure) {
      figure = { root: make('figure', { 'data-texture': t.file }), img: make('img', { alt: t.file }),
                 caption: make('figcaption') };
      figure.root.append(figure.img, figure.caption);
      figures.set(t.file, figure);
      $('#textures').append(figure.root);
    }
    if (t.thumbnail && !figure.img.getAttribute('src')) figure.img.src = t.thumbnail + '?v=' + Date.now();
    figure.img.classList.toggle('none', !t.thumbnail);
    figure.caption.textContent = t.file + (t.width ? ` ${t.width}×${t.height}, ${t.levels} levels` : '');
  }
  for (const [file, figure] of figures)
    if (!textures.some((t) => t.file === file)) { figure.root.remove(); figures.delete(file); }
}

function textureChanged(file, sentAt) {
  const figure = figures.get(file);
  if (figure && figure.img.getAttribute('src')) figure.img.src = figure.img.src.replace(/\?v=.*$/, '?v=' + sentAt);
}

const history = new Map();  // cache kind -> hit rates over the session
function renderCaches(caches) {
  const rows = [];
  for (const [kind, c] of Object.entries(caches)) {
    const asked = c.hits + c.misses;
    const rate = asked ? c.hits / asked : 0;
    const series = history.get(kind) || [];
    series.push(rate);
    if (series.length > 120) series.shift();
    history.set(kind, series);
    const points = series.map((r, i) => `${(i / Math.max(1, series.length - 1)) * 150},${28 - r * 26 - 1}`).join(' ');
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.setAttribute('viewBox', '0 0 150 28');
    const line = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
    line.setAttribute('points', points);
    svg.append(line);
    rows.push(make('div', { class: 'cache', 'data-cache': kind }, make('strong', { text: kind }),
      make('span', { text: `${c.entries} entries${c.bytes !== undefined ? ', ' + bytes(c.bytes) : ''}, ` +
                           `${fmt(rate * 100, 1)} % hits (${c.hits} of ${asked})` }), svg));
  }
  $('#caches').replaceChildren(...rows);
}

// What each part of the page was last drawn from: a part whose data did not change is left alone,
// so that a state pushed after every event costs the page (and the machine drawing the previews)
// next to nothing.
const drawnFrom = new Map();
function changed(part, data) {
  const text = JSON.stringify(data);
  if (drawnFrom.get(part) === text) return false;
  drawnFrom.set(part, text);
  return true;
}

function renderState(state) {
  window.kiln.state = state;
  $('#project').textContent = state.project || '';
  for (const m of state.materials || []) if (changed('material:' + m.file, m)) renderMaterial(m);
  for (const [file, card] of cards)
    if (!(state.materials || []).some((m) => m.file === file)) {
      card.root.remove();
      cards.delete(file);
      drawnFrom.delete('material:' + file);
    }
  if (changed('shaders', state.shaders)) renderShaders(state.shaders || []);
  if (changed('scripts', state.scripts)) renderScripts(state.scripts || []);
  if (changed('textures', state.textures)) renderTextures(state.textures || []);
  renderCaches(state.caches || {});
}

// States come after every event; only the newest is drawn, once per frame.
let pendingState = null;
function stateArrived(state) {
  const first = pendingState === null;
  pendingState = state;
  if (first) requestAnimationFrame(() => { const s = pendingState; pendingState = null; renderState(s); });
}

// ---- events ----------------------------------------------------------------------------------

function summary(e) {
  if (e.error) return e.error.split('\n')[0];
  if (e.errors && e.errors.length) return e.errors[0].split('\n')[0];
  if (e.event === 'preview') return 'picture in ' + fmt(e.pixels_ms, 1) + ' ms';
  if (e.event === 'previews') return (e.previews || []).length + ' pictures, all in ' + fmt(e.all_pixels_ms || 0, 1) + ' ms';
  if (e.compile_ms !== undefined) return 'built in ' + fmt(e.compile_ms, 1) + ' ms';
  return '';
}

function log(e) {
  const bad = /error/.test(e.event);
  const when = new Date(e.sent_at || Date.now()).toLocaleTimeString();
  const item = make('li', { class: bad ? 'bad' : '', 'data-event': e.event },
    make('time', { text: when }), document.createTextNode(`${e.event} ${e.file || ''} ${summary(e)}`));
  $('#log').prepend(item);
  while ($('#log').children.length > 200) $('#log').lastChild.remove();
}

function onEvent(e) {
  if (e.event === 'state') return stateArrived(e);
  if (e.event === 'caches') return renderCaches(e.caches);
  log(e);
  if (e.event === 'preview') showPicture(e.file, e.sent_at);
  if (e.event === 'texture') textureChanged(e.image, e.sent_at);
  // From the editor's event to this page showing it, on the page's own clock.
  requestAnimationFrame(() => {
    const delay = Date.now() - e.sent_at;
    window.kiln.eventToPage.push(delay);
    $('#latency').textContent = 'event to page ' + delay + ' ms';
  });
}

async function start() {
  const res = await fetch('/state');
  const first = await res.json();
  window.kiln.readOnly = first.read_only;
  $('#mode').textContent = first.read_only ? 'read-only' : '';
  renderState(first.state);
  for (const e of first.log) if (e.event !== 'state' && e.event !== 'caches') log(e);
  const events = new EventSource('/events');
  events.onopen = () => { $('#connection').textContent = 'live'; $('#connection').className = 'chip fresh'; };
  events.onerror = () => { $('#connection').textContent = 'reconnecting'; $('#connection').className = 'chip stale'; };
  events.onmessage = (message) => onEvent(JSON.parse(message.data));
}

start();
