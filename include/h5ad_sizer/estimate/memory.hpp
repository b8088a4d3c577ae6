#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "h5ad_sizer/anndata/report.hpp"
#include "h5ad_sizer/estimate/runtime.hpp"

// The memory model: what anndata.read_h5ad holds and needs for a report, as
// a pure function of it. The report says what the file holds and which read
// path anndata takes; this pass prices each in CPython, numpy, pandas, h5py
// and HDF5 (estimate/python_costs.hpp, estimate/read_costs.hpp,
// docs/memory-model.md).
namespace h5ad_sizer {

// One element's memory, mirroring the report's tree. Costs that belong to
// no HDF5 object (a hash table pandas builds) are children of their own
// with no element, named in brackets.
struct ElementCost {
  // Into the report the estimate was made from, which must outlive it and
  // stay in place (moving a Report keeps its elements where they are).
  const Element* element = nullptr;  // nullptr for a bracketed cost
  std::string path;                  // element->path, or "[what]"
  // Bytes it holds once read_h5ad has returned.
  std::uint64_t final_bytes = 0;
  // The most memory reading it needs at one moment beyond final_bytes, in
  // three pools that do not share freed memory (docs/memory-model.md):
  // Python objects and numpy temporaries (bytes objects, copies), which
  // pymalloc keeps for later Python objects ...
  std::uint64_t python_transient_bytes = 0;
  // ... HDF5's small allocations (a record per chunk read), which glibc keeps
  // in its heap for later HDF5 reads ...
  std::uint64_t io_transient_bytes = 0;
  // ... and HDF5's large buffers (type conversion of strings), which glibc
  // maps and unmaps around each read. Children's transients do not add up:
  // they are read one at a time.
  std::uint64_t buffer_transient_bytes = 0;
  // The largest Python temporaries the read makes, whatever else is there
  // then. The same as python_transient_bytes, but for a dataframe
  // (read_costs::kFrameTemporariesHeld): its columns are read one
  // after another, so its largest read may stand above only part of its
  // final bytes, and its peak above them all be smaller than this.
  std::uint64_t python_temporaries_bytes = 0;
  // What the allocators still hold of those temporaries once the read has
  // returned, memory that elements of other kinds read later do not reuse
  // (read_costs::held_after).
  std::uint64_t python_held_bytes = 0;
  // What of them is still resident once read_h5ad has returned: the same
  // but for the numpy copies a frame's construction makes, which the
  // allocator gives back (bench/out/after: nullable_columns' after-read
  // resident memory is 5.6 MiB above the rest, not the 77 MiB held).
  std::uint64_t kept_bytes = 0;
  // The part of python_temporaries_bytes that pyarrow's memory pool served
  // (pandas 3's Arrow conversions of categories), which the object reads
  // after it in the same frame do not reuse.
  std::uint64_t arrow_temporaries_bytes = 0;
  // The largest buffer among those (an Arrow string builder's text, grown
  // by doubling), or 0 where it is not modelled: which later builds can
  // reuse them (memory.cpp, ArrowPool).
  std::uint64_t arrow_block_bytes = 0;
  // The part of final_bytes that is gone by the time read_h5ad returns:
  // under pandas 3, the object arrays of string columns once DataFrame() has
  // made them Arrow arrays. Counted at the read's peak, not after it.
  std::uint64_t released_bytes = 0;
  // The part of final_bytes freed as read_h5ad returns whose memory the job
  // reuses for what it allocates next, resident or not: the hash table of a
  // duplicate check made on a copy of the index
  // (RuntimeModel::keeps_index_engine). glibc kept nullable_columns' 16 MiB
  // table under anndata 0.12 (16.3 MiB more resident with the check than
  // with it patched out) and X's copies then stood 16-23 MiB lower on what
  // the read left than under the stacks that keep the table
  // (docs/accuracy.md). Under 0.13 and pandas 3 the check's memory was
  // given back instead (0.3 MiB less resident with it), nothing to reuse:
  // not counted so there. Counted in after_read_bytes(), not under the
  // job's copies.
  std::uint64_t reusable_bytes = 0;
  std::vector<ElementCost> children;

  // final_bytes, released_bytes and reusable_bytes to the children's sums; each transient (and the Python
  // temporaries and what is held of them) to the largest of the children's
  // and the element's own.
  void sum_children(std::uint64_t own_python = 0, std::uint64_t own_io = 0, std::uint64_t own_buffer = 0);
};

struct MemoryEstimate {
  RuntimeModel runtime;               // the anndata stack the model is for
  std::vector<ElementCost> elements;  // as Report::elements
  // What the read needs beyond the elements: imported modules, HDF5's
  // per-file structures, per-dataset objects.
  std::uint64_t read_overhead_bytes = 0;

  const ElementCost* find(std::string_view path) const;
  // Memory after the read: every element's final bytes.
  std::uint64_t final_bytes() const;
  // The elements in the order read_h5ad reads them.
  std::vector<const ElementCost*> read_order() const;

  // What Python temporaries add to the peak, and where. Elements are read
  // one after another (read_order()): while one is read, the elements read
  // before it are there with their final bytes, its own temporaries, and
  // what the allocators hold of the earlier read that left the most
  // (python_held_bytes); the elements read after it are not there yet.
  // Once every element is read, that is still held. `bytes` is the most this adds
  // above all final bytes; `element` is the element being read then
  // (nullptr once every element is read), `held_from` the one whose
  // leftovers count in it (nullptr if none).
  struct PythonPeak {
    const ElementCost* element = nullptr;
    const ElementCost* held_from = nullptr;
    std::uint64_t bytes = 0;
  };
  PythonPeak python_peak() const;
  // The top-level element whose read needs the most HDF5 chunk records, and
  // the most HDF5 conversion buffers, or nullptr when none needs any: those
  // pools are counted at their largest throughout (glibc keeps the first,
  // the second is small).
  const ElementCost* io_peak() const;
  const ElementCost* buffer_peak() const;
  // The peak of the read: all final bytes, python_peak().bytes, the largest
  // transient of the two HDF5 pools, and the read overhead. An upper bound:
  // every final counts from the end of the peak's read on.
  std::uint64_t peak_bytes() const;
  // What is left once read_h5ad has returned: all final bytes, the read
  // overhead, what the allocators still keep of the read that left the most,
  // and both HDF5 pools at their largest (glibc keeps them). What a job that
  // goes on to copy X builds on; never above peak_bytes().
  std::uint64_t after_read_bytes() const;
  // What a job's copies of X stand on: after_read_bytes() less the memory
  // freed at the read's end that they reuse (ElementCost::reusable_bytes).
  std::uint64_t job_base_bytes() const;
};

// Throws Error(invalid_h5ad) naming the element whose sizes overflow.
MemoryEstimate estimate_memory(const Report& report, const RuntimeModel& runtime);

}  // namespace h5ad_sizer
