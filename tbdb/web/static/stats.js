// The tables page: draw_analysis per game, with a bar per row showing wins, draws and losses.
import { COLOURS, esc } from "./values.js";

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
    html += "</table>";
  }
  document.getElementById("stats").innerHTML = html;
}

main();
