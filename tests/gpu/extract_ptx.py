"""Writes the PTX of every kernel in IN, one file each, and prints the paths.

IN is either MLIR with gpu.binary objects (gpu-module-to-binary format=isa) or the output of
`loupe compile --target cuda --emit ptx` (each kernel after a `// kernel NAME` line).

usage: extract_ptx.py IN OUT_PREFIX   -> OUT_PREFIX<N>.ptx
"""
import re
import sys


def kernels(text):
    if text.startswith("// kernel "):
        return [p for p in re.split(r"^// kernel \S+\n", text, flags=re.M) if p.strip()]
    # #gpu.object<#nvvm.target<...>, properties = {...}, assembly = "<escaped PTX>">; MLIR
    # string escapes are \XX hex.
    objects = re.findall(r'#gpu\.object<#nvvm\.target<[^>]*>,[^"]*"((?:[^"\\]|\\.)*)"', text)
    return [re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), o) for o in objects]


def main():
    found = kernels(open(sys.argv[1], encoding="latin-1").read())
    if not found:
        sys.exit(f"{sys.argv[1]}: no PTX found")
    for i, ptx in enumerate(found):
        path = f"{sys.argv[2]}{i}.ptx"
        open(path, "w", encoding="latin-1").write(ptx.replace("\0", ""))
        print(path)


if __name__ == "__main__":
    main()
