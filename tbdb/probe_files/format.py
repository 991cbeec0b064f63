"""Writing a built table's probe file whole (``write_table``): its storage kind's layout
(``Storage.probe_file``) makes the sections, ``container`` the file around them.  The container
and reader names are kept here too (``ProbeFile``, ``file_parts``, ...)."""
from __future__ import annotations

from concurrent.futures import Executor, ThreadPoolExecutor

import numpy as np

from tbdb.probe_files.container import (ProbeFile, guard_extension, check_inside,  # noqa: F401
                                        file_head, file_parts, meta_of)
from tbdb.probe_files.order import SlotOrder, choose_order
from tbdb.storage import storage_of


def write_table(game: str, row: dict, values, moves: bool = True, direct: bool = False) -> bytes:
    """The probe file of a built table: catalogue row ``row``, ``values`` what
    ``storage_of(row).load(store, row)`` returned; an index table in direct cells if
    ``direct``.  Same input, same bytes."""
    with ThreadPoolExecutor(2) as pool:  # the coder's kernels release the GIL
        return b"".join(start_table(game, row, values, moves, pool, direct)())


def start_table(game: str, row: dict, values, moves: bool, pool: Executor,
                direct: bool = False):
    """``write_table`` in two steps: its streams are handed to ``pool`` now; the function
    returned waits for them and gives the file as the buffers that make it up, in order.  An
    export keeps two threads coding streams of consecutive tables while it reads the next
    one.  The sections are the storage kind's (``Storage.probe_file.start``)."""
    return storage_of(row).probe_file.start(game, row, values, moves, pool, direct,
                                            lambda v: index_order(game, row, v))


def index_order(game: str, row: dict, values: np.ndarray) -> SlotOrder:
    """The slot order of an index table's file: the permutation of the game's index digits
    its ``values`` (int32, game order) compress best in; the index's own order for a game
    whose slots are no mixed-radix number."""
    from tbdb import games
    digits = games.get(game).slot_digits(row["table_name"])
    if digits is None or int(np.prod(np.array(digits, dtype=object))) != len(values):
        return SlotOrder.identity(len(values))
    return choose_order(values, digits)


