"""The C prober (native/, issue 25) from the tests: building it with make, and a ctypes binding
of libtbprobe.so with the few calls the tests compare against Python."""
from __future__ import annotations

import ctypes
import os
import shutil
import subprocess

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NATIVE = os.path.join(ROOT, "native")
STATUS = {0: "ok", 1: "over", -1: "illegal", -2: "missing", -3: "invalid", -4: "damaged",
          -5: "io", -6: "nomem"}


def compiler() -> str | None:
    for cc in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if cc and shutil.which(cc):
            return cc
    return None


def make(*targets: str) -> None:
    """Run make in native/ (skips the test without a C compiler or make)."""
    cc = compiler()
    if cc is None or shutil.which("make") is None:
        pytest.skip("no C compiler or make (apt-get install gcc make)")
    subprocess.run(["make", "-s", "-C", NATIVE, f"CC={cc}", *targets], check=True,
                   capture_output=True, text=True)


class Value(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("result", ctypes.c_int), ("distance", ctypes.c_int),
                ("score", ctypes.c_int), ("move", ctypes.c_int32)]


class Position(ctypes.Structure):
    _fields_ = [("game", ctypes.c_int), ("side", ctypes.c_int), ("m", ctypes.c_int),
                ("pieces", ctypes.c_int), ("constraint", ctypes.c_int), ("scoring", ctypes.c_int),
                ("cells", ctypes.c_int8 * 128), ("hands", (ctypes.c_int8 * 8) * 2),
                ("ep", ctypes.c_int), ("halfmove", ctypes.c_int), ("fullmove", ctypes.c_int)]


class Lib:
    """libtbprobe.so loaded with ctypes; ``open(dir)`` gives a Base."""

    def __init__(self):
        make("build/libtbprobe.so", "build/compare")
        self.compare = os.path.join(NATIVE, "build", "compare")
        lib = self.lib = ctypes.CDLL(os.path.join(NATIVE, "build", "libtbprobe.so"))
        vp, cp, sz = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t
        i8p = ctypes.POINTER(ctypes.c_int8)
        lib.tb_open.argtypes = [cp, ctypes.POINTER(vp), cp, sz]
        lib.tb_open_flags.argtypes = [cp, ctypes.c_uint, ctypes.POINTER(vp), cp, sz]
        lib.tb_verify.argtypes = [vp, cp, sz]
        lib.tb_close.argtypes = [vp]
        lib.tb_table_count.argtypes = [vp]
        lib.tb_lazy_limit.argtypes = [vp, ctypes.c_uint64]
        lib.tb_lazy_status.argtypes = [vp, cp, cp, cp, sz]
        lib.tb_probe_cdc.argtypes = [vp, i8p, ctypes.c_int, ctypes.POINTER(Value)]
        lib.tb_probe_chinese_checkers.argtypes = [vp, ctypes.c_int, i8p, ctypes.c_int,
                                                  ctypes.POINTER(Value)]
        lib.tb_probe_tictactoe.argtypes = [vp, i8p, ctypes.POINTER(Value)]
        lib.tb_probe_uttt.argtypes = [vp, i8p, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                      ctypes.POINTER(Value)]
        lib.tb_probe_oware.argtypes = [vp, i8p, ctypes.c_int, ctypes.POINTER(Value)]
        lib.tb_probe_shogi.argtypes = [vp, i8p, i8p, ctypes.c_int, ctypes.POINTER(Value)]
        lib.tb_probe_chess.argtypes = [vp, i8p, ctypes.c_int, ctypes.c_int, ctypes.POINTER(Value)]
        lib.tb_parse.argtypes = [cp, cp, ctypes.POINTER(Position), cp, sz]
        lib.tb_probe_position.argtypes = [vp, ctypes.POINTER(Position), ctypes.c_int,
                                          ctypes.POINTER(Value)]
        lib.tb_move_text.argtypes = [ctypes.POINTER(Position), ctypes.c_int32, cp, sz]
        lib.tb_position_text.argtypes = [ctypes.POINTER(Position), cp, sz]

    INDEX, VERIFY, POPULATE, LAZY = 1, 2, 4, 8  # tb_open_flags

    def open(self, path: str, flags: int = 0) -> Base:
        base = ctypes.c_void_p()
        err = ctypes.create_string_buffer(512)
        rc = self.lib.tb_open_flags(path.encode(), flags, ctypes.byref(base), err, 512)
        if rc != 0:
            raise OSError(rc, err.value.decode())
        return Base(self, base, path)

    def parse(self, game: str, text: str) -> Position:
        pos = Position()
        err = ctypes.create_string_buffer(512)
        rc = self.lib.tb_parse(game.encode(), text.encode(), ctypes.byref(pos), err, 512)
        if rc != 0:
            raise ValueError(err.value.decode())
        return pos

    def position_text(self, pos: Position) -> str | None:
        buf = ctypes.create_string_buffer(512)
        n = self.lib.tb_position_text(ctypes.byref(pos), buf, 512)
        return buf.value.decode() if n > 0 else None

    def move_text(self, pos: Position, code: int) -> str | None:
        buf = ctypes.create_string_buffer(128)
        n = self.lib.tb_move_text(ctypes.byref(pos), code, buf, 128)
        return buf.value.decode() if n > 0 else None


class Base:
    def __init__(self, lib: Lib, handle, path: str):
        self.lib, self.handle, self.path = lib, handle, path

    def close(self) -> None:
        self.lib.lib.tb_close(self.handle)

    def table_count(self) -> int:
        return self.lib.lib.tb_table_count(self.handle)

    def lazy_limit(self, max_bytes: int) -> None:
        self.lib.lib.tb_lazy_limit(self.handle, max_bytes)

    def lazy_status(self, game: str, table: str) -> tuple[str, str]:
        """tb_lazy_status: (status name, its message)."""
        err = ctypes.create_string_buffer(512)
        rc = self.lib.lib.tb_lazy_status(self.handle, game.encode(), table.encode(), err, 512)
        return STATUS[rc], err.value.decode()

    def verify(self) -> None:
        """tb_verify: OSError with its message if a file is not its manifest's."""
        err = ctypes.create_string_buffer(512)
        rc = self.lib.lib.tb_verify(self.handle, err, 512)
        if rc != 0:
            raise OSError(rc, err.value.decode())

    def probe_rows(self, game: str, boards: np.ndarray, sides, m: int = 0,
                   constraints=None):
        """(status, result, distance, move) int64[4, n] of each row probed in C, by
        native/tests/compare.c in one process (``sides``: the side or mover, Oware's plies
        left; ``m``: the Chinese Checkers board; ``constraints``: UTTT's; result: Oware's
        score)."""
        boards = np.ascontiguousarray(boards, np.int8)
        n, width = boards.shape
        rec = np.zeros(n, [("cells", np.int8, (width,)), ("side", "<i4"), ("con", "<i4")])
        rec["cells"] = boards
        rec["side"] = np.asarray(sides)
        if constraints is not None:
            rec["con"] = np.asarray(constraints)
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            rows, out = os.path.join(tmp, "rows"), os.path.join(tmp, "out")
            rec.tofile(rows)
            subprocess.run([self.lib.compare, self.path, game, str(width), rows, out, str(m)],
                           check=True)
            got = np.fromfile(out, "<i4").reshape(n, 4)
        return got.T.astype(np.int64)

    def probe_text(self, game: str, text: str, plies: int = -1):
        pos = self.lib.parse(game, text)
        v = Value()
        st = self.lib.lib.tb_probe_position(self.handle, ctypes.byref(pos), plies, ctypes.byref(v))
        move = self.lib.move_text(pos, v.move) if st >= 0 and v.move >= 0 else None
        return st, v.result, v.distance, move
