// Oware: twelve house counts in the mover's view, house 0 first; the mover's houses 0-5 are the
// bottom row left to right, the opponent's 6-11 the top row right to left (sowing runs
// anticlockwise).  A move is the number of the mover's house; playable houses are coloured by
// the sign of the move's score and play it when clicked.
import { COLOURS, outcomes } from "../values.js";

export function render(position, result, diagram, view = {}) {
  const seeds = position.trim().split(/\s+/).map(Number);
  const moves = outcomes(result);
  const w = 80, h = 80;
  let svg = `<svg data-board="oware" viewBox="0 0 ${6 * w + 20} ${2 * h + 60}" xmlns="http://www.w3.org/2000/svg">`;
  svg += `<rect x="5" y="5" width="${6 * w + 10}" height="${2 * h + 10}" rx="20" fill="#8b5a2b"/>`;
  for (let i = 0; i < 12; i++) {
    // view.flip: the mover's row on top, still sown anticlockwise (the board turned round)
    let col = i < 6 ? i : 11 - i, row = i < 6 ? 1 : 0;
    if (view.flip) { col = 5 - col; row = 1 - row; }
    const cx = 10 + col * w + w / 2, cy = 10 + row * h + h / 2;
    const outcome = i < 6 ? moves.get(String(i)) : undefined;
    const move = outcome ? ` data-move="${i}"` : "";
    svg += `<circle${move} data-cell="h${i}" cx="${cx}" cy="${cy}" r="${w * 0.4}" fill="${outcome ? COLOURS[outcome] : "#d9b382"}" stroke="#4a2f12" stroke-width="2"/>`;
    svg += `<text x="${cx}" y="${cy + 9}" text-anchor="middle" font-size="26" font-family="sans-serif" pointer-events="none">${seeds[i] ?? "?"}</text>`;
    if (i < 6) svg += `<text x="${cx}" y="${row ? 2 * h + 40 : 2}" text-anchor="middle" font-size="12" fill="#555">${i}</text>`;
  }
  svg += `<text x="10" y="${2 * h + 55}" font-size="12" fill="#555">${view.flip ? "top" : "bottom"} row: the side to move (houses 0-5)</text>`;
  return svg + "</svg>";
}
