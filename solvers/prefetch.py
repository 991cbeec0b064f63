"""``prefetch(array, i)``: ask the CPU to start loading array[i] into cache (LLVM's
``llvm.prefetch``, write intent, high locality), for kernels whose loops touch slots at random.

The edge-free backup (``tbdb.solvers.retrograde.edge_free.ef_apply``) reads and updates four
per-slot arrays at the parents' slots, which scatter over hundreds of MB; issuing the loads a
few rows ahead lets them overlap instead of waiting on DRAM one after another.
"""
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def prefetch(typingctx, array, index):
    """A hint, never a fault: the index is not checked and the load may be dropped."""
    if not isinstance(array, types.Array) or array.ndim != 1 or \
            not isinstance(index, types.Integer):
        return None
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):
        arrty = signature.args[0]
        arr = context.make_array(arrty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, arrty, arr, [args[1]],
                                       wraparound=False)
        i32 = ir.IntType(32)
        byte_ptr = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [byte_ptr, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        # rw = 1 (the slot will be written), locality = 3 (keep), cache type = 1 (data)
        builder.call(fn, [builder.bitcast(ptr, byte_ptr), ir.Constant(i32, 1),
                          ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen
