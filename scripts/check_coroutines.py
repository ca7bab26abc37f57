#!/usr/bin/python3
"""make lint: no co_await inside a conditional expression (a ? b : c) in the C++ sources.

GCC 12, the compiler CI builds with, destroys the temporaries of a co_await that is an operand
of ?: twice. The result's destructor then runs twice: an error's message was freed twice while
the database was down, and the heap corruption crashed plauditd far from the cause (issue 50,
the sql-restart fault; redis_check.cpp). Write if/else with a named result instead.

Each statement (text between two ';', with comments, string and character literals blanked)
with a co_await in an arm of a '?' (after it, in the same brackets) or in its condition (before
it, back to the start of the expression) is reported with its file and line; exits 1 if there
is any. Not seen: a ?: whose arm holds a lambda with statements of its own.
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.getcwd()

# Comments, raw and plain string literals, character literals (not a digit separator: 1'000).
LITERAL = re.compile(r'//[^\n]*|/\*.*?\*/|R"(\w*)\(.*?\)\1"|"(?:\\.|[^"\\\n])*"'
                     r"|(?<![0-9A-Fa-f])'(?:\\.|[^'\\\n]){1,8}'", re.S)
OPEN, CLOSE = "([{", ")]}"


def blank(m):
    """The literal or comment as spaces, its newlines kept (so line numbers hold)."""
    return re.sub(r"[^\n]", " ", m.group(0))


def operand_await(stmt):
    """The offset of a co_await that is an operand of a ?: in `stmt`, else None: after the '?'
    in the same brackets (its arms), or before it back to the start of the expression (its
    condition). A ?: inside a co_await's arguments is fine (it sits deeper than the co_await)."""
    for q in (i for i, ch in enumerate(stmt) if ch == "?"):
        depth = 0
        for j in range(q + 1, len(stmt)):
            ch = stmt[j]
            if ch in OPEN:
                depth += 1
            elif ch in CLOSE:
                depth -= 1
                if depth < 0:
                    break
            elif stmt.startswith("co_await", j) and depth >= 0:
                return j
        depth = 0
        for j in range(q - 1, -1, -1):
            ch = stmt[j]
            if ch in CLOSE:
                depth += 1
            elif ch in OPEN:
                depth -= 1
                if depth < 0:
                    break
            elif depth == 0 and (ch in ",;" or (ch == "=" and stmt[j - 1:j] not in ("=", "!", "<", ">")
                                                and stmt[j + 1:j + 2] != "=")):
                break
            elif stmt.startswith("co_await", j):
                return j
    return None


findings = []
checked = 0
for base, dirs, files in (w for top in ("src", "tests", "fuzz", "bench")
                          for w in os.walk(os.path.join(root, top))):
    dirs[:] = [d for d in dirs if d != "node_modules"]
    for name in sorted(files):
        if not name.endswith((".cpp", ".hpp")):
            continue
        path = os.path.join(base, name)
        text = LITERAL.sub(blank, open(path, encoding="utf-8").read())
        checked += 1
        start = 0
        for m in re.finditer(r";", text + ";"):
            stmt = text[start:m.start()]
            at = operand_await(stmt)
            if at is not None:
                line = text.count("\n", 0, start + at) + 1
                findings.append(f"{os.path.relpath(path, root)}:{line}: co_await inside ?: "
                                "(GCC 12 destroys its temporaries twice; use if/else)")
            start = m.end()
if checked < 50:
    sys.exit("check_coroutines: found almost no sources under src/")
for f in findings:
    print(f)
sys.exit(1 if findings else 0)
