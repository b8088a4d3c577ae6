#pragma once

#include <cstdint>

#include "h5ad_sizer/h5/strings.hpp"
#include "h5ad_sizer/h5/types.hpp"

// Memory that reading takes for a moment and gives back: what makes the peak
// of anndata.read_h5ad higher than the memory it leaves behind. Each figure
// was measured in the reference environment (Debian bookworm: HDF5 1.10.8,
// h5py 3.7, anndata 0.8, CPython 3.11); docs/memory-model.md has the
// measurements.
namespace h5ad_sizer::read_costs {

// What read_h5ad needs beyond the elements' own memory: the modules it
// imports on first use and HDF5's per-file structures (2.36-2.68 MiB for a
// file with nothing but a 10-name obs and a 5-name var), HDF5's metadata
// accumulator and sieve buffer at their largest (1 MiB + 64 KiB), and per
// dataset read the open HDF5 objects, h5py wrappers and dictionary entries
// (8.5 KiB, measured from 10 to 1000 datasets); and 1.5 MiB for how much
// the same read's peak differs between fresh processes (read_costs.cpp).
std::uint64_t read_overhead(std::uint64_t datasets);

// The share of a read's Python temporaries the allocators still hold after
// it returned (pymalloc keeps arenas that hold any live object, glibc keeps
// its heap): memory a later read of other kinds of objects does not reuse,
// and which is still there when read_h5ad ends. Measured with
// bench/accuracy/alone.py, each element read alone in a fresh process:
// (rise of VmRSS - final - HDF5 buffers and chunk records) / Python
// temporaries was 0.23-0.39 for string columns and indexes (300 000-600 000
// rows, anndata 0.8, 0.11 and 0.12 with pandas 3), 0.38-0.57 for
// categorical columns with 300 000+ categories, and -0.42 to 0.60 for whole
// frames (0.60: 400 000 rows with two such categoricals, anndata 0.11).
inline constexpr double kStringTemporariesHeld = 0.4;
inline constexpr double kPythonTemporariesHeld = 0.6;
// Within a dataframe, the share of each earlier column's temporaries that
// a later read of the frame, or its construction, does not reuse: the
// columns' strings, bytes objects and C strings are of the same sizes, so
// pymalloc and glibc hand the freed blocks back out. Measured with
// bench/accuracy/alone.py --after FIRST (the second read in the process that
// read FIRST, FIRST kept): a string column after a string column 0.01-0.02
// (string_heavy_obs, anndata 0.8), a categorical after a categorical -0.01,
// the index after one categorical 0.10 (high_cardinality_categoricals,
// anndata 0.11), the construction copies after the index 0.07
// (nullable_columns, anndata 0.8). 0.10 left high_cardinality_categoricals,
// whose index is read after two large categoricals, at 1.000 of its measured
// peak under anndata 0.8: 0.12 keeps a margin (docs/accuracy.md).
inline constexpr double kFrameTemporariesHeld = 0.12;
// What is held after reading a string array with `temporaries` bytes of
// Python temporaries, and after any other read.
std::uint64_t held_after_strings(std::uint64_t temporaries);
std::uint64_t held_after(std::uint64_t temporaries);
// What is still resident of `released` bytes of objects freed before
// read_h5ad returns (pandas 3's object string arrays once they are Arrow):
// pymalloc returns only arenas left empty. Measured with
// bench/measure_peak.py (VmRSS once read_h5ad has returned) under
// anndata-0.12-pandas3: 12.2 MiB above the rest of what is left on
// nullable_strings (71.8 MiB freed), 18.1 MiB on string_heavy_obs (124.8
// MiB freed): 0.15-0.17, hence 0.2.
inline constexpr double kReleasedHeld = 0.2;
std::uint64_t held_after_release(std::uint64_t released);

// HDF5 1.10 reading a whole chunked dataset: a record with its own memory and
// file selections for every chunk touched (4.1 KiB a chunk, measured from 256
// to 2048 chunks), 1.1 MiB of chunk cache and, for a filtered dataset, 1.4 MiB
// of decompression buffers.
std::uint64_t chunked_dataset(std::uint64_t chunks, bool compressed);
// The above for any dataset: nothing for contiguous or compact storage.
std::uint64_t dataset(const h5::DatasetInfo& info);

// Python's side of reading a string array of `count` strings through h5py
// and anndata: HDF5 mallocs a C string per element, h5py makes each a bytes
// object, anndata decodes those to str through a list; all are alive
// together at the end. Per string of L bytes: roundup16(33 + L) + the
// malloc chunk of L + 1 + 16 bytes of pointer slots.
std::uint64_t string_objects(std::uint64_t count, const h5::StringSample& sample);
// HDF5's side of it: its conversion batch (115 bytes for each of the first
// 65536 strings) and 1.25 MiB of buffers.
std::uint64_t string_array_conversion(std::uint64_t count);

// A string member of a compound dataset (rec-arrays, legacy dataframes):
// h5py hands over bytes objects, decoded to str field by field; the bytes
// objects' memory stays with pymalloc. Per string: roundup16(33 + L).
std::uint64_t record_strings(std::uint64_t count, const h5::StringSample& sample);
// HDF5's side of reading records with string members: its buffers.
std::uint64_t record_conversion();

}  // namespace h5ad_sizer::read_costs
