# Writes tests/data/damaged_chunk.h5 (/usr/bin/python3 tests/data/make_damaged_chunk.py OUT.h5):
# a float32 [6, 64, 64] stack in gzip chunks of one slice each, values i * 0.25 - 100 (by flat index); the compressed bytes of slice 3's chunk are damaged.
import h5py, numpy as np, sys
fn = sys.argv[1]
with h5py.File(fn, "w", libver="earliest") as f:
    d = f.create_dataset("stack", shape=(6, 64, 64), dtype="float32", chunks=(1, 64, 64), compression="gzip")
    d[...] = (np.arange(6 * 64 * 64, dtype=np.float64) * 0.25 - 100).reshape(6, 64, 64)
    info = d.id.get_chunk_info(3)
with open(fn, "r+b") as f:
    f.seek(info.byte_offset + 8)
    b = bytearray(f.read(info.size - 8))
    f.seek(info.byte_offset + 8)
    f.write(bytes(x ^ 0x5A for x in b))
