// Whether this browser has a font that draws CJK characters: without one every character is
// drawn as the same blank box, so two different characters drawn on a canvas come out the same.
// The CDC and Shogi boards then fall back to letters (the switch still says which is asked for).
let cjk = null;

export function hasCJK() {
  if (cjk === null) {
    try {
      const c = document.createElement("canvas").getContext("2d", { willReadFrequently: true });
      c.font = "32px sans-serif";
      const draw = t => { c.clearRect(0, 0, 40, 40); c.fillText(t, 0, 32); return c.getImageData(0, 0, 40, 40).data.join(); };
      cjk = draw("飛") !== draw("角");
    } catch {
      cjk = false;
    }
  }
  return cjk;
}
