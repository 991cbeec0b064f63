// The explorer: game picker, position input with samples, the board (one renderer module per
// game under boards/, the text fallback otherwise), the value and every move best first.
// The URL holds ?game=...&position=... (and the game's options), so back/forward and reload work.
import { esc, valueText } from "./values.js";

const $ = id => document.getElementById(id);
let GAMES = [];
let current = null;   // the last lookup's JSON
const renderers = new Map();

async function renderer(game) {
  if (!renderers.has(game.name)) {
    const file = game.renderer ? `./boards/${game.name}.js` : "./boards/text.js";
    renderers.set(game.name, await import(file));
  }
  return renderers.get(game.name);
}

function state() {
  const q = new URLSearchParams(location.search);
  const game = GAMES.find(g => g.name === q.get("game")) || GAMES.find(g => g.tables > 0) || GAMES[0];
  const options = {};
  for (const o of game.options) if (q.get(o.name)) options[o.name] = q.get(o.name);
  return { game, position: q.get("position") || game.samples[0] || game.sample, options };
}

function go(game, position, options = {}, replace = false) {
  const q = new URLSearchParams({ game: game.name, position, ...options });
  history[replace ? "replaceState" : "pushState"](null, "", `?${q}`);
  show();
}

async function show() {
  const { game, position, options } = state();
  $("game").value = game.name;
  $("position").value = position;
  const samples = game.samples.length ? game.samples : [game.sample];
  $("samples").innerHTML = "samples: " + samples.map(s =>
    `<button type="button" data-sample="${esc(s)}">${esc(s)}</button>`).join("");
  $("options").innerHTML = game.options.map(o =>
    `<label title="${esc(o.help)} (${esc(o.allowed)})">${esc(o.name)} <input name="${esc(o.name)}" size="5" value="${esc(options[o.name] ?? "")}" placeholder="${esc(o.default ?? "")}"></label>`).join(" ");
  const q = new URLSearchParams({ position, ...options });
  const [resp, mod] = await Promise.all([fetch(`/api/${game.name}?${q}`), renderer(game)]);
  const body = await resp.json();
  let diagram = null;
  if (mod.needsDiagram) {
    const d = await fetch(`/api/${game.name}/diagram?position=${encodeURIComponent(position)}`);
    if (d.ok) diagram = (await d.json()).diagram;
  }
  if (!resp.ok) {
    current = null;
    $("error").textContent = body.error;
    $("value").textContent = resp.status === 404 ? "not in the tables" : "invalid";
    $("best").textContent = "";
    $("moves").innerHTML = "";
    try { $("board").innerHTML = mod.render(position, null, diagram); } catch { $("board").innerHTML = ""; }
    return;
  }
  current = body;
  $("error").textContent = "";
  $("value").textContent = valueText(body);
  $("value").className = body.outcome;
  $("best").textContent = body.best_move ? `best move: ${body.best_move}` : "the game is over";
  $("moves").innerHTML = body.moves.map(m =>
    `<li class="${m.outcome}" data-move="${esc(m.move)}">${esc(m.move)} <span>${esc(valueText(m))}</span></li>`).join("");
  $("board").innerHTML = mod.render(body.position, body, diagram);
}

function play(move) {
  if (!current) return;
  const m = current.moves.find(x => x.move === move);
  if (!m) return;
  const { game } = state();
  const options = {};
  // score games: the position after a move has one ply less left
  const plies = game.plies_option;
  if (plies && current[plies] > 1) options[plies] = String(current[plies] - 1);
  go(game, m.position, options);
}

async function main() {
  GAMES = await (await fetch("/api/games")).json();
  $("game").innerHTML = GAMES.map(g => `<option value="${esc(g.name)}">${esc(g.name)}${g.tables ? "" : " (no tables)"}</option>`).join("");
  $("game").addEventListener("change", () => {
    const g = GAMES.find(x => x.name === $("game").value);
    go(g, g.samples[0] || g.sample);
  });
  $("position-form").addEventListener("submit", e => {
    e.preventDefault();
    const options = {};
    for (const input of $("options").querySelectorAll("input")) if (input.value.trim()) options[input.name] = input.value.trim();
    go(state().game, $("position").value.trim(), options);
  });
  $("samples").addEventListener("click", e => {
    const b = e.target.closest("[data-sample]");
    if (b) go(state().game, b.dataset.sample);
  });
  for (const id of ["moves", "board"]) {
    $(id).addEventListener("click", e => {
      const t = e.target.closest("[data-move]");
      if (t) play(t.dataset.move);
    });
  }
  document.addEventListener("keydown", e => {
    if (e.target.tagName === "INPUT") return;
    if (e.key === "ArrowRight" && current && current.best_move) play(current.best_move);
    if (e.key === "ArrowLeft") history.back();
  });
  window.addEventListener("popstate", show);
  const { game, position, options } = state();
  go(game, position, options, true);
}

main();
