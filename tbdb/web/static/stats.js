// The tables page: draw_analysis per game, with a bar per row showing wins, draws and losses,
// and per table a histogram of its values (GET /api/tables/GAME/TABLE/histogram): positions per
// distance, wins above the axis and losses below, or per score for score games.
import { COLOURS, esc, plies } from "./values.js";

function bar(r) {
  const total = r.wins + r.draws + r.losses || 1, w = 160;
  let x = 0, out = `<svg width="${w}" height="14" xmlns="http://www.w3.org/2000/svg">`;
  for (const k of ["wins", "draws", "losses"]) {
    const width = w * r[k] / total;
    out += `<rect x="${x}" width="${width}" height="14" fill="${COLOURS[k === "wins" ? "win" : k === "draws" ? "draw" : "loss"]}"><title>${k}: ${r[k].toLocaleString()}</title></rect>`;
    x += width;
  }
  return out + "</svg>";
}

const W = 520, H = 170, PAD = 34;

// positions per distance: wins up, losses down from the middle axis; draws are only counted
// (their distance is 0 by convention), so one big draw count does not flatten the bars
function distanceChart(h) {
  const by = { win: new Map(), loss: new Map() };
  let draws = 0, longest = 0, top = 1;
  for (const b of h.bins) {
    if (b.outcome === "draw") { draws += b.positions; continue; }
    by[b.outcome].set(b.distance, b.positions);
    longest = Math.max(longest, b.distance);
    top = Math.max(top, b.positions);
  }
  const step = Math.min(24, (W - 2 * PAD) / (longest + 1)), mid = H / 2, half = H / 2 - 22;
  let svg = `<svg class="histogram" data-kind="distance" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" xmlns="http://www.w3.org/2000/svg">`;
  for (const [outcome, sign] of [["win", -1], ["loss", 1]]) {
    for (const [d, n] of by[outcome]) {
      const len = Math.max(1, half * n / top);
      svg += `<rect data-outcome="${outcome}" data-distance="${d}" x="${PAD + d * step}" y="${sign < 0 ? mid - len : mid}" width="${Math.max(1, step - (step > 3 ? 1 : 0))}" height="${len}" fill="${COLOURS[outcome]}"><title>${outcome} in ${plies(d)}: ${n.toLocaleString()} positions</title></rect>`;
    }
  }
  svg += `<line x1="${PAD}" y1="${mid}" x2="${PAD + (longest + 1) * step}" y2="${mid}" stroke="#555"/>`;
  svg += `<text x="4" y="${mid - half / 2}" font-size="11" fill="${COLOURS.win}">wins</text><text x="4" y="${mid + half / 2 + 8}" font-size="11" fill="${COLOURS.loss}">losses</text>`;
  for (const d of ticks(longest)) svg += `<text x="${PAD + d * step + step / 2}" y="${H - 4}" text-anchor="middle" font-size="10" fill="#555">${d}</text>`;
  svg += `<text x="${W - PAD}" y="12" text-anchor="end" font-size="11" fill="#555">distance in plies · tallest bar ${top.toLocaleString()} · draws ${draws.toLocaleString()}</text>`;
  return svg + "</svg>";
}

// positions per score (the value with the most plies left), coloured by its sign
function scoreChart(h) {
  const scores = h.bins.map(b => b.score);
  const lo = Math.min(0, ...scores), hi = Math.max(0, ...scores);
  const top = Math.max(1, ...h.bins.map(b => b.positions));
  const step = Math.min(24, (W - 2 * PAD) / (hi - lo + 1)), base = H - 22;
  let svg = `<svg class="histogram" data-kind="score" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" xmlns="http://www.w3.org/2000/svg">`;
  for (const b of h.bins) {
    const len = Math.max(1, (base - 20) * b.positions / top), outcome = b.score > 0 ? "win" : b.score < 0 ? "loss" : "draw";
    svg += `<rect data-score="${b.score}" x="${PAD + (b.score - lo) * step}" y="${base - len}" width="${Math.max(1, step - 1)}" height="${len}" fill="${COLOURS[outcome]}"><title>score ${b.score > 0 ? "+" : ""}${b.score}: ${b.positions.toLocaleString()} positions</title></rect>`;
  }
  svg += `<line x1="${PAD}" y1="${base}" x2="${PAD + (hi - lo + 1) * step}" y2="${base}" stroke="#555"/>`;
  for (const s of ticks(hi - lo)) svg += `<text x="${PAD + s * step + step / 2}" y="${H - 6}" text-anchor="middle" font-size="10" fill="#555">${s + lo}</text>`;
  svg += `<text x="${W - PAD}" y="12" text-anchor="end" font-size="11" fill="#555">score for the side to move · tallest bar ${top.toLocaleString()}</text>`;
  return svg + "</svg>";
}

// about six round tick values from 0 to n
function ticks(n) {
  const raw = Math.max(1, n / 6), p = 10 ** Math.floor(Math.log10(raw));
  const unit = [1, 2, 5, 10].map(k => k * p).find(k => k >= raw);
  const out = [];
  for (let v = 0; v <= n; v += unit) out.push(v);
  return out;
}

async function histogram(div) {
  const url = `/api/tables/${encodeURIComponent(div.dataset.game)}/${encodeURIComponent(div.dataset.table)}/histogram`;
  const resp = await fetch(url);
  const h = await resp.json();
  if (!resp.ok) { div.innerHTML += `<p class="error">${esc(h.error)}</p>`; return; }
  div.innerHTML += h.kind === "score" ? scoreChart(h) : distanceChart(h);
  if (h.sample) div.innerHTML += `<p class="hint">estimated from ${(100 * h.sample).toFixed(1)}% of the stored rows (counts scaled up)</p>`;
}

async function main() {
  const rows = await (await fetch("/api/tables")).json();
  const byGame = new Map();
  for (const r of rows) (byGame.get(r.game) || byGame.set(r.game, []).get(r.game)).push(r);
  let html = rows.length ? "" : "<p>No tables in this file yet: build some with <code>tbdb build GAME</code>.</p>";
  for (const [game, list] of byGame) {
    html += `<h2>${esc(game)}</h2><table><tr><th>table</th><th>material</th><th>to move</th><th>positions</th><th>wins</th><th>draws</th><th>losses</th><th>draw rate</th><th>longest win</th><th>w / d / l</th></tr>`;
    for (const r of list) {
      html += `<tr><td>${esc(r.table_name)}</td><td>${esc(r.material)}</td><td>${esc(r.side_to_move)}</td><td>${r.positions.toLocaleString()}</td><td>${r.wins.toLocaleString()}</td><td>${r.draws.toLocaleString()}</td><td>${r.losses.toLocaleString()}</td><td>${r.draw_rate === null ? "" : (100 * r.draw_rate).toFixed(1) + "%"}</td><td>${r.longest_win ?? ""}</td><td>${bar(r)}</td></tr>`;
    }
    html += "</table><div class=\"histograms\">";
    for (const table of new Set(list.map(r => r.table_name))) {
      html += `<figure data-game="${esc(game)}" data-table="${esc(table)}"><figcaption>${esc(table)}</figcaption></figure>`;
    }
    html += "</div>";
  }
  document.getElementById("stats").innerHTML = html;
  await Promise.all([...document.querySelectorAll("figure[data-table]")].map(histogram));
}

main();
