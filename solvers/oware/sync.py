"""Atomic operations on int64 arrays for kernels that run on two threads at once and meet at
spin barriers (``changes.solve_shared``): Numba has no atomics, so these are LLVM's.

Every operation is sequentially consistent: what a thread stored before it arrives at a
barrier is seen by the others after they leave it, and the compiler moves no load or store
across one.
"""
import platform

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from tbdb.solvers.jit import kernel

_X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")


def _slot(context, builder, arrty, arr, index):
    a = context.make_array(arrty)(context, builder, arr)
    return cgutils.get_item_pointer(context, builder, arrty, a, [index], wraparound=False)


def _int64_array(array, index):
    return (isinstance(array, types.Array) and array.ndim == 1 and array.dtype == types.int64
            and isinstance(index, types.Integer))


@intrinsic
def atomic_add(typingctx, array, index, value):
    """``array[index] += value`` atomically; returns the value before."""
    if not _int64_array(array, index) or not isinstance(value, types.Integer):
        return None
    sig = types.int64(array, index, value)

    def codegen(context, builder, signature, args):
        ptr = _slot(context, builder, signature.args[0], args[0], args[1])
        v = context.cast(builder, args[2], signature.args[2], types.int64)
        return builder.atomic_rmw("add", ptr, v, "seq_cst")

    return sig, codegen


@intrinsic
def atomic_load(typingctx, array, index):
    """``array[index]``, read atomically (never from a register kept across a spin loop)."""
    if not _int64_array(array, index):
        return None
    sig = types.int64(array, index)

    def codegen(context, builder, signature, args):
        ptr = _slot(context, builder, signature.args[0], args[0], args[1])
        return builder.load_atomic(ptr, "seq_cst", 8)

    return sig, codegen


@intrinsic
def atomic_store(typingctx, array, index, value):
    """``array[index] = value`` atomically (an exchange: a full barrier on x86)."""
    if not _int64_array(array, index) or not isinstance(value, types.Integer):
        return None
    sig = types.void(array, index, value)

    def codegen(context, builder, signature, args):
        ptr = _slot(context, builder, signature.args[0], args[0], args[1])
        v = context.cast(builder, args[2], signature.args[2], types.int64)
        builder.atomic_rmw("xchg", ptr, v, "seq_cst")
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def spin_pause(typingctx):
    """A spin-wait hint (x86 ``pause``: the waiting core lets its sibling and the memory system
    be); nothing elsewhere."""
    sig = types.void()

    def codegen(context, builder, signature, args):
        if _X86:
            fnty = ir.FunctionType(ir.VoidType(), [])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.sse2.pause")
            builder.call(fn, [])
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def yield_cpu(typingctx):
    """``sched_yield()``: a waiter that has spun long gives its core to whoever is ready (on a
    busy machine, maybe the very thread it waits for)."""
    sig = types.void()

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(32), [])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "sched_yield")
        builder.call(fn, [])
        return context.get_dummy_value()

    return sig, codegen


#: Spins (``pause``) before a waiter starts yielding its core.
SPINS = 2000


@kernel
def wait_until(sync, index, target, abort):
    """Spin until ``sync[index] >= target`` or ``sync[abort] != 0``; False if aborted."""
    spins = 0
    while atomic_load(sync, index) < target:
        if atomic_load(sync, abort) != 0:
            return False
        if spins < SPINS:
            spin_pause()
            spins += 1
        else:
            yield_cpu()
    return True


@intrinsic
def cycles(typingctx):
    """The processor's cycle counter (LLVM's ``readcyclecounter``; ``rdtsc`` on x86): cheap
    enough to time each step's waits."""
    sig = types.int64()

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
        return builder.call(fn, [])

    return sig, codegen
