"""Kernels of the probe files' stream coder (``tbdb.probe_files.coder``,
``docs/probe-format.md``, "Streams"): pair substitution, then one canonical Huffman code.
One module a step: ``pairs`` (pair substitution), ``huffman`` (code lengths, the bit stream),
``layout`` (the decoding table and its checkpoints), ``slots`` (decoding given slots),
``blocks`` (decoding whole blocks), ``slot_orders`` (a file's slot order) and ``packing``
(result and distance in one value); every kernel is importable from here.

A stream holds ``n`` slot values.  Terminal symbols ``0..k-1`` are the distinct values; pair
symbols ``k..K-1`` each stand for two symbols, ``left`` then ``right``, so a symbol stands for a
run of ``size[s]`` consecutive slots.  The slots are cut into blocks of ``block_slots``; no
symbol crosses a block's end, so a block decodes on its own.

Layouts the kernels share:

* ``seq`` int32[m]: a stream as symbols; ``size`` int64[K]: slots each symbol stands for.
* ``codes`` uint64[K], ``lengths`` uint8[K]: symbol s's Huffman code is the low ``lengths[s]``
  bits of ``codes[s]`` (0 = the symbol does not occur).
* ``bits`` uint8[...]: the bit stream read most significant bit first: bit i is bit
  ``7 - (i & 7)`` of byte ``i >> 3``; each block starts on a byte, at ``starts[b]`` (uint32,
  bytes), and ends 8 bytes before the array does at the latest (room to read a word).
* decoding tables (in one int64 ``table``, see ``layout``): ``fast``[2**bits]: for
  the next ``bits`` bits (``fast_bits``), the symbol, its length and its size as
  ``size << 24 | symbol << 8 | length``, or -1 if the code is longer; longer codes by length
  ``l``: those whose 32-bit prefix lies below ``limit[l]`` and at or above ``limit[l - 1]``,
  the first ``first_code[l]`` (an l-bit integer), the others following it, their symbols
  ``order[first_index[l]:...]``.
"""
# every name the parts define, re-exported: importers use tbdb.solvers.probe_files.<name>
from tbdb.solvers.probe_files.layout import (FAST_BITS, SMALL_FAST_BITS, FAST_SLOTS, fast_bits,
                                             T_K, T_BLOCK, T_SHIFT, T_MAXLEN, T_N, T_STARTS,
                                             T_BITS, T_LEFT, T_RIGHT, T_SIZE, T_FAST, T_LIMIT,
                                             T_FIRST_CODE, T_FIRST_INDEX, T_ORDER, T_ALPHABET,
                                             T_MARKS, T_MARK_SHIFT, T_NODES, T_FAST_BITS,
                                             T_FIELDS, CHECKPOINT_BITS, CHECKPOINTS, MAX_CODE,
                                             BAD_PAIR, BAD_SIZE, BAD_CODE, BAD_STARTS,
                                             decoding_table_words, decoding_table)
from tbdb.solvers.probe_files.pairs import (substitute, replay, value_places, symbol_counts,
                                            pair_sizes)
from tbdb.solvers.probe_files.huffman import huffman_depths, block_starts, encode
from tbdb.solvers.probe_files.slots import (decode_slot, decode_slot_pair, index_stream,
                                            decode_sorted, decode_sorted_parallel, decode_rows,
                                            decode_rows_parallel)
from tbdb.solvers.probe_files.blocks import (TASK_BLOCKS, decoding_stacks,
                                             decode_blocks)
from tbdb.solvers.probe_files.slot_orders import (positions_by_table, decode_slot_at,
                                                  decode_slot_pair_at, order_scores)
from tbdb.solvers.probe_files.packing import pack_into, unpack_into
