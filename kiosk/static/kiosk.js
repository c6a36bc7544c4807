// acbridge kiosk page: shows the state the server streams and sends the
// on-screen presses. Plain DOM, no build step. Text from the agent is only
// ever set with textContent.
'use strict';

(() => {
  const token = document.querySelector('meta[name="acbridge-token"]').content;
  const $ = (id) => document.getElementById(id);
  const labels = { scan: 'Scan a tag', photo: 'Take a photo', talk: 'Hold to talk', cancel: 'Cancel' };
  const who = { agent: 'Agent', you: 'You', sent: 'Sent', info: 'Note', failure: 'Problem' };

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
    setPill('conn', 'offline', 'Screen offline');
    setPill('reader', 'unknown', '');
    setPill('camera', 'unknown', '');
    $('offline').hidden = false;
    $('offline-title').textContent = 'This screen lost its connection to acbridge.';
    $('offline-detail').textContent = 'It reconnects by itself.';
    for (const b of controls()) {
      b.disabled = true;
      b.classList.remove('requested');
    }
    // What was shown may no longer be true: the next state redraws it.
    $('prompt').hidden = true;
    $('armed').hidden = true;
    $('listening').hidden = true;
    last = null;
  }

  // --- rendering ---
  function setPill(id, state, text) {
    const el = $(id);
    el.dataset.state = state;
    $(id + '-text').textContent = text;
  }

  function controls() { return document.querySelectorAll('.controls button[data-control]'); }

  function render(v) {
    const c = v.connection;
    setPill('conn', c.state, { connected: 'Connected', disconnected: 'Not connected', connecting: 'Connecting…' }[c.state] || c.state);
    $('offline').hidden = c.state !== 'disconnected';
    if (c.state === 'disconnected') {
      $('offline-title').textContent = 'The agent is not reachable right now. acbridge keeps trying.';
      $('offline-detail').textContent = c.detail || '';
    }
    setPill('reader', v.reader, { absent: 'No reader', ready: 'Reader ready', armed: 'Reader on', unknown: '' }[v.reader]);
    setPill('camera', v.camera, { absent: 'No camera', ready: 'Camera ready', armed: 'Taking a photo', unknown: '' }[v.camera]);

    // Armed banner
    $('armed').hidden = !v.armed;
    if (v.armed) {
      const t = v.armed.control === 'scan' ? 'Reader on — hold a tag to it now' : 'Taking a photo — hold still';
      $('armed-text').textContent = t;
      if (!last || !last.armed) say('alert', t);
    }

    // The microphone, open for exactly a turn or an engagement
    $('listening').hidden = !v.listening;
    $('btn-talk').classList.toggle('listening', !!v.listening);
    $('btn-talk').setAttribute('aria-pressed', v.listening ? 'true' : 'false');
    if (v.listening) {
      $('listening-text').textContent = 'Listening — ' + v.listening.replace(/^listening: /, '');
      if (!last || !last.listening) say('alert', 'Listening.');
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
      label.textContent = labels[p.control];
      pb.replaceChildren(icon ? icon.cloneNode(true) : '', label);
      pb.disabled = !v.controls.includes(p.control) || !!v.armed;
      // While its collection runs, the banner below says what to do.
      pb.hidden = !!v.armed && v.armed.control === p.control;
      const isNew = !last || !last.prompt || last.prompt.text !== p.text || last.prompt.control !== p.control;
      if (isNew) {
        say('alert', 'The agent asks: ' + p.text + ' Press ' + labels[p.control] + '.');
        if (document.activeElement === document.body || !document.activeElement) pb.focus();
      }
    }
    for (const b of controls()) {
      b.disabled = !v.controls.includes(b.dataset.control);
      b.classList.toggle('requested', !!p && b.dataset.control === p.control);
    }

    renderEntries(v.entries);
    const say2 = $('say');
    if (say2) say2.querySelector('button').disabled = c.state !== 'connected';
    last = v;
    firstRender = false;
  }

  function renderEntries(entries) {
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
    head.textContent = who[e.who] || e.who;
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
    if (e.who === 'agent') say('announce', 'Agent: ' + e.text);
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
      toast('This screen is not connected to acbridge yet.', 'error');
      return;
    }
    try {
      const r = await post('/api/press', { control, action });
      if (!r.ok) toast(r.data.error || 'That did not work.', 'error');
      else if (action !== 'release') hideToast();
    } catch (_) {
      toast('This screen is not connected to acbridge.', 'error');
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

  for (const b of document.querySelectorAll('button[data-control]')) {
    if (b.id === 'btn-talk') continue;
    // The prompt's button reads its control when pressed: it changes.
    b.addEventListener('click', () => press(b.dataset.control, 'tap'));
  }
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
      if (!pageId) { toast('This screen is not connected to acbridge yet.', 'error'); return; }
      try {
        const r = await post('/api/say', { text });
        if (r.ok) input.value = '';
        else toast(r.data.error || 'Not sent.', 'error');
      } catch (_) {
        toast('This screen is not connected to acbridge.', 'error');
      }
    });
  }

  connect();
})();
