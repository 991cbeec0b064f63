// The fallback renderer for games without their own: the position text and, when the game has
// one, the command line's diagram (fetched from /api/GAME/diagram).  Same shape as every
// renderer: render(position, result, diagram) returns HTML/SVG markup.
import { esc } from "../values.js";

export const needsDiagram = true;

export function render(position, result, diagram) {
  return `<pre data-board="text">${esc(diagram || position)}</pre>`;
}
