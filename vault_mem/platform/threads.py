"""How many threads the numeric libraries of vault-mem's own processes may start."""

from __future__ import annotations

import os
import sys

__all__ = ["ONE_BLAS_THREAD", "one_blas_thread"]

#: numpy's BLAS on one thread in vault-mem's own processes. Its products here are matrix-vector
#: ones of a few MB, which a second thread slows down: 10k vectors took 8 ms with OpenBLAS's
#: threads on 2 cores at load 4, 0.5 ms on one; the model's runtime keeps its own threads.
ONE_BLAS_THREAD = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


def one_blas_thread() -> None:
    """Set :data:`ONE_BLAS_THREAD` to 1 unless numpy is already loaded (too late then) or the
    person set a value (theirs stands). For a process's entry point only: a library user's
    process keeps its own settings."""
    if "numpy" not in sys.modules:
        for name in ONE_BLAS_THREAD:
            os.environ.setdefault(name, "1")
