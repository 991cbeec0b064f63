"""What every probe file shares (``docs/probe-format.md``): the magic, the format version, the
header, section and stream layouts, and the error a bad file raises."""
from __future__ import annotations

import struct


from tbdb.errors import TbdbError


MAGIC = b"TBDBPRB1"
FORMAT_VERSION = 3  # the header's and the manifest's version (docs/probe-format.md)
VERSION = FORMAT_VERSION
MANIFEST = "manifest.json"
SUFFIX = ".tbp"

# the header's layout numbers: one a storage kind (``Storage.probe_file.number``), and direct
# cells, the other layout of an index table (``tbdb export --direct``)
LAYOUT_INDEX = 0
LAYOUT_KEY = 1
LAYOUT_RUNS = 2
LAYOUT_DIRECT = 3
DIRECT = LAYOUT_DIRECT
LAYOUTS = {"index": LAYOUT_INDEX, "key": LAYOUT_KEY, "runs": LAYOUT_RUNS}  # kind -> number
STORAGE_OF_LAYOUT = {LAYOUT_INDEX: "index", LAYOUT_KEY: "key", LAYOUT_RUNS: "runs",
                     LAYOUT_DIRECT: "index"}

# the section tags, as the section table holds them (native/src has the same names)
SECTION_ORDER = b"ORDR"  # index: the slot order of the streams
SECTION_VALUES = b"VALS"  # index: the (result, distance) stream
SECTION_MOVES = b"MOVE"  # index: the best-move stream
SECTION_CELL_LAYOUT = b"CALP"  # direct cells: their alphabets and widths
SECTION_CELLS = b"CELL"  # direct cells: the cells
SECTION_KEYS = b"KEYS"  # key: the sorted keys
SECTION_KEY_RESULTS = b"KRES"  # key: results
SECTION_KEY_DISTANCES = b"KDIS"  # key: distances
SECTION_KEY_MOVES = b"KMOV"  # key: best moves
SECTION_RUN_OFFSETS = b"ROFF"  # runs: each position's first run
SECTION_RUN_STARTS = b"RSTA"  # runs: each run's first plies left
SECTION_RUN_SCORES = b"RSCO"  # runs: each run's score
SECTION_RUN_MOVES = b"RMOV"  # runs: each run's best move
FLAG_MOVES = 1
BLOCK_SLOTS = 1024  # slots per block of a stream: a probe decodes codes of at most this many
# The best moves' blocks are shorter: most of their slots take a code of their own (pairs of
# moves repeat less than pairs of values), so a probe in a block no probe has decoded yet
# decoded some 500 move codes; at 256 slots a block a fresh probe takes about 60% of the time,
# for 2% larger files (benchmarks/RESULTS.md, "Moved from code comments").  The values keep
# 1024: their starts and padding at 256 would cost 0.12 bit a slot of their 2.
MOVE_BLOCK_SLOTS = 256
MAX_SYMBOLS = 4096  # terminal and pair symbols of a stream (pair substitution stops there)
MAX_CODE = 32  # bits of the longest code
CHECK_ON_OPEN = 16 << 20  # files up to this size have every checksum checked when opened

HEADER = struct.Struct("<8sIIIIQQII")  # magic version header_bytes layout flags slots rows
#                                         sections meta_bytes
SECTION = struct.Struct("<4sIQQ32s")  # tag, reserved 0, offset, length, sha256
STREAM = struct.Struct("<IIIIQQ")  # terminals, symbols, block_slots, maxlen, n, blocks


class ProbeFileError(TbdbError, ValueError):
    """A probe file or directory that cannot be used: truncated, damaged, of an unknown format
    version, not matching its manifest, a link out of its directory, not a regular file."""


def pad8(n: int) -> int:
    return -n % 8
