"""Writes the PTX of every gpu.binary object in an MLIR file (gpu-module-to-binary format=isa).

usage: extract_ptx.py IN.mlir OUT_PREFIX   -> OUT_PREFIX<N>.ptx, one per object; prints the paths.
"""
import re
import sys


def main():
    text = open(sys.argv[1]).read()
    # #gpu.object<#nvvm.target<...>, properties = {...}, assembly = "<escaped PTX>">; MLIR
    # string escapes are \XX hex.
    objects = re.findall(r'#gpu\.object<#nvvm\.target<[^>]*>,[^"]*"((?:[^"\\]|\\.)*)"', text)
    if not objects:
        sys.exit(f"{sys.argv[1]}: no #gpu.object with PTX found")
    for i, escaped in enumerate(objects):
        ptx = re.sub(r'\\([0-9A-Fa-f]{2})', lambda m: chr(int(m.group(1), 16)), escaped)
        path = f"{sys.argv[2]}{i}.ptx"
        open(path, "w").write(ptx.rstrip("\0"))
        print(path)


if __name__ == "__main__":
    main()
