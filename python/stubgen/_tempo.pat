# nanobind stubgen patterns for tempo/_tempo.pyi (python/CMakeLists.txt): each "query:" line
# is a regular expression over a qualified name; an empty body deletes the entry.

# The family submodules: each has a stub of its own (tempo/<family>.pyi).
^tempo\._tempo\.(keccak|ntt|tfhe|faest|perk)$:
