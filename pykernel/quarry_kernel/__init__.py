"""quarry's Python kernel, the half of quarry that runs inside the sandbox.

The host (Go, package ``pykernel`` beside this folder) sends the files of
two programs over the container's stdin, in the order ``parts.txt`` gives:
the profiler, run in a module of its own, and the kernel, whose parts share
one namespace (a part uses the names of the others without importing them;
each name has one home). The subpackages are the rooms of that program, by
concern. Each one's docstring says what it owns and, on its ``May use:``
line, whose names it may use; ``tests/test_layout.py`` holds them to it.
"""
