"""What every probe file shares (``docs/probe-format.md``): the magic, the format version, the
header, section and stream layouts, and the error a bad file raises."""
from __future__ import annotations

import struct


from tbdb.errors import TbdbError


MAGIC = b"TBDBPRB1"
VERSION = 3
MANIFEST = "manifest.json"
SUFFIX = ".tbp"
LAYOUTS = {"index": 0, "key": 1, "runs": 2}  # storage kind -> the header's layout number
DIRECT = 3  # the layout of an index table in direct cells (``tbdb export --direct``)
STORAGE_OF_LAYOUT = {0: "index", 1: "key", 2: "runs", DIRECT: "index"}
FLAG_MOVES = 1
BLOCK_SLOTS = 1024  # slots per block of a stream: a probe decodes codes of at most this many
# The best moves' blocks are shorter: most of their slots take a code of their own (pairs of
# moves repeat less than pairs of values), so a probe in a block no probe has decoded yet
# decoded some 500 move codes; at 256 slots a block, a fresh C probe of CDC 2-4 took 2.8 us
# instead of 4.7 (CC 7x7-3: 1.7 instead of 2.8-3.0), for 1.6-2.3% larger files.  The values
# keep 1024: their starts and padding at 256 would cost 0.12 bit a slot of their 2.
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
