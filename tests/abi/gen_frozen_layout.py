#!/usr/bin/env python3
"""Writes frozen_layout.h: the offset of every field of every public struct of
the stable ABI, as the compiler lays it out now (LP64). Run it once when a
minor is released (after appending fields), never to make a failing assert
pass: a changed offset of an existing field is an ABI break."""
import pathlib, re, subprocess, sys, tempfile

root = pathlib.Path(__file__).resolve().parents[2]
include = root / "abi" / "include"
structs = []
for header in sorted((include / "ndsearch").glob("*.h")):
    text = header.read_text()
    for m in re.finditer(r"typedef struct (\w+) \{\n(.*?)\n\} \1;", text, re.S):
        fields = []
        for line in m.group(2).splitlines():
            line = re.sub(r"/\*.*?\*/", "", line).strip()
            fm = re.match(r".*?\(\*(\w+)\)\(", line) or re.match(r".*?(\w+);$", line)
            if fm and not line.startswith("*"):
                fields.append(fm.group(1))
        structs.append((m.group(1), fields))

program = ["#include <ndsearch/nds.h>", "#include <stdio.h>", "int main(void) {"]
for name, fields in structs:
    program.append(f'  printf("NDS_FROZEN_SIZE({name}, %zu)\\n", sizeof({name}));')
    for f in fields:
        program.append(f'  printf("NDS_FROZEN({name}, {f}, %zu)\\n", offsetof({name}, {f}));')
    program.append(f'  printf("NDS_FROZEN_LAST({name}, {fields[-1]})\\n");')
program.append("  return 0; }")
with tempfile.TemporaryDirectory() as tmp:
    src = pathlib.Path(tmp) / "layout.c"
    src.write_text("\n".join(program))
    exe = pathlib.Path(tmp) / "layout"
    subprocess.run(["cc", "-std=c99", "-I", str(include), str(src), "-o", str(exe)], check=True)
    lines = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
out = root / "tests" / "abi" / "frozen_layout.h"
out.write_text(
    "/* SPDX-License-Identifier: Apache-2.0 */\n"
    "/* frozen_layout.h: written by gen_frozen_layout.py for ABI "
    + re.search(r'NDS_ABI_VERSION_STRING "([^"]+)"', (include / "ndsearch" / "nds_abi.h").read_text()).group(1)
    + " on LP64.\n * Offsets and sizes of every public struct; an existing field may never move.\n"
    " * NDS_FROZEN_SIZE grows only when a minor appends fields (regenerate then). */\n"
    + lines)
print(f"wrote {out} ({len(structs)} structs)")
