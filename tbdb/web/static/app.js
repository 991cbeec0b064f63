// The explorer: game picker, position input with samples, the board (one renderer module per
// game under boards/, the text fallback otherwise), the value and every move best first; a
// board editor (editors.js), play against the tablebase, and "find positions" per table.
//
// The URL holds the state: ?game=...&position=... (and the game's options); while playing also
// moves=m1,m2,... (played from position) and you=mover|other (which side you play, counted from
// position's side to move), so back/forward, reload and a shared link show the same game.
// Every view of the page is one request: /api/GAME/game answers the start, the moves played
// (each judged) and the full lookup of the position reached.
import { esc, valueText } from "./values.js";
import { EDITORS, drag } from "./editors.js";

const $ = id => document.getElementById(id);
let GAMES = [];
let current = null;   // the last answer's position reached (a lookup with its moves)
let record = null;    // the last /game answer
let editing = false;
let tool = null;      // the editor's palette tool
let shown = 0;        // the sequence number of the newest request: older answers are dropped
let reply = null;     // the tablebase's pending reply (a timer)
const view = { letters: localStorage.getItem("tbdb-letters") === "1", flip: false };
const renderers = new Map();
const finds = new Map();  // game -> its /find listing

// ---------------------------------------------------------------- requests
let pending = 0;
async function api(url) {
  pending++;
  $("busy").hidden = false;
  try {
    const resp = await fetch(url);
    let body;
    try { body = await resp.json(); } catch { body = { error: `${resp.status} ${resp.statusText}` }; }
    return { ok: resp.ok, status: resp.status, body };
  } catch (exc) {
    return { ok: false, status: 0, body: { error: `the request failed: ${exc.message} (is tbdb serve running?)` } };
  } finally {
    if (--pending === 0) $("busy").hidden = true;
  }
}

async function renderer(game) {
  if (!renderers.has(game.name)) {
    const file = game.renderer ? `./boards/${game.name}.js` : "./boards/text.js";
    renderers.set(game.name, await import(file));
  }
  return renderers.get(game.name);
}

// ---------------------------------------------------------------- state in the URL
function state() {
  const q = new URLSearchParams(location.search);
  const game = GAMES.find(g => g.name === q.get("game")) || GAMES.find(g => g.tables > 0) || GAMES[0];
  const options = {};
  for (const o of game.options) if (q.get(o.name)) options[o.name] = q.get(o.name);
  const moves = (q.get("moves") || "").split(",").filter(Boolean);
  const you = ["mover", "other"].includes(q.get("you")) ? q.get("you") : null;
  return { game, position: q.get("position") || game.samples[0] || game.sample, options, moves, you };
}

function url(s) {
  const q = new URLSearchParams({ game: s.game.name, position: s.position, ...s.options });
  if (s.you) q.set("you", s.you);
  if (s.moves && s.moves.length) q.set("moves", s.moves.join(","));
  return `?${q}`;
}

function go(changes, replace = false) {
  const s = { ...state(), ...changes };
  history[replace ? "replaceState" : "pushState"](null, "", url(s));
  show();
}

const tbToMove = s => s.you && (s.moves.length % 2 === 0) === (s.you === "other");

// ---------------------------------------------------------------- showing a state
async function show() {
  const seq = ++shown;
  clearTimeout(reply);
  const s = state();
  const { game, position, options, moves } = s;
  $("game").value = game.name;
  if (document.activeElement !== $("position")) $("position").value = position;
  const samples = game.samples.length ? game.samples : [game.sample];
  $("samples").innerHTML = "samples: " + samples.map(t =>
    `<button type="button" data-sample="${esc(t)}">${esc(t)}</button>`).join("");
  $("options").innerHTML = game.options.map(o =>
    `<label title="${esc(o.help)} (${esc(o.allowed)})">${esc(o.name)} <input name="${esc(o.name)}" size="5" value="${esc(options[o.name] ?? "")}" placeholder="${esc(o.default ?? "")}"></label>`).join(" ");
  $("letters-switch").hidden = !["cdc", "shogi"].includes(game.name);
  $("letters").checked = view.letters;
  showEditor(s);
  showFind(game);
  const q = new URLSearchParams({ position, ...options });
  if (moves.length) q.set("moves", moves.join(","));
  const [answer, mod] = await Promise.all([api(`/api/${game.name}/game?${q}`), renderer(game)]);
  if (seq !== shown) return;  // a newer view was asked for meanwhile
  let diagram = null;
  if (mod.needsDiagram) {
    const d = await api(`/api/${game.name}/diagram?position=${encodeURIComponent(position)}`);
    if (d.ok) diagram = d.body.diagram;
  }
  const body = answer.body;
  $("build").hidden = true;
  if (!answer.ok) {
    current = record = null;
    $("error").textContent = body.error;
    $("value").textContent = answer.status === 404 ? "not in the tables" : answer.status === 400 ? "invalid" : "error";
    $("value").className = "";
    $("best").textContent = "";
    $("moves").innerHTML = "";
    const command = /build it with: (tbdb build .*)$/.exec(body.error || "");
    if (command) { $("build").hidden = false; $("build-command").textContent = command[1]; }
    try { $("board").innerHTML = mod.render(position, null, diagram, { ...view, edit: editing }); } catch { $("board").innerHTML = ""; }
    showPlay(s, null);
    return;
  }
  record = body;
  current = body.current;
  $("error").textContent = "";
  // the text box follows what the game module writes (a position typed another way, edits)
  if (editing && !moves.length && current.position !== position) {
    history.replaceState(null, "", url({ ...s, position: current.position }));
    $("position").value = current.position;
  }
  $("value").textContent = valueText(current);
  $("value").className = current.outcome;
  $("best").textContent = current.best_move ? `best move: ${current.best_move}` : "the game is over";
  const yourTurn = !s.you || !tbToMove(s);
  $("moves").innerHTML = current.moves.map(m =>
    `<li class="${m.outcome}${yourTurn ? "" : " waiting"}" data-move="${esc(m.move)}">${esc(m.move)} <span>${esc(valueText(m))}</span></li>`).join("");
  $("board").innerHTML = mod.render(current.position, editing ? null : current, diagram, { ...view, edit: editing });
  showPlay(s, body);
  if (s.you && tbToMove(s) && current.best_move && !editing) {
    // the tablebase answers with its stored best move, after a moment to see yours
    reply = setTimeout(() => { if (seq === shown) go({ moves: [...moves, current.best_move] }); }, 300);
  }
}

// ---------------------------------------------------------------- playing
function play(move) {
  if (!current) return;
  const m = current.moves.find(x => x.move === move);
  if (!m) return;
  const s = state();
  if (s.you) {
    if (tbToMove(s)) return;   // not your turn
    go({ moves: [...s.moves, move] });
    return;
  }
  const options = { ...s.options };
  // score games: the position after a move has one ply less left
  const plies = s.game.plies_option;
  if (plies && current[plies] > 1) options[plies] = String(current[plies] - 1);
  go({ position: m.position, options, moves: [] });
}

function lineText(body) {
  const start = body.start;
  const lines = [`${start.position}  (${valueText(start)} for the side to move)`];
  body.steps.forEach((st, i) => {
    const mark = st.mistake ? `?! (${st.mistake}; best was ${st.best_move})` : "";
    lines.push(`${i + 1}. ${st.move}${mark}  then ${valueText(st)} for the side to move`);
  });
  return lines.join("\n");
}

function showPlay(s, body) {
  const ed = EDITORS[s.game.name];
  let solo = false;
  try { solo = !!(ed && ed.solo && ed.solo(ed.parse(s.position))); } catch { /* not solo */ }
  $("play").hidden = !s.you;
  $("play-start").hidden = !!s.you || editing || solo;
  if (!s.you) {
    let labels = ["the side to move", "the other side"];
    try {
      const st = ed.parse(current ? current.position : s.position), sides = ed.sides(st);
      const mine = sides.find(x => x.side === ed.side(st));
      if (mine && sides.length === 2) labels = [mine.label, sides.find(x => x !== mine).label];
      else if (ed.players) labels = ed.players(st);
    } catch { /* the generic labels */ }
    $("play-sides").innerHTML = `<button type="button" data-you="mover">as ${esc(labels[0])}</button> ` +
      `<button type="button" data-you="other">as ${esc(labels[1])}</button>`;
    return;
  }
  if (!body) { $("line").innerHTML = ""; $("line-text").value = ""; return; }
  $("line").innerHTML = body.steps.map((st, i) => {
    const yours = (i % 2 === 0) === (s.you === "mover");
    // the value after the move is the next mover's; shown and coloured as it stands for you
    const forYou = yours ? { win: "loss", loss: "win", draw: "draw" }[st.outcome] : st.outcome;
    const score = st.score === null || st.score === undefined ? null : yours ? -st.score : st.score;
    const value = valueText({ ...st, outcome: forYou, score });
    return `<li class="${st.mistake ? "mistake" : ""}" data-step="${i}" data-mistake="${esc(st.mistake || "")}">` +
      `<span class="who">${yours ? "you" : "tablebase"}</span> <b>${esc(st.move)}</b>${st.mistake ? ` <span class="mark" title="${esc(st.mistake)}">?! ${esc(st.mistake)}; best was ${esc(st.best_move)}</span>` : ""}` +
      ` <span class="after ${forYou}" title="the value for you after the move">you: ${esc(value)}</span></li>`;
  }).join("");
  $("line-text").value = lineText(body);
  const over = !current.best_move;
  $("play-status").textContent = over ? `game over: ${valueText(current)}` :
    tbToMove(s) ? "the tablebase is thinking…" : "your move";
  $("takeback").disabled = !s.moves.length;
}

function takeBack() {
  const s = state();
  const moves = s.moves.slice(0, -1);
  // back to your turn: the tablebase's reply goes with your move
  if (moves.length && tbToMove({ ...s, moves })) moves.pop();
  go({ moves });
}

async function copyText(text, button) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = $("line-text"), old = area.value;
    area.value = text; area.select(); document.execCommand("copy"); area.value = old;
  }
  const label = button.textContent;
  button.textContent = "copied";
  setTimeout(() => { button.textContent = label; }, 1200);
}

// ---------------------------------------------------------------- the editor
function editorState(s) {
  const ed = EDITORS[s.game.name];
  if (!ed) return null;
  try { return ed.parse($("position").value || s.position); } catch { return null; }
}

function showEditor(s) {
  const ed = EDITORS[s.game.name];
  $("editor").hidden = !editing || !ed;
  $("edit-toggle").setAttribute("aria-pressed", String(editing));
  $("edit-toggle").hidden = !ed;
  if (!editing || !ed) return;
  const st = editorState(s);
  const tools = ed.tools(view, st);
  if (!tools.some(t => t.tool === tool)) tool = tools[0].tool;
  $("palette").innerHTML = tools.map(t =>
    `<button type="button" draggable="true" class="tool ${esc(t.colour || "")}" data-tool="${esc(t.tool)}" title="${esc(t.title)}" aria-pressed="${t.tool === tool}">${esc(t.label)}</button>`).join("");
  if (!st) {
    $("editor-sides").textContent = "The board cannot show this text; fix it in the box or clear the board.";
    $("editor-extras").innerHTML = "";
  } else {
    const sides = ed.sides(st);
    $("editor-sides").innerHTML = sides.length ? (s.game.name === "oware" ? "to move: " : "to move: ") + sides.map(x =>
      `<label><input type="radio" name="side" value="${esc(x.side)}" ${ed.side(st) === x.side ? "checked" : ""}> ${esc(x.label)}</label>`).join(" ") : "";
    $("editor-extras").innerHTML = (ed.extras ? ed.extras(st) : []).map(x =>
      `<label>${esc(x.label)} <select data-extra="${esc(x.name)}">${x.choices.map(([v, l]) =>
        `<option value="${esc(v)}" ${v === x.value ? "selected" : ""}>${esc(l)}</option>`).join("")}</select></label>`).join(" ") +
      (ed.actions ? ed.actions(st) : []).map(a => ` <button type="button" data-action="${esc(a.name)}">${esc(a.label)}</button>`).join("");
  }
  $("reset-start").hidden = ed.hasStart === false;
}

function edited(next) {
  const ed = EDITORS[state().game.name];
  const text = ed.format(next);
  $("position").value = text;
  go({ position: text, moves: [], you: null }, true);
}

// ---------------------------------------------------------------- find positions
async function showFind(game) {
  if (!finds.has(game.name)) {
    finds.set(game.name, null);
    const r = await api(`/api/${game.name}/find`);
    finds.set(game.name, r.ok ? r.body : { error: r.body.error });
    if (state().game.name === game.name) showFind(game);
    return;
  }
  const listing = finds.get(game.name);
  const box = $("find-tables");
  if (box.dataset.game === game.name && box.dataset.ready === String(!!listing)) return;
  box.dataset.game = game.name;
  box.dataset.ready = String(!!listing);
  $("find-results").innerHTML = "";
  if (!listing) { box.textContent = "…"; return; }
  if (listing.error) { box.textContent = listing.error; return; }
  if (!listing.tables.length) { box.textContent = "no table of this game is built"; return; }
  box.innerHTML = listing.tables.map(t => `<div class="find-table" data-table="${esc(t)}"><code>${esc(t)}</code>: ` +
    listing.kinds.map(k => `<button type="button" class="linkish" data-find-table="${esc(t)}" data-kind="${esc(k.kind)}" data-random="${k.random}">${esc(k.label)}</button>`).join(" · ") +
    "</div>").join("");
}

async function find(button) {
  const s = state();
  const seed = button.dataset.random === "true" ? Math.floor(Math.random() * 2 ** 31) : 0;
  const q = new URLSearchParams({ table: button.dataset.findTable, kind: button.dataset.kind, seed: String(seed), ...s.options });
  const r = await api(`/api/${s.game.name}/find?${q}`);
  const out = $("find-results");
  if (!r.ok) { out.innerHTML = `<li class="error">${esc(r.body.error)}</li>`; return; }
  out.dataset.kind = r.body.kind;
  out.dataset.table = r.body.table;
  out.innerHTML = r.body.positions.length ? r.body.positions.map(p =>
    `<li><a data-position="${esc(p.position)}" href="${esc(url({ game: s.game, position: p.position, options: s.options }))}">${esc(p.position)}</a> ` +
    `<span class="${p.outcome}">${esc(valueText(p))}</span>${p.winning_move ? ` (only ${esc(p.winning_move)} wins)` : ""}</li>`).join("")
    : `<li>none in ${esc(r.body.table)} (${r.body.searched} read)</li>`;
}

// ---------------------------------------------------------------- wiring
async function main() {
  const listed = await api("/api/games");
  if (!listed.ok) { $("error").textContent = listed.body.error; return; }
  GAMES = listed.body;
  $("game").innerHTML = GAMES.map(g => `<option value="${esc(g.name)}">${esc(g.name)}${g.tables ? "" : " (no tables)"}</option>`).join("");
  $("game").addEventListener("change", () => {
    const g = GAMES.find(x => x.name === $("game").value);
    go({ game: g, position: g.samples[0] || g.sample, options: {}, moves: [], you: null });
  });
  $("position-form").addEventListener("submit", e => {
    e.preventDefault();
    const options = {};
    for (const input of $("options").querySelectorAll("input")) if (input.value.trim()) options[input.name] = input.value.trim();
    $("position").blur();
    go({ position: $("position").value.trim(), options, moves: [], you: null });
  });
  let typing = null;
  $("position").addEventListener("input", () => {
    // while editing, the board follows the text as it is typed
    if (!editing) return;
    clearTimeout(typing);
    typing = setTimeout(() => go({ position: $("position").value.trim(), moves: [], you: null }, true), 300);
  });
  $("samples").addEventListener("click", e => {
    const b = e.target.closest("[data-sample]");
    if (b) go({ position: b.dataset.sample, moves: [], you: null });
  });
  $("moves").addEventListener("click", e => {
    const t = e.target.closest("[data-move]");
    if (t) play(t.dataset.move);
  });
  $("board").addEventListener("click", e => {
    if (editing) {
      const c = e.target.closest("[data-cell]");
      const s = state(), ed = EDITORS[s.game.name], st = editorState(s);
      if (c && st) edited(ed.apply(st, c.dataset.cell, tool));
      return;
    }
    const t = e.target.closest("[data-move]");
    if (t) play(t.dataset.move);
  });
  // drag and drop while editing: a piece from one square to another, off the board to remove
  // it, or a palette piece onto a square
  let dragFrom = null;
  const cellAt = (x, y) => {
    const el = document.elementFromPoint(x, y);
    return el && $("board").contains(el) ? el.closest("[data-cell]") : null;
  };
  $("board").addEventListener("pointerdown", e => {
    if (!editing) return;
    const c = e.target.closest("[data-cell]");
    const s = state(), ed = EDITORS[s.game.name], st = editorState(s);
    dragFrom = c && st && ed.get && ed.get(st, c.dataset.cell) ? c.dataset.cell : null;
    if (dragFrom) e.preventDefault();
  });
  document.addEventListener("pointerup", e => {
    if (!editing || dragFrom === null) return;
    const from = dragFrom;
    dragFrom = null;
    const over = cellAt(e.clientX, e.clientY);
    const inside = over || $("board").contains(document.elementFromPoint(e.clientX, e.clientY));
    if (over && over.dataset.cell === from) return;  // a click: the click handler places
    if (inside && !over) return;
    const s = state(), ed = EDITORS[s.game.name], st = editorState(s);
    if (st) edited(drag(ed, st, from, over ? over.dataset.cell : null));
  });
  $("palette").addEventListener("dragstart", e => {
    const b = e.target.closest("[data-tool]");
    if (b) e.dataTransfer.setData("text/x-tbdb-tool", b.dataset.tool);
  });
  $("board").addEventListener("dragover", e => { if (editing) e.preventDefault(); });
  $("board").addEventListener("drop", e => {
    e.preventDefault();
    const t = e.dataTransfer.getData("text/x-tbdb-tool"), c = cellAt(e.clientX, e.clientY);
    const s = state(), ed = EDITORS[s.game.name], st = editorState(s);
    if (editing && t && c && st) edited(ed.apply(st, c.dataset.cell, t));
  });
  $("edit-toggle").addEventListener("click", () => {
    editing = !editing;
    const s = state();
    if (editing && (s.moves.length || s.you)) {
      go({ position: current ? current.position : s.position, moves: [], you: null }, true);
    } else show();
  });
  $("edit-done").addEventListener("click", () => { editing = false; show(); });
  $("palette").addEventListener("click", e => {
    const b = e.target.closest("[data-tool]");
    if (!b) return;
    tool = b.dataset.tool;
    for (const x of $("palette").querySelectorAll("[data-tool]")) x.setAttribute("aria-pressed", String(x === b));
  });
  $("editor-sides").addEventListener("change", e => {
    const s = state(), ed = EDITORS[s.game.name], st = editorState(s);
    if (st && e.target.name === "side") edited(ed.setSide(st, e.target.value));
  });
  $("editor-extras").addEventListener("change", e => {
    const s = state(), ed = EDITORS[s.game.name], st = editorState(s);
    if (st && e.target.dataset.extra) edited(ed.setExtra(st, e.target.dataset.extra, e.target.value));
  });
  $("editor-extras").addEventListener("click", e => {
    const b = e.target.closest("[data-action]");
    const s = state(), ed = EDITORS[s.game.name], st = editorState(s);
    if (b && st) edited(ed.act(st, b.dataset.action));
  });
  $("clear").addEventListener("click", () => {
    const s = state(), ed = EDITORS[s.game.name], st = editorState(s);
    edited(ed.clear(st || ed.parse(s.game.sample)));
  });
  $("reset-start").addEventListener("click", async () => {
    // the start as the game module writes it (Chinese Checkers: of the board being edited)
    const s = state(), ed = EDITORS[s.game.name], st = editorState(s);
    const options = st && ed.startOptions ? ed.startOptions(st) : {};
    const r = await api(`/api/${s.game.name}/start?${new URLSearchParams(options)}`);
    if (!r.ok) { $("error").textContent = r.body.error; return; }
    edited(ed.parse(r.body.position));
  });
  $("reset-sample").addEventListener("click", () => {
    const s = state();
    edited(EDITORS[s.game.name].parse(s.game.samples[0] || s.game.sample));
  });
  $("flip").addEventListener("click", () => { view.flip = !view.flip; show(); });
  $("letters").addEventListener("change", () => {
    view.letters = $("letters").checked;
    localStorage.setItem("tbdb-letters", view.letters ? "1" : "0");
    show();
  });
  $("play-sides").addEventListener("click", e => {
    const b = e.target.closest("[data-you]");
    if (!b) return;
    const s = state();
    go({ position: current ? current.position : s.position, moves: [], you: b.dataset.you });
  });
  $("takeback").addEventListener("click", takeBack);
  $("stop-play").addEventListener("click", () => {
    const s = state();
    go({ position: current ? current.position : s.position, moves: [], you: null });
  });
  $("copy-line").addEventListener("click", e => copyText($("line-text").value, e.target));
  $("copy-link").addEventListener("click", e => copyText(location.href, e.target));
  $("find-tables").addEventListener("click", e => {
    const b = e.target.closest("[data-find-table]");
    if (b) find(b);
  });
  $("find-results").addEventListener("click", e => {
    const a = e.target.closest("a[data-position]");
    if (!a) return;
    e.preventDefault();
    editing = false;
    go({ position: a.dataset.position, moves: [], you: null });
  });
  document.addEventListener("keydown", e => {
    if (["INPUT", "TEXTAREA", "SELECT"].includes(e.target.tagName)) return;
    if (e.key === "ArrowRight" && current && current.best_move) play(current.best_move);
    if (e.key === "ArrowLeft") history.back();
  });
  window.addEventListener("popstate", show);
  const s = state();
  go({ game: s.game, position: s.position, options: s.options }, true);
}

main();
