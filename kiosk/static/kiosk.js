// acbridge kiosk page: shows the state the server streams and sends the
// on-screen presses. Plain DOM, no build step. Text from the agent is only
// ever set with textContent.
'use strict';

(() => {
  const token = document.querySelector('meta[name="acbridge-token"]').content;
  const $ = (id) => document.getElementById(id);
  // Every word comes from the server, in the visitor's language: the
  // template's first paint, then each state's words.
  let words = {};
  const w = (k) => words[k] || '';
  const label = (c) => (c === 'talk' ? (last && last.talk) || '' : w('control.' + c));
  const LONG_PRESS = 800; // ms: a long press of a control turns speech mode on

  let pageId = null; // given by the server on each stream connection
  let last = null; // last state rendered
  const items = new Map(); // entry id -> {li, text, open}
  let firstRender = true;

  // --- the page's own foreground report (spec: collections only from a
  // visible control in the foreground) ---
  function front() {
    return { visible: document.visibilityState === 'visible', focused: document.hasFocus() };
  }

  async function post(path, body) {
    const res = await fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Acbridge-Token': token },
      body: JSON.stringify(Object.assign({ page: pageId }, front(), body)),
      cache: 'no-store',
      credentials: 'same-origin',
    });
    let data = {};
    try { data = await res.json(); } catch (_) { /* empty body */ }
    if (res.status === 403 && data.reason === 'token') scheduleReload();
    return { ok: res.ok, status: res.status, data };
  }

  function report() {
    if (pageId) post('/api/focus', {}).catch(() => {});
  }
  document.addEventListener('visibilitychange', report);
  window.addEventListener('focus', report);
  window.addEventListener('blur', () => { releaseTalk(); report(); });

  // --- live stream ---
  let reloadTimer = null;
  function scheduleReload() {
    // A new start of acbridge has a new token: the page must be reloaded.
    if (!reloadTimer) reloadTimer = setTimeout(() => location.reload(), 3000);
  }

  function connect() {
    const es = new EventSource('/api/events?token=' + encodeURIComponent(token));
    es.addEventListener('hello', (e) => {
      pageId = JSON.parse(e.data).page;
      report();
    });
    es.addEventListener('state', (e) => render(JSON.parse(e.data)));
    es.onerror = () => {
      pageId = null;
      offline();
      // CLOSED: the server answered but refused the stream (a restart with
      // a new token); otherwise EventSource retries by itself.
      if (es.readyState === EventSource.CLOSED) scheduleReload();
    };
  }

  function offline() {
    const o = $('offline').dataset;
    setPill('conn', 'offline', w('conn.offline') || o.pill);
    setPill('reader', 'unknown', '');
    setPill('camera', 'unknown', '');
    $('offline').hidden = false;
    $('offline-title').textContent = w('screen.title') || o.title;
    $('offline-detail').textContent = w('screen.detail') || o.detail;
    for (const b of controls()) {
      b.disabled = true;
      b.classList.remove('requested');
    }
    // What was shown may no longer be true: the next state redraws it.
    $('prompt').hidden = true;
    $('armed').hidden = true;
    countdown(null);
    $('listening').hidden = true;
    last = null;
  }

  // countdown shows the seconds the reader has left, from the page's own
  // clock, in the words of a (the armed state); null stops it.
  let ticking = null;
  function countdown(a) {
    clearInterval(ticking);
    ticking = null;
    $('armed-left').textContent = '';
    if (!a || !a.seconds || !a.left) return;
    const start = Date.now();
    const show = () => {
      const n = Math.max(0, a.seconds - Math.floor((Date.now() - start) / 1000));
      $('armed-left').textContent = a.left.replace('{n}', String(n));
      if (n === 0) { clearInterval(ticking); ticking = null; }
    };
    show();
    ticking = setInterval(show, 1000);
  }

  // --- rendering ---
  function setPill(id, state, text) {
    const el = $(id);
    el.dataset.state = state;
    $(id + '-text').textContent = text;
  }

  function controls() { return document.querySelectorAll('.controls button[data-control]'); }

  function renderWords(v) {
    words = v.words;
    document.documentElement.lang = v.lang;
    document.documentElement.dir = v.dir;
    document.title = v.title;
    $('title').textContent = v.title;
    $('purpose').textContent = v.purpose;
    $('empty-text').textContent = w('empty');
    $('pills').setAttribute('aria-label', w('status.label'));
    document.querySelector('.controls').setAttribute('aria-label', w('controls.label'));
    $('conversation').setAttribute('aria-label', w('conversation.label'));
    $('prompt-title').textContent = w('prompt.heading');
    for (const b of controls()) b.querySelector('.label').textContent = label(b.dataset.control);
    $('talk-hint').textContent = v.talk;
    const form = $('say');
    if (form) {
      $('say-label').textContent = w('say.label');
      $('say-text').placeholder = w('say.placeholder');
      $('say-send').textContent = w('say.send');
    }
    // The language button names the language in its own words.
    const lb = $('btn-lang');
    lb.hidden = v.languages.length < 2;
    $('lang-label').textContent = w('lang.name');
    $('lang-what').textContent = w('lang.button');
    lb.setAttribute('aria-label', w('lang.button') + ': ' + w('lang.name'));
    const sb = $('btn-speech');
    sb.hidden = !v.speech;
    sb.setAttribute('aria-pressed', v.speech === 'on' ? 'true' : 'false');
    $('speech-label').textContent = v.speech === 'on' ? w('speech.on') : w('control.speech');
    sb.title = w('speech.hint');
  }

  // The device problems current now, each until it is fixed; a new one
  // is announced once.
  let shownProblems = [];
  function renderProblems(ps) {
    const list = $('problems-list');
    list.replaceChildren(...ps.map(p => {
      const li = document.createElement('li');
      li.textContent = p.text;
      li.dataset.code = p.code;
      return li;
    }));
    $('problems').hidden = ps.length === 0;
    const fresh = ps.filter(p => !shownProblems.includes(p.code));
    if (fresh.length) say('announce', fresh.map(p => p.text).join(' '));
    shownProblems = ps.map(p => p.code);
  }

  function render(v) {
    last = Object.assign({}, last || {}, { talk: v.talk });
    renderWords(v);
    const c = v.connection;
    setPill('conn', c.state, c.label);
    $('offline').hidden = c.state !== 'disconnected';
    if (c.state === 'disconnected') {
      $('offline-title').textContent = c.title || '';
      $('offline-detail').textContent = c.detail || '';
    }
    renderProblems(v.problems || []);
    setPill('reader', v.reader, v.reader === 'unknown' ? '' : w('reader.' + v.reader));
    setPill('camera', v.camera, v.camera === 'unknown' ? '' : w('camera.' + v.camera));

    // Armed banner
    $('armed').hidden = !v.armed;
    if (v.armed) {
      const t = v.armed.text;
      $('armed-text').textContent = t;
      if (!last.armed || last.armed.extended !== v.armed.extended || last.armed.control !== v.armed.control) {
        say('alert', t);
        countdown(v.armed);
      }
    } else {
      countdown(null);
    }

    // The microphone, open for exactly a turn or an engagement
    $('listening').hidden = !v.listening;
    $('btn-talk').classList.toggle('listening', !!v.listening);
    $('btn-talk').setAttribute('aria-pressed', v.listening ? 'true' : 'false');
    if (v.listening) {
      $('listening-text').textContent = v.listening;
      if (!last.listening) say('alert', v.listening);
    }

    // The agent's request with its own control
    const p = v.prompt;
    $('prompt').hidden = !p;
    const pb = $('prompt-button');
    if (p) {
      $('prompt-text').textContent = p.text;
      pb.dataset.control = p.control;
      const icon = document.querySelector('.controls [data-control="' + p.control + '"] svg');
      const label = document.createElement('span');
      label.className = 'label';
      label.textContent = p.label;
      pb.replaceChildren(icon ? icon.cloneNode(true) : '', label);
      pb.disabled = !v.controls.includes(p.control) || !!v.armed;
      // While its collection runs, the banner below says what to do.
      pb.hidden = !!v.armed && v.armed.control === p.control;
      const isNew = !last.prompt || last.prompt.text !== p.text || last.prompt.control !== p.control;
      if (isNew) {
        say('alert', w('prompt.heading') + ': ' + p.text + ' ' + w('prompt.press') + ' ' + p.label + '.');
        // The physical buttons' walk keeps the focus where it put it.
        if (!v.walked && (document.activeElement === document.body || !document.activeElement)) pb.focus();
      }
    }
    for (const b of controls()) {
      const ctl = b.dataset.control;
      b.disabled = !v.controls.includes(ctl);
      b.classList.toggle('requested', !!p && ctl === p.control);
      // A control that cannot act says why, in words.
      const r = $('reason-' + ctl);
      r.textContent = v.reasons[ctl] || '';
      r.hidden = !v.reasons[ctl];
    }

    walk(v);
    renderEntries(v.entries);
    const say2 = $('say');
    if (say2) say2.querySelector('button').disabled = c.state !== 'connected';
    last = v;
    firstRender = false;
  }

  // The control the physical buttons' focus walk rests on (a short press
  // of Cancel walks) has the focus ring, and the page's focus when the walk
  // moves: not on every state, which would take the focus from the text
  // box a visitor is typing in. A disabled control cannot hold the focus:
  // the ring alone shows it.
  function walk(v) {
    for (const b of document.querySelectorAll('.walked')) b.classList.remove('walked');
    const b = v.walked ? $('btn-' + v.walked) : null;
    if (!b) return;
    b.classList.add('walked');
    if (last.walkSteps === v.walkSteps) return;
    if (!b.disabled) b.focus({ focusVisible: true });
    else if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur();
  }

  function renderEntries(entries) {
    // Words of ours change with the language; the agent's stay.
    for (const e of entries) {
      const it = items.get(e.id);
      if (it && e.who !== 'agent' && e.who !== 'you') {
        const head = it.li.querySelector('.who');
        if (head && head.firstChild) head.firstChild.textContent = w('who.' + e.who);
        const t = it.li.querySelector('.title');
        if (t) t.textContent = e.title;
      }
    }
    const log = $('log');
    const keep = new Set(entries.map((e) => e.id));
    for (const [id, it] of items) {
      if (!keep.has(id)) { it.li.remove(); items.delete(id); }
    }
    let changed = false;
    for (const e of entries) {
      let it = items.get(e.id);
      if (!it) {
        it = build(e);
        items.set(e.id, it);
        log.append(it.li);
        changed = true;
        if (!firstRender && !e.open) announce(e);
      } else if (it.text.textContent !== e.text || it.open !== !!e.open) {
        it.text.textContent = e.text;
        if (it.open && !e.open && !firstRender) announce(e);
        changed = true;
      }
      it.open = !!e.open;
      it.li.classList.toggle('open', it.open);
    }
    $('empty').hidden = entries.length > 0;
    if (changed) {
      const conv = $('conversation');
      conv.scrollTop = conv.scrollHeight;
    }
  }

  function build(e) {
    const li = document.createElement('li');
    li.className = 'entry ' + e.who;
    li.dataset.id = e.id;
    const time = document.createElement('time');
    time.textContent = e.at;
    const text = document.createElement('span');
    text.className = 'text';
    text.textContent = e.text;
    if (e.who === 'sent' || e.who === 'info') {
      // One quiet line: the words say what it is.
      li.append(text, time);
      return { li, text, open: false };
    }
    const head = document.createElement('span');
    head.className = 'who';
    head.textContent = w('who.' + e.who);
    head.append(time);
    li.append(head);
    if (e.title) {
      const t = document.createElement('span');
      t.className = 'title';
      t.textContent = e.title;
      li.append(t);
    }
    li.append(text);
    return { li, text, open: !!e.open };
  }

  // Screen readers hear finished agent answers, confirmations and problems
  // once, not every streamed piece.
  function announce(e) {
    if (e.who === 'agent') say('announce', w('who.agent') + ': ' + e.text);
    else if (e.who === 'sent') say('announce', e.text);
    else if (e.who === 'failure') say('alert', (e.title ? e.title + ' ' : '') + e.text);
  }

  function say(region, text) {
    const el = $(region);
    el.textContent = '';
    // A change after a pause is announced even when the text repeats.
    setTimeout(() => { el.textContent = text; }, 50);
  }

  let toastTimer = null;
  function toast(text, kind) {
    const t = $('toast');
    t.textContent = text;
    t.className = 'toast' + (kind ? ' ' + kind : '');
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { t.hidden = true; }, 6000);
  }

  function hideToast() {
    clearTimeout(toastTimer);
    $('toast').hidden = true;
  }

  // --- presses ---
  async function press(control, action) {
    if (!pageId) {
      toast(w('toast.notconnected') || $('offline').dataset.notconnected, 'error');
      return;
    }
    try {
      const r = await post('/api/press', { control, action });
      // The server's reason is for the log; the visitor reads plain words.
      if (!r.ok) toast(r.data.reason === 'foreground' ? w('toast.front') : w('toast.notsent'), 'error');
      else if (action !== 'release') hideToast();
    } catch (_) {
      toast(w('toast.notconnected'), 'error');
    }
  }

  let talkHeld = false;
  let talkInputAt = 0;
  function holdTalk() {
    talkInputAt = Date.now();
    if (talkHeld) return;
    talkHeld = true;
    $('btn-talk').classList.add('held');
    press('talk', 'press');
  }
  function releaseTalk() {
    talkInputAt = Date.now();
    if (!talkHeld) return;
    talkHeld = false;
    $('btn-talk').classList.remove('held');
    press('talk', 'release');
  }

  // A long press of a control turns speech mode on instead of acting:
  // a person who cannot see the screen can find it without a sighted helper.
  let longTimer = null;
  let longDone = false;
  function speechOn() {
    if (!last || !last.speech || last.speech === 'on' || !pageId) return false;
    post('/api/speech', { on: true }).catch(() => {});
    return true;
  }
  function watchLong(b) {
    b.addEventListener('pointerdown', () => {
      longDone = false;
      clearTimeout(longTimer);
      longTimer = setTimeout(() => { longDone = speechOn(); }, LONG_PRESS);
    });
    for (const ev of ['pointerup', 'pointercancel', 'pointerleave']) b.addEventListener(ev, () => clearTimeout(longTimer));
  }
  function act(b, f) {
    watchLong(b);
    b.addEventListener('click', (e) => {
      if (longDone) { longDone = false; e.preventDefault(); return; }
      f();
    });
  }
  for (const b of document.querySelectorAll('button[data-control]')) {
    if (b.id === 'btn-talk') continue;
    // The prompt's button reads its control when pressed: it changes.
    act(b, () => press(b.dataset.control, 'tap'));
  }
  act($('btn-lang'), () => {
    if (!last || !pageId) return;
    const tags = last.languages.map((l) => l.tag);
    const next = tags[(tags.indexOf(last.lang) + 1) % tags.length];
    post('/api/lang', { lang: next }).catch(() => {});
  });
  $('btn-speech').addEventListener('click', () => {
    if (last && pageId) post('/api/speech', { on: last.speech !== 'on' }).catch(() => {});
  });
  const talk = $('btn-talk');
  talk.addEventListener('pointerdown', (e) => { talk.setPointerCapture(e.pointerId); holdTalk(); });
  for (const ev of ['pointerup', 'pointercancel', 'lostpointercapture']) talk.addEventListener(ev, releaseTalk);
  talk.addEventListener('keydown', (e) => {
    if ((e.key === ' ' || e.key === 'Enter') && !e.repeat) { e.preventDefault(); holdTalk(); }
  });
  talk.addEventListener('keyup', (e) => {
    if (e.key === ' ' || e.key === 'Enter') { e.preventDefault(); releaseTalk(); }
  });
  // A screen reader's activation is a click with no pointer or key before it.
  talk.addEventListener('click', () => {
    if (Date.now() - talkInputAt > 500) press('talk', 'tap');
  });
  talk.addEventListener('contextmenu', (e) => e.preventDefault());

  const form = $('say');
  if (form) {
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const input = $('say-text');
      const text = input.value.trim();
      if (!text) return;
      if (!pageId) { toast(w('toast.notconnected'), 'error'); return; }
      try {
        const r = await post('/api/say', { text });
        if (r.ok) input.value = '';
        else toast(r.data.reason === 'foreground' ? w('toast.front') : w('toast.notsent'), 'error');
      } catch (_) {
        toast(w('toast.notconnected'), 'error');
      }
    });
  }

  // The newest line stays in view when the room changes (a prompt or a
  // banner appears, the language's words are longer).
  new ResizeObserver(() => {
    const conv = $('conversation');
    conv.scrollTop = conv.scrollHeight;
  }).observe($('conversation'));

  connect();
})();
