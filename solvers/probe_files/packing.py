"""A table's result and distance packed into the one int32 value its probe-file stream codes
(``pack_into``) and unpacked again (``unpack_into``): single passes that release the GIL.
"""
import numpy as np

from tbdb.solvers.jit import nogil_kernel


@nogil_kernel
def pack_into(result, distance, out):
    """out[i] = result[i] << 16 | distance[i] & 0xFFFF (int32): one pass, the GIL released
    (numpy's five passes and their temporaries were a build's coding thread's main work)."""
    for i in range(out.shape[0]):
        out[i] = (np.int32(result[i]) << 16) | (np.int32(distance[i]) & 0xFFFF)


@nogil_kernel
def unpack_into(values, result, distance):
    """``pack_into`` undone: result[i] = values[i] >> 16 (int8), distance[i] its low 16 bits
    as int16."""
    for i in range(values.shape[0]):
        v = np.int32(values[i])
        result[i] = np.int8(v >> 16)
        low = v & 0xFFFF
        distance[i] = np.int16(low - 0x10000 if low >= 0x8000 else low)
