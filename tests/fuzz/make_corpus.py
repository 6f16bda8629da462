#!/usr/bin/env python3
"""Writes the seed corpus of tempo-fanout's fuzz targets to tests/data/fanout/corpus/.
Valid requests of each shape, every error the parsers name, and tricky bytes
(control characters, whitespace variants, huge counts). Rerun after adding cases."""
import os, struct, sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "fanout", "corpus")

def u32(v): return struct.pack("<I", v)
def rec(m): return u32(len(m)) + m

sexpr = {
    "valid": b'(cuda-shake-fanout (output-bytes 32) (inputs "deadbeef" "00ff00ff"))',
    "valid_mixed": b'(cuda-shake-fanout (output-bytes 64) (inputs "" "00" "0102" "ABCDEF"))',
    "valid_comment": b'; request\n(cuda-shake-fanout\n  (inputs "00" "01") ; two\n  (output-bytes 1))\n',
    "valid_ws": b'\f(cuda-shake-fanout\v(output-bytes\f32\v)\r(inputs\t"00"\f))\n',
    "empty_inputs": b'(cuda-shake-fanout (output-bytes 32) (inputs))',
    "empty": b"",
    "odd_hex": b'(cuda-shake-fanout (output-bytes 32) (inputs "abc"))',
    "bad_hex": b'(cuda-shake-fanout (output-bytes 32) (inputs "0g"))',
    "nul_hex": b'(cuda-shake-fanout (output-bytes 32) (inputs "0\x00"))',
    "unterminated": b'(cuda-shake-fanout (output-bytes 32) (inputs "00',
    "truncated": b'(cuda-shake-fanout (output-bytes 32) (inputs "00"',
    "twice": b'(cuda-shake-fanout (output-bytes 32) (output-bytes 32) (inputs))',
    "zero_out": b'(cuda-shake-fanout (output-bytes 0) (inputs))',
    "huge_out": b'(cuda-shake-fanout (output-bytes 99999999999999999999999) (inputs))',
    "max_out": b'(cuda-shake-fanout (output-bytes 1048576) (inputs "" "" ""))',
    "escape_field": b'(cuda-shake-fanout (\x1b[31mcolour 3))',
    "other_head": b'(other (output-bytes 32) (inputs))',
    "trailing": b'(cuda-shake-fanout (output-bytes 32) (inputs)) x',
    "nested": b'(cuda-shake-fanout ((inputs)))',
}
binary = {
    "valid_uniform": u32(32) + u32(3) + rec(b"abc") + rec(b"def") + rec(b"ghi"),
    "valid_mixed": u32(48) + u32(3) + rec(b"ab") + rec(b"") + rec(b"cde"),
    "valid_empty_msgs": u32(16) + u32(4) + rec(b"") * 4,
    "valid_zero": u32(32) + u32(0),
    "short_header": b"abc",
    "truncated_len": u32(32) + u32(2) + rec(b"abc") + b"\x09\x00",
    "truncated_body": u32(32) + u32(1) + u32(5) + b"ab",
    "trailing": u32(32) + u32(1) + rec(b"ab") + b"XX",
    "count_too_big": u32(32) + u32(1000000) + rec(b"ab"),
    "zero_out": u32(0) + u32(0),
    "huge_len": u32(32) + u32(1) + u32(0xFFFFFFFF) + b"a",
    "huge_out": u32(0xFFFFFFFF) + u32(1) + rec(b"a"),
    "amplify": u32(1 << 20) + u32(64) + rec(b"") * 64,
    "uniform_then_other": u32(32) + u32(3) + rec(b"ab") + rec(b"cd") + rec(b"efg"),
}
command = {
    "process": b"process in.sx out.sx\n",
    "process_bin": b"process-bin in.bin out.bin\nquit\n",
    "ws": b"\t process-bin\fa\vb \r\n",
    "blank": b"\n  \n\t\n",
    "unknown": b"frobnicate\n",
    "usage": b"process a\nprocess a b c\n",
    "control": b"process a\x00b c\nfro\x1b[2Jb\n",
    "no_newline": b"process a b",
    "long": b"y" * 70000 + b"\nquit\n",
    "crlf": b"process a b\r\nquit\r\n",
}
for name, cases in (("sexpr", sexpr), ("binary", binary), ("command", command)):
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    for k, v in cases.items():
        with open(os.path.join(d, k), "wb") as f:
            f.write(v)
print("corpus written to", os.path.normpath(root))
