// tbprobe.mjs: libtbprobe compiled to WebAssembly (make -C native wasm), for the browser and Node.
//
//   import { loadTbprobe } from "./tbprobe.mjs";
//   const tbprobe = await loadTbprobe(wasmBytes);            // the bytes of tbprobe.wasm
//   const base = tbprobe.open([{ name: "cdc/KCvP.tbp", data: arrayBuffer }, ...]);
//   base.probe("cdc", "8/8/8/pKC5 r");   // {status: "ok", outcome: "win", distance: 1, best_move: "c1xa1"}
//   base.probeCdc(new Int8Array(32), 0); // the array form: {status, result, distance, move}
//   base.close();
//
// Probe files are copied into the module's memory once (open); a probe allocates nothing.

const STATUS = { 0: "ok", 1: "over", [-1]: "illegal", [-2]: "missing", [-3]: "invalid",
  [-4]: "damaged", [-5]: "io", [-6]: "nomem" };
const OUTCOME = { 1: "win", 0: "draw", [-1]: "loss" };

// libtbprobe never does I/O in WebAssembly; stdio's three imports answer "not supported"
const wasiStubs = {
  fd_close: () => 52, fd_seek: () => 52, fd_write: () => 52,
};

export async function loadTbprobe(wasmBytes) {
  const { instance } = await WebAssembly.instantiate(wasmBytes,
    { wasi_snapshot_preview1: wasiStubs });
  const x = instance.exports;
  if (x._initialize) x._initialize();
  const enc = new TextEncoder(), dec = new TextDecoder();
  const bytes = () => new Uint8Array(x.memory.buffer);
  const cstring = (ptr) => {
    const m = bytes();
    let end = ptr;
    while (m[end]) end++;
    return dec.decode(m.subarray(ptr, end));
  };
  const withString = (text, fn) => {
    const b = enc.encode(text);
    const p = x.tbw_alloc(b.length + 1);
    bytes().set(b, p);
    bytes()[p + b.length] = 0;
    try { return fn(p); } finally { x.tbw_free(p); }
  };
  const scratch = x.tbw_alloc(128);  // array-form positions are copied here
  const value = () => ({ status: STATUS[x.tbw_value(0)], result: x.tbw_value(1),
    distance: x.tbw_value(2), score: x.tbw_value(3), move: x.tbw_value(4) });

  function open(files) {
    const base = x.tbw_new();
    const held = [];
    for (const { name, data } of files) {
      const b = new Uint8Array(data);
      const p = x.tbw_alloc(b.length);
      bytes().set(b, p);
      held.push(p);
      const rc = withString(name, (np) => x.tbw_add(base, p, b.length, np));
      if (rc !== 0) {
        const why = cstring(x.tbw_error());
        x.tbw_close(base);
        held.forEach((q) => x.tbw_free(q));
        throw new Error(why);
      }
    }
    return {
      // tb_index: checkpoints in every block (faster probes, a fifth of the files' size more
      // memory, one pass over the files now)
      index() {
        if (x.tbw_index(base) !== 0) throw new Error(cstring(x.tbw_error()));
      },
      // text as tbdb writes it -> the fields of `tbdb lookup --json` (or throws on bad text)
      probe(game, text, pliesLeft = -1) {
        const rc = withString(game, (gp) => withString(text, (tp) =>
          x.tbw_probe_text(base, gp, tp, pliesLeft)));
        if (rc === -3 && cstring(x.tbw_error())) throw new Error(cstring(x.tbw_error()));
        const v = value();
        const out = { status: v.status };
        if (rc < 0) return out;
        out.outcome = OUTCOME[v.result];
        out.distance = game === "oware" ? null : v.distance;   // Oware: a score, no distance
        out.best_move = v.move >= 0 ? cstring(x.tbw_move_text()) : null;
        if (game === "oware") out.score = v.score;
        return out;
      },
      probeCdc(board, side) {
        bytes().set(new Int8Array(board).subarray(0, 32), scratch);
        x.tbw_probe_cdc(base, scratch, side);
        return value();
      },
      probeOware(houses, pliesLeft = 200) {
        bytes().set(new Int8Array(houses).subarray(0, 12), scratch);
        x.tbw_probe_oware(base, scratch, pliesLeft);
        return value();
      },
      probeChineseCheckers(m, cells, mover) {
        bytes().set(new Int8Array(cells).subarray(0, m * m), scratch);
        x.tbw_probe_chinese_checkers(base, m, scratch, mover);
        return value();
      },
      close() {
        x.tbw_close(base);
        held.forEach((q) => x.tbw_free(q));
      },
    };
  }
  return { open };
}
