// Tic-tac-toe: nine cells, row by row from the top left (x, o, '.'); a move is the cell number.
// Empty cells are coloured by the outcome of playing there and play it when clicked.
import { COLOURS, esc, outcomes } from "../values.js";

export function render(position, result, diagram, view = {}) {
  const cells = position.slice(0, 9);
  const moves = outcomes(result);
  const s = 100;
  let svg = `<svg data-board="tictactoe" viewBox="0 0 ${3 * s} ${3 * s}" xmlns="http://www.w3.org/2000/svg">`;
  for (let i = 0; i < 9; i++) {
    const at = view.flip ? 8 - i : i;  // turned round
    const x = (at % 3) * s, y = Math.floor(at / 3) * s, c = cells[i];
    const outcome = moves.get(String(i));
    const fill = outcome ? COLOURS[outcome] : "#fff";
    const move = outcome ? ` data-move="${i}"` : "";
    svg += `<rect${move} data-cell="${i}" x="${x + 2}" y="${y + 2}" width="${s - 4}" height="${s - 4}" fill="${fill}" fill-opacity="${outcome ? 0.45 : 1}" stroke="#333"/>`;
    if (c === "x" || c === "o") {
      svg += `<text x="${x + s / 2}" y="${y + s * 0.68}" text-anchor="middle" font-size="${s * 0.6}" font-family="sans-serif" pointer-events="none" fill="${c === "x" ? "#1a4f9c" : "#9c1a1a"}">${esc(c)}</text>`;
    }
  }
  return svg + "</svg>";
}
