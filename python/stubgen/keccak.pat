# nanobind stubgen patterns for tempo/keccak.pyi (python/CMakeLists.txt): the indented body
# replaces the entry that the "query:" regular expression names.

# A tuple of str (stubgen would say a bare `tuple`).
^tempo\._tempo\.keccak\.algorithms$:
    algorithms: tuple[str, ...]
