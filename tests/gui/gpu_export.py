#!/usr/bin/env python3
"""Writes a synthetic Nsight Systems export (`nsys export --type sqlite`) of a GPU run, for the
workbench's GPU screenshot: no GPU is needed, `loupe db import-nsys` reads it like a real one.

The tables and columns are those of tests/unit/profiler/fixtures/nsys_export.sql (nsys' own).
The work: four decoder layers on an H100. Stream 7 runs each layer's norm, QKV GEMM, attention,
output GEMM and residual add; stream 13 its MLP (two GEMMs around a GELU) once attention is
done, overlapping the next layer; stream 14 prefetches each layer's weights (HtoD, pinned). A
workspace memset and the input upload come first, the output download last. Durations are
plausible for the shapes, not measured.

usage: gpu_export.py FIXTURE.sql OUT.sqlite
"""
import re
import sqlite3
import sys

fixture, out = sys.argv[1:3]
schema = [s for s in re.findall(r"CREATE TABLE [^;]*;", open(fixture).read())]
db = sqlite3.connect(out)
for statement in schema:
    db.execute(statement)

names = {}


def string_id(text):
    if text not in names:
        names[text] = len(names) + 1
        db.execute("INSERT INTO StringIds VALUES (?, ?)", (names[text], text))
    return names[text]


correlation = [1000]


def next_correlation():
    correlation[0] += 1
    return correlation[0]


def kernel(start, dur, stream, name, short, grid, block, regs, smem=0, dyn=0):
    db.execute(
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, "
        "correlationId, globalPid, demangledName, shortName, registersPerThread, gridX, gridY, "
        "gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, "
        "localMemoryPerThread, localMemoryTotal, gridId) "
        "VALUES (?, ?, 0, 1, ?, ?, 4242, ?, ?, ?, ?, ?, 1, ?, 1, 1, ?, ?, 0, 0, ?)",
        (start, start + dur, stream, next_correlation(), string_id(name), string_id(short), regs,
         grid[0], grid[1], block, smem, dyn, correlation[0]))
    return start + dur


def memcpy(start, dur, stream, nbytes, kind, src, dst):
    db.execute(
        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, "
        "correlationId, globalPid, bytes, copyKind, srcKind, dstKind) "
        "VALUES (?, ?, 0, 1, ?, ?, 4242, ?, ?, ?, ?)",
        (start, start + dur, stream, next_correlation(), nbytes, kind, src, dst))
    return start + dur


def memset(start, dur, stream, nbytes):
    db.execute(
        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, streamId, "
        "correlationId, globalPid, value, bytes, memKind) VALUES (?, ?, 0, 1, ?, ?, 4242, 0, ?, 3)",
        (start, start + dur, stream, next_correlation(), nbytes))
    return start + dur


HTOD, DTOH = 1, 2
PAGEABLE, PINNED, DEVICE = 1, 2, 3
MIB = 1 << 20

t0 = 5_000_000_000  # the collector's clock
t = memset(t0, 12_000, 7, 16 * MIB)  # workspace
t = memcpy(t + 2_000, 180_000, 7, 2 * MIB, HTOD, PAGEABLE, DEVICE)  # the input
prefetch = t0 + 20_000
mlp_free = t
for layer in range(4):
    # Stream 14: this layer's weights, pinned -> device, ahead of their use.
    prefetch = memcpy(max(prefetch, t - 300_000), 330_000, 14, 8 * MIB, HTOD, PINNED, DEVICE)
    t = max(t, prefetch) + 3_000
    t = kernel(t, 18_000, 7, "void layer_norm_fwd_kernel<float, 1024>(float const*, float const*, "
               "float const*, float*, int)", "layer_norm_fwd_kernel", (512, 1), 256, 32, 0, 2048)
    t = kernel(t + 2_000, 95_000, 7, "ampere_sgemm_128x64_tn", "ampere_sgemm_128x64_tn",
               (24, 8), 256, 122, 32768)
    t = kernel(t + 2_000, 120_000, 7, "void flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, "
               "128, 4, false, false, float>, false, false>(Flash_fwd_params)",
               "flash_fwd_kernel", (16, 16), 128, 255, 0, 49152)
    t = kernel(t + 2_000, 40_000, 7, "ampere_sgemm_64x64_nn", "ampere_sgemm_64x64_nn", (16, 8),
               128, 90, 16384)
    t = kernel(t + 2_000, 12_000, 7, "fusion_12_kLoop", "fusion_12_kLoop", (1024, 1), 256, 16)
    # Stream 13: the MLP, once the residual is ready; it overlaps the next layer's attention.
    m = max(t, mlp_free) + 3_000
    m = kernel(m, 150_000, 13, "ampere_sgemm_128x128_nn", "ampere_sgemm_128x128_nn", (32, 8), 256,
               128, 32768, 16384)
    m = kernel(m + 2_000, 22_000, 13, "void gelu_kernel<float>(float const*, float*, long)",
               "gelu_kernel", (2048, 1), 256, 18)
    m = kernel(m + 2_000, 110_000, 13, "ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nn",
               (24, 8), 256, 122, 32768)
    mlp_free = m
    t += 60_000  # the host launching the next layer
memcpy(max(t, mlp_free) + 3_000, 12_000, 14, 256 * 1024, DTOH, DEVICE, PINNED)  # the output

db.execute("INSERT INTO TARGET_INFO_GPU (id, name, busLocation, isDiscrete, l2CacheSize, "
           "totalMemory, memoryBandwidth, clockRate, smCount, chipName, computeMajor, "
           "computeMinor) VALUES (0, 'NVIDIA H100 80GB HBM3', '0000:19:00.0', 1, 52428800, "
           "85520809984, 3352320000000, 1980000000, 132, 'GH100', 9, 0)")
db.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1752000000000000000, "
           "'2025-07-08T18:40:00Z', '')")
db.commit()
db.close()
