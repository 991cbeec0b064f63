"""Word-level intrinsics the kernels share (LLVM's, one instruction each on x86-64):
``popcount`` and ``low_bit`` of a 64-bit word, and ``cas_u8``, a byte's compare-and-swap for
kernels whose threads update the same array of one-byte states at once."""
from numba import types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from tbdb.solvers.jit import kernel


@intrinsic
def popcount(typingctx, x):
    """The set bits of a 64-bit word (LLVM's ctpop: one instruction)."""
    if not isinstance(x, types.Integer) or x.bitwidth != 64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.int64(x), codegen


@kernel
def low_bit(w):
    """Index (0..63) of the lowest set bit of the uint64 ``w`` (not 0): one tzcnt."""
    return trailing_zeros(w)


@intrinsic
def cas_u8(typingctx, array, index, expected, new):
    """``array[index]`` (uint8, 1-d) set to ``new`` if it holds ``expected``, atomically;
    returns the value it held (``expected`` if the swap happened)."""
    if not (isinstance(array, types.Array) and array.ndim == 1 and array.dtype == types.uint8
            and isinstance(index, types.Integer) and isinstance(expected, types.Integer)
            and isinstance(new, types.Integer)):
        return None
    sig = types.uint8(array, index, expected, new)

    def codegen(context, builder, signature, args):
        arrty = signature.args[0]
        arr = context.make_array(arrty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, arrty, arr, [args[1]],
                                       wraparound=False)
        old = context.cast(builder, args[2], signature.args[2], types.uint8)
        val = context.cast(builder, args[3], signature.args[3], types.uint8)
        pair = builder.cmpxchg(ptr, old, val, "monotonic", "monotonic")
        return builder.extract_value(pair, 0)

    return sig, codegen
