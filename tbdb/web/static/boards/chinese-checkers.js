// Chinese Checkers: the rows of holes from the top tip joined by '/' ('.' empty, digits the
// players), after the board name; rows are centred, which draws the rhombus as a diamond and
// the star as a star.  Moves are listed beside the board (their hole notation is the game's).
import { esc } from "../values.js";

const PLAYERS = ["#d33", "#2a6fdb", "#2c9c3f", "#e0a000", "#8a3fc4", "#333"];

export function render(position) {
  const parts = position.trim().split(/\s+/);
  const [board, rows, mover] = parts.length === 3 ? parts : ["", parts[0], parts[1]];
  const lines = rows.split("/");
  const widest = Math.max(...lines.map(l => l.length));
  const d = 30, dy = d * 0.87, width = Math.max(widest * d + 20, 240);
  let svg = `<svg data-board="chinese-checkers" viewBox="0 0 ${width} ${lines.length * dy + 50}" xmlns="http://www.w3.org/2000/svg">`;
  lines.forEach((line, r) => {
    const x0 = (width - line.length * d) / 2;
    [...line].forEach((ch, i) => {
      const cx = x0 + i * d + d / 2, cy = 10 + r * dy + d / 2;
      const p = /[1-6]/.test(ch) ? Number(ch) - 1 : -1;
      svg += `<circle cx="${cx}" cy="${cy}" r="${d * 0.38}" fill="${p >= 0 ? PLAYERS[p] : "#eee"}" stroke="#777"/>`;
    });
  });
  svg += `<text x="10" y="${lines.length * dy + 40}" font-size="12" fill="#555">${esc(board)} · player ${esc(mover)} to move</text>`;
  return svg + "</svg>";
}
