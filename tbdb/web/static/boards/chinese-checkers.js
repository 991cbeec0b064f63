// Chinese Checkers: the rows of holes from the top tip joined by '/' ('.' empty, digits the
// players), after the board name; rows are centred, which draws the rhombus as a diamond and
// the star as a star.  Holes are numbered row by row from the top tip; a move is the holes its
// piece visits ("1-3" a step, "3-11-19" a chain of hops), drawn as a polyline through every one
// of them, coloured by outcome; clicking it plays it.
import { COLOURS, esc } from "../values.js";

const PLAYERS = ["#d33", "#2a6fdb", "#2c9c3f", "#e0a000", "#8a3fc4", "#333"];

export function render(position, result, diagram, view = {}) {
  const parts = position.trim().split(/\s+/);
  const [board, rows, mover] = parts.length === 3 ? parts : ["", parts[0], parts[1]];
  const lines = rows.split("/");
  const widest = Math.max(...lines.map(l => l.length));
  const d = Math.min(48, Math.max(30, 440 / widest)), dy = d * 0.87;
  const width = Math.max(widest * d + 20, 460);
  let svg = `<svg data-board="chinese-checkers" viewBox="0 0 ${width} ${lines.length * dy + 50}" xmlns="http://www.w3.org/2000/svg">`;
  svg += `<defs>${Object.entries(COLOURS).map(([k, c]) => `<marker id="cc-head-${k}" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="3" markerHeight="3" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="${c}"/></marker>`).join("")}</defs>`;
  const holes = [];   // hole number -> its centre
  const height = lines.length * dy + 20 + d - dy;  // top + bottom hole centres
  lines.forEach((line, r) => {
    const x0 = (width - line.length * d) / 2;
    [...line].forEach((ch, i) => {
      let cx = x0 + i * d + d / 2, cy = 10 + r * dy + d / 2;
      if (view.flip) { cx = width - cx; cy = height - cy; }  // turned round
      const p = /[1-6]/.test(ch) ? Number(ch) - 1 : -1;
      svg += `<circle data-cell="${holes.length}" cx="${cx}" cy="${cy}" r="${d * 0.38}" fill="${p >= 0 ? PLAYERS[p] : "#eee"}" stroke="#777"/>`;
      holes.push([cx, cy]);
    });
  });
  // a distance table's last field is the goal point of its lone player, not a player to move
  const caption = board.startsWith("star-distance")
    ? `one player into goal point ${esc(mover)} (0 top, clockwise)`
    : `player ${esc(mover)} to move`;
  svg += `<text data-caption x="10" y="${lines.length * dy + 40}" font-size="12" fill="#555">${esc(board)} · ${caption}</text>`;
  // arrows, worst first so the best is drawn on top
  for (const m of ((result && result.moves) || []).slice().reverse()) {
    const path = m.move.split("-").map(Number);
    if (path.length < 2 || path.some(h => !Number.isInteger(h) || !holes[h])) continue;
    const points = path.map(h => holes[h]);
    // stop the head short of the last hole's centre, as the other boards' arrows do
    const [xa, ya] = points[points.length - 2], [xb, yb] = points[points.length - 1];
    const len = Math.hypot(xb - xa, yb - ya) || 1, cut = Math.min(10, len / 3);
    points[points.length - 1] = [xb - (xb - xa) / len * cut, yb - (yb - ya) / len * cut];
    svg += `<polyline data-move="${esc(m.move)}" points="${points.map(p => p.join(",")).join(" ")}" fill="none" stroke="${COLOURS[m.outcome] || "#555"}" stroke-width="3.5" stroke-opacity="0.8" stroke-linejoin="round" stroke-linecap="round" marker-end="url(#cc-head-${m.outcome})"><title>${esc(m.move)}</title></polyline>`;
  }
  return svg + "</svg>";
}
