"""Every OS-specific mechanism of vault-mem, in one place (DESIGN §6, the bottom layer above
``errors``).

Each mechanism has a Linux, a macOS/BSD and a portable implementation, chosen per call by
:func:`~vault_mem.platform.kind.flavour`; ``VAULT_MEM_PORTABLE=1`` forces the portable ones (so
that they are tested on Linux). The functions here return plain facts (True, False, None for
"cannot tell", a pid list...) or raise ``OSError``; the callers above decide what a fact means
and raise their own errors. :func:`~vault_mem.platform.report.mechanisms` says which
implementation each mechanism uses, for ``vault-mem doctor``.

No other module of the package reads ``/proc``, takes leases, calls ``renameat2``, asks for a
socket's peer credentials, calls ``malloc_trim`` or imports ``fcntl`` (tests/test_layers.py).
"""
