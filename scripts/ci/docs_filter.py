#!/usr/bin/env python3
"""Doxygen INPUT_FILTER for tempo's public headers (used by the Doxyfile).

The headers document their API with ordinary // comments, written for people
reading the header. This turns them into Doxygen comments without touching
the sources:
  * the comment block at the top of a file becomes its @file description;
  * a // block directly above a declaration becomes its /// documentation;
  * a trailing `code;  // text` becomes `code;  ///< text`.
Comment text is escaped so that Doxygen reads it as plain prose (angle
brackets, backslashes, @ and the like are common in these comments).
Comments inside function bodies stay plain //.
"""
import re
import sys

# Only the escapes Doxygen knows (its manual, "Special Commands": \\ \@ \& \$ \# \< \> \% \|).
ESCAPES = {"\\": "\\\\", "@": "\\@", "<": "\\<", ">": "\\>", "&": "\\&", "#": "\\#", "%": "\\%",
           "$": "\\$", "`": "'", "|": "\\|"}


def escape(text):
    return "".join(ESCAPES.get(c, c) for c in text)


def para(lines):
    """Comment lines -> Doxygen text; indented lines (examples) become verbatim."""
    out, code = [], []

    def flush_code():
        if code:
            out.append("@verbatim")
            out.extend(code)
            out.append("@endverbatim")
            code.clear()

    for raw in lines:
        text = raw[1:] if raw.startswith(" ") else raw
        if text.startswith("  ") and text.strip():
            code.append(text)
            continue
        flush_code()
        out.append(escape(text))
    flush_code()
    return out


LINE = re.compile(r"^(\s*)//(?!/)(.*)$")
TRAIL = re.compile(r"^(\s*[^/\s].*?[;{,)])(\s+)//(?!/)\s?(.*)$")


def main(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out = []
    i = 0
    depth = 0  # brace depth outside namespaces: > 0 inside a function body
    ns_depth = 0
    stack = []
    # The file's opening comment block.
    head = []
    while i < len(lines) and LINE.match(lines[i]):
        head.append(LINE.match(lines[i]).group(2))
        i += 1
    if head:
        out.append("/** @file")
        out.extend(para(head))
        out.append("*/")
    while i < len(lines):
        line = lines[i]
        m = LINE.match(line)
        in_body = any(kind == "body" for kind in stack)
        if m and not in_body:
            block = []
            indent = m.group(1)
            while i < len(lines) and LINE.match(lines[i]):
                block.append(LINE.match(lines[i]).group(2))
                i += 1
            nxt = lines[i].strip() if i < len(lines) else ""
            # Documentation only when a declaration follows directly.
            if nxt and not nxt.startswith(("#", "}", "public:", "private:", "protected:")):
                out.append(indent + "/**")
                out.extend(indent + " " + t for t in para(block))
                out.append(indent + "*/")
            else:
                out.extend(indent + "//" + t for t in block)
            continue
        t = TRAIL.match(line)
        if t and not in_body and "\"" not in t.group(1):
            line = t.group(1) + t.group(2) + "///< " + escape(t.group(3))
        out.append(line)
        # Track braces: namespace/class/struct/enum braces keep us at declaration level.
        code = line.split("//")[0]
        for ch in code:
            if ch == "{":
                if re.search(r"\b(namespace|class|struct|enum|union)\b", code) or re.search(r"extern\s+\"C\"", code):
                    stack.append("scope")
                else:
                    stack.append("body")
            elif ch == "}":
                if stack:
                    stack.pop()
        i += 1
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
