#include "h5ad_sizer/estimate/memory.hpp"

#include <algorithm>

#include "h5ad_sizer/checked.hpp"
#include "h5ad_sizer/estimate/arrow_pool.hpp"
#include "h5ad_sizer/errors.hpp"
#include "h5ad_sizer/estimate/python_costs.hpp"
#include "h5ad_sizer/estimate/read_costs.hpp"

namespace h5ad_sizer {
namespace {

ElementCost bracketed(const std::string& what, std::uint64_t final_bytes) {
  ElementCost cost;
  cost.path = what;
  cost.final_bytes = final_bytes;
  return cost;
}

// Records read whole: every member's strings are decoded at once.
std::uint64_t records_transient(const std::vector<ElementCost>& members) {
  std::uint64_t transient = 0;
  for (const ElementCost& member : members) transient = checked_add(transient, member.python_transient_bytes);
  return transient;
}

// HDF5's buffers for records with variable-length string members.
std::uint64_t records_buffer_transient(const h5::DatasetInfo& info) {
  const bool strings = std::any_of(info.type.members.begin(), info.type.members.end(),
                                   [](const h5::TypeInfo& member) {
                                     return member.type_class == h5::TypeClass::vlen_string;
                                   });
  return strings ? read_costs::record_conversion() : 0;
}

// pandas.DataFrame(dict) copies plain numpy columns into consolidated 2-D
// blocks (object columns as a block of pointers) while the columns as read
// are still alive; categoricals are kept as they are; nullable integer and
// boolean arrays, and the strings of nullable-string-array columns and
// indexes, are copied as often as the runtime does.
// What the construction copies, and the part of it that is numpy arrays
// (large buffers the allocator gives back once they are freed).
struct ConstructionCopy {
  std::uint64_t bytes = 0;
  std::uint64_t numpy_bytes = 0;
  std::uint64_t string_bytes() const { return bytes - numpy_bytes; }
};

ConstructionCopy construction_copy(const std::vector<ElementCost>& children, std::uint64_t n_columns,
                                   std::uint64_t rows, const RuntimeModel& runtime) {
  std::uint64_t copy = 0;
  std::uint64_t strings = 0;
  // The columns, then the index (children[n_columns]): only its strings
  // matter here.
  for (std::size_t i = 0; i <= n_columns && i < children.size(); ++i) {
    const Element* column = children[i].element;
    if (column == nullptr) continue;
    const bool index = i == n_columns;
    if (column->encoding == "array" && !index) copy = checked_add(copy, children[i].final_bytes);
    if ((column->encoding == "nullable-integer" || column->encoding == "nullable-boolean") && !index) {
      copy = checked_add(copy, checked_scale(children[i].final_bytes, runtime.nullable_copies));
    } else if (column->encoding == "nullable-string-array") {
      // Python strings: what pymalloc keeps of them outlives the read.
      strings = checked_add(strings, checked_scale(children[i].final_bytes, index ? runtime.nullable_string_index_copies
                                                                                  : runtime.nullable_string_copies));
    }
    if (column->encoding == "string-array" && !index) copy = checked_add(copy, checked_mul(rows, python::kPointer));
  }
  return {checked_add(copy, strings), copy};
}

ElementCost cost_of(const Element& element, const RuntimeModel& runtime);

// A dataset, or a member of one: what its form costs.
void cost_data(const Element& element, const RuntimeModel& runtime, ElementCost& cost) {
  const std::uint64_t count = element.nnz;
  const h5::StringSample none;
  const h5::StringSample& sample = element.strings ? *element.strings : none;
  switch (element.form) {
    case Form::numbers:
      cost.final_bytes = checked_mul(count, element.itemsize);
      break;
    case Form::number_object:
      cost.final_bytes = python::kScalarObject;
      break;
    case Form::str_objects:
      cost.final_bytes = python::string_array_bytes(count, sample, runtime.str_headers);
      if (element.shape.empty()) cost.final_bytes -= python::kPointer;  // a lone str, no array
      cost.python_transient_bytes = read_costs::string_objects(count, sample);
      cost.buffer_transient_bytes = read_costs::string_array_conversion(count);
      break;
    case Form::str_field:
      cost.final_bytes = python::string_array_bytes(count, sample, runtime.str_headers);
      cost.python_transient_bytes = read_costs::record_strings(count, sample);
      break;
    case Form::unicode:
      // The bytes array read first is alive during the astype copy.
      cost.final_bytes = python::unicode_array_bytes(count, element.itemsize);
      cost.python_transient_bytes = checked_mul(count, element.itemsize);
      break;
    case Form::unicode_field:
      cost.final_bytes = python::unicode_array_bytes(count, element.itemsize);
      break;
    case Form::references:
      cost.final_bytes = checked_mul(count, python::kPointer);
      break;
    case Form::records:
      // Read whole, then copied by astype to decode the strings.
      for (const Element& member : element.children) cost.children.push_back(cost_of(member, runtime));
      cost.sum_children(records_transient(cost.children), read_costs::dataset(*element.dataset),
                        records_buffer_transient(*element.dataset));
      break;
    case Form::none:
      break;
  }
  if (element.dataset && element.form != Form::none) {
    cost.io_transient_bytes = checked_add(cost.io_transient_bytes, read_costs::dataset(*element.dataset));
  }
  if (element.form != Form::records) {
    cost.python_temporaries_bytes = cost.python_transient_bytes;
    cost.python_held_bytes = element.form == Form::str_objects
                                 ? read_costs::held_after_strings(cost.python_temporaries_bytes)
                                 : read_costs::held_after(cost.python_temporaries_bytes);
    cost.kept_bytes = cost.python_held_bytes;
  }
}

// pandas 3 with pyarrow: inside DataFrame() each object string column and
// the index become Arrow "str" arrays, one after another, while every object
// array it was given is alive; an index whose uniqueness anndata checks
// keeps an object copy for its hash engine. Bounded from above: the object
// arrays stay as costed, the Arrow arrays are added (a bracketed child),
// and so is the largest conversion's build. Measured in the anndata-0.12-
// pandas3 stack (400 000 strings of 12 and 40 bytes, one and two columns):
// a conversion needs 1.0-1.4 times the Arrow array above it while building.
constexpr double kArrowBuildFactor = 1.5;

// What building one Arrow string array of `count` strings holds at most:
// 1.5 x the array, and the copy of pointers ensure_string_array makes first.
std::uint64_t arrow_build(std::uint64_t arrow_bytes, std::uint64_t count) {
  return checked_add(checked_scale(arrow_bytes, kArrowBuildFactor), checked_mul(count, python::kPointer));
}

// The buffers pyarrow's builder grows while it makes one large_string array
// of `count` strings and `text` bytes, above the array it then returns: the
// offsets and the text, each doubled from small until it fits. Measured with
// VmHWM around pa.array(objects, type=pa.large_string()), 400 000 strings of
// 16-300 bytes, a fresh process each (pyarrow 19.0.1; bench/accuracy/
// string_buffers.py): the peak above the start was 0.83-1.00 of this plus
// the array, and jumped by 20 MB between 41 and 42 bytes a string, where
// the text outgrows 16 MiB.
std::uint64_t arrow_builder(std::uint64_t count, std::uint64_t text) {
  return checked_add(pow2_at_least(checked_mul(checked_add(count, 1), 8)), pow2_at_least(text));
}

// pandas.Categorical.from_codes: codes re-cast to the smallest type for the
// number of categories, categories as an Index whose uniqueness is checked
// (building a hash table that the Index keeps).
void cost_categorical(const Element& element, const RuntimeModel& runtime, ElementCost& cost) {
  for (const Element& child : element.children) cost.children.push_back(cost_of(child, runtime));
  ElementCost& codes = cost.children.at(0);
  const std::uint64_t n_categories = element.children.at(1).length();
  // Re-casting copies the codes as read, which are alive during the copy.
  const std::uint64_t as_read = codes.final_bytes;
  codes.final_bytes = checked_mul(element.children[0].length(), python::categorical_code_itemsize(n_categories));
  const std::uint64_t recast = as_read != codes.final_bytes ? as_read : 0;
  const Element& categories = element.children[1];
  std::uint64_t conversion = 0;
  if (runtime.arrow_strings && categories.form == Form::str_objects && categories.strings) {
    // Arrow-backed categories, beside the object copy their hash engine
    // keeps; converting them is built like a column's (see arrow_conversion).
    const std::uint64_t arrow = python::arrow_string_array_bytes(n_categories, *categories.strings);
    cost.children.push_back(bracketed("[categories as Arrow strings]", arrow));
    // Right after the categories' read, whose bytes objects pymalloc still
    // holds: measured on 360 000 categories, the build adds to that read.
    cost.arrow_temporaries_bytes = arrow_build(arrow, n_categories);
    conversion = checked_add(cost.children[1].python_transient_bytes, cost.arrow_temporaries_bytes);
  }
  cost.children.push_back(bracketed("[categories hash table]", python::hash_table_bytes(n_categories)));
  cost.sum_children(std::max(recast, conversion));
  if (conversion > 0) {
    // The hash engine's object copy of the Arrow categories is made once the
    // read's own temporaries are freed, out of what they left: with it kept
    // besides them, high_cardinality_categoricals' resident memory after
    // the read came out 27-30 MiB above the measured one under pandas 3,
    // whose two engines free 49-58 MiB when dropped (bench/accuracy/
    // leftovers.py, anndata-0.12-pandas3 and 0.13).
    const std::uint64_t copy = cost.children[1].final_bytes;
    cost.kept_bytes -= std::min(cost.kept_bytes, copy);
  }
}

// What a nullable-string column converted to Arrow as it is read (below)
// leaves held, as a share of its temporaries.
// Read alone, 0.28-0.47 were resident once it returned (steps.py, "resident
// after" less the Arrow array and the HDF5 buffers, over this model's
// temporaries); in a frame the next such read reuses part of it. With 0.4,
// what the read leaves came out 1.134-1.197 of the resident memory measured
// once read_h5ad returned on nullable_strings and pandas3_strings under
// anndata 0.13 and 0.12.6 (bench/accuracy/run.py --job after); with 0.25,
// 1.020-1.090.
constexpr double kConversionHeld = 0.25;

// anndata 0.12 and later read a nullable-string-array into pandas'
// StringDtype, which pandas 3 backs with pyarrow, as they read it: the
// values as str objects, a numpy StringDType copy of them, str objects again
// inside pd.array, then the Arrow array (a second one where the mask marks
// the missing values, once the first's temporaries are gone). Only the Arrow
// array outlives the read: the values hold nothing after it, and the
// column's read needs them all at once above it, with the share of the
// values' own read temporaries that the copies do not reuse. Measured step
// by step in one process with bench/accuracy/steps.py under anndata 0.13
// and 0.12.6 (400 000 strings of 20-51 bytes, five columns): the model is
// 0.90-1.04 of each column's peak read alone (docs/memory-model.md).
void cost_nullable_strings_as_arrow(const Element& element, const RuntimeModel& runtime, ElementCost& cost) {
  for (const Element& child : element.children) cost.children.push_back(cost_of(child, runtime));
  const Element* values = element.children.empty() ? nullptr : &element.children[0];
  if (values == nullptr || values->form != Form::str_objects || !values->strings) {
    cost.sum_children();
    return;
  }
  ElementCost& objects = cost.children[0];  // before anything is added to the children
  const std::uint64_t count = values->nnz;
  const std::uint64_t str_objects = objects.final_bytes;
  const std::uint64_t read_temporaries = objects.python_temporaries_bytes;
  const std::uint64_t read_held = objects.python_held_bytes;
  objects.python_transient_bytes = checked_add(str_objects, objects.python_transient_bytes);
  objects.final_bytes = 0;
  const std::uint64_t arrow = python::arrow_string_array_bytes(count, *values->strings);
  cost.children.push_back(bracketed("[values as Arrow strings]", arrow));
  const std::uint64_t text = python::string_text_bytes(count, *values->strings);
  cost.arrow_temporaries_bytes = arrow_builder(count, text);
  cost.arrow_block_bytes = pow2_at_least(text);
  std::uint64_t conversion = checked_add(checked_scale(str_objects, 2.0),
                                         python::string_dtype_array_bytes(count, *values->strings));
  conversion = checked_add(conversion, checked_scale(read_temporaries, read_costs::kFrameTemporariesHeld));
  conversion = checked_add(conversion, cost.arrow_temporaries_bytes);
  cost.sum_children(conversion);
  cost.python_held_bytes = std::max(checked_scale(conversion, kConversionHeld), read_held);
  cost.kept_bytes = cost.python_held_bytes;
}

// Adds the Arrow arrays as a child; returns the largest conversion's build.
// A nullable-string-array is Arrow already (cost_nullable_strings_as_arrow).
// Once the frame is built, the object arrays it was given are freed, but
// for the index's when the runtime checks the index itself for duplicates
// (its hash engine keeps an object copy: RuntimeModel::keeps_index_engine).
std::uint64_t arrow_conversion(ElementCost& cost, std::uint64_t n_columns, bool index_kept) {
  std::uint64_t arrays = 0;
  std::uint64_t largest_build = 0;
  for (std::size_t i = 0; i < cost.children.size() && i <= n_columns; ++i) {
    ElementCost* objects = &cost.children[i];
    const Element* column = objects->element;
    if (column == nullptr || column->form != Form::str_objects || !column->strings) continue;
    const std::uint64_t arrow = python::arrow_string_array_bytes(column->nnz, *column->strings);
    arrays = checked_add(arrays, arrow);
    largest_build = std::max(largest_build, arrow_build(arrow, column->nnz));
    if (i < n_columns || !index_kept) objects->released_bytes = objects->final_bytes;
  }
  if (arrays > 0) cost.children.push_back(bracketed("[string columns as Arrow]", arrays));
  return largest_build;
}

// anndata reads an encoded frame's columns in column order, then its index,
// then builds the frame from them: while one is read, only those before it
// are there, with the share of the earlier reads' temporaries that it does
// not reuse (their shares add up: an index read after two categoricals
// stands over both's). The construction copies with the share of the
// largest earlier read over every final of the frame, the hash table pandas
// builds later among them (an upper bound): copies of one column reuse what
// the reads of the others left (summed, the nullable-string copies of
// anndata 0.12 came out 1.117 of the measured peak, docs/memory-model.md).
// Columns converted to Arrow as they are read (nullable strings under
// pandas 3) leave their own share (RuntimeModel::conversion_temporaries_held),
// and theirs do not add up: each such read reuses the objects the one before
// it left (bench/accuracy/steps.py --in-order: the index of pandas3_strings,
// read after two such columns, stood 47.4 MiB above its own peak read alone
// and the columns' Arrow arrays under anndata 0.13, 51.1 under 0.12.6, the
// pool's buffers among it; with the shares summed, nullable_strings' load
// under 0.12.6 came out 1.103 of its peak, with the largest 1.055). What pyarrow's
// pool served stays resident unless a later build reuses it (ArrowPool).
// Returns the most this needs above the frame's final bytes.
std::uint64_t frame_read_peak(const ElementCost& frame, std::size_t reads, std::uint64_t construction,
                              const RuntimeModel& runtime) {
  std::uint64_t done = 0;       // finals of the columns read so far
  std::uint64_t left = 0;       // what the reads so far left that a later one does not reuse ...
  std::uint64_t converted = 0;  // ... but for the columns converted to Arrow as read: the most one left
  std::uint64_t largest = 0;    // the most any one read left
  ArrowPool pool;               // what pyarrow served so far
  std::uint64_t peak = 0;       // the frame's memory at its highest
  for (std::size_t i = 0; i < reads && i < frame.children.size(); ++i) {
    const ElementCost& column = frame.children[i];
    const std::uint64_t during = checked_add(checked_add(done, column.final_bytes), column.python_transient_bytes);
    const std::uint64_t beside = pool.beside(column.arrow_temporaries_bytes, column.arrow_block_bytes);
    peak = std::max(peak, checked_add(checked_add(during, left), checked_add(converted, beside)));
    done = checked_add(done, column.final_bytes);
    const std::uint64_t objects = column.python_temporaries_bytes - column.arrow_temporaries_bytes;
    // Converted as read (cost_nullable_strings_as_arrow): each such read
    // reuses what the one before it left of the same kinds of objects.
    const bool as_read = column.arrow_block_bytes > 0;
    const std::uint64_t leaves =
        checked_scale(objects, as_read ? runtime.conversion_temporaries_held : read_costs::kFrameTemporariesHeld);
    if (as_read) {
      converted = std::max(converted, leaves);
    } else {
      left = checked_add(left, leaves);
    }
    largest = std::max(largest, leaves);
    pool.add(column.arrow_temporaries_bytes, column.arrow_block_bytes);
  }
  const std::uint64_t beside = checked_add(largest, pool.beside(0, 0));
  peak = std::max(peak, checked_add(checked_add(frame.final_bytes, construction), beside));
  return peak - frame.final_bytes;
}

void cost_dataframe(const Element& element, const RuntimeModel& runtime, ElementCost& cost) {
  for (const Element& child : element.children) cost.children.push_back(cost_of(child, runtime));
  const std::uint64_t rows = element.shape.empty() ? 0 : element.shape[0];
  const bool index_engine_kept = element.checks_unique_index && runtime.keeps_index_engine;
  std::uint64_t own_python = 0;
  ConstructionCopy copy;  // part of own_python
  std::uint64_t own_io = 0;
  std::uint64_t own_buffer = 0;
  if (element.dataset) {
    // Legacy records: read whole and decoded, then the frame's construction
    // copy; the first member is the index.
    copy = construction_copy(cost.children, cost.children.empty() ? 0 : cost.children.size() - 1, rows, runtime);
    own_python = checked_add(records_transient(cost.children), copy.bytes);
    own_io = read_costs::dataset(*element.dataset);
    own_buffer = records_buffer_transient(*element.dataset);
  } else {
    const std::uint64_t n_columns = element.shape.size() > 1 ? element.shape[1] : 0;
    copy = construction_copy(cost.children, n_columns, rows, runtime);
    own_python = copy.bytes;
    if (runtime.arrow_strings) {
      own_python = checked_add(own_python, arrow_conversion(cost, n_columns, index_engine_kept));
      const Element* index = n_columns < element.children.size() ? &element.children[n_columns] : nullptr;
      if (index_engine_kept && index != nullptr && index->encoding == "nullable-string-array" &&
          !index->children.empty() && index->children[0].form == Form::str_objects && index->children[0].strings) {
        // An Arrow index read as such: its hash engine hashes an object copy.
        const Element& values = index->children[0];
        cost.children.push_back(bracketed("[index engine's str objects]",
                                          python::string_array_bytes(values.nnz, *values.strings, runtime.str_headers)));
      }
    }
  }
  if (element.checks_unique_index) {
    // Built at the read's end, when every final is there. A check on a copy
    // frees its table, but the allocator keeps it in some reads and not in
    // others (bench/accuracy/leftovers.py: read_h5ad with and without the
    // check, max of 3 fresh processes each: nullable_columns' 16 MiB table stayed resident
    // under anndata 0.12 and pandas 2, 16.3 MiB more with the check, and
    // went under 0.13, 0.3 MiB less): it is kept, whichever the runtime, and
    // under pandas 2, where glibc kept it, the job's copies reuse it
    // (ElementCost::reusable_bytes).
    ElementCost table = bracketed("[index hash table]", python::hash_table_bytes(rows));
    if (!runtime.keeps_index_engine && !runtime.arrow_strings) table.reusable_bytes = table.final_bytes;
    cost.children.push_back(std::move(table));
  }
  cost.sum_children(own_python, own_io, own_buffer);
  // Of the construction, the numpy copies are given back once freed, and
  // pymalloc keeps of the string copies what it keeps after a string read
  // (bench/out/after, anndata-0.12: nullable_strings' and pandas3_strings'
  // resident memory after the read is 0.29-0.30 of their string copies
  // above the rest). Under pandas 3 they go through pyarrow's pool, which
  // keeps what it keeps of any read (pandas3_strings: 0.4 came out 4.9 MiB
  // under).
  const std::uint64_t strings_kept = runtime.arrow_strings ? read_costs::held_after(copy.string_bytes())
                                                           : read_costs::held_after_strings(copy.string_bytes());
  cost.kept_bytes = checked_add(read_costs::held_after(own_python - copy.bytes), strings_kept);
  // Each column read leaves holes among its survivors that the next reads
  // only partly fill: what the largest keeps, and the share of the others'
  // temporaries a read does not reuse (read_costs::kFrameTemporariesHeld).
  // With the largest alone, high_cardinality_categoricals' resident memory
  // after the read came out 4-8 MiB above the estimate (bench/accuracy/run.py
  // --job after).
  const ElementCost* most = nullptr;
  std::uint64_t temporaries = 0;
  for (const ElementCost& child : cost.children) {
    if (!most || child.kept_bytes > most->kept_bytes) most = &child;
    temporaries = checked_add(temporaries, child.python_temporaries_bytes - child.arrow_temporaries_bytes);
  }
  if (most != nullptr) {
    // Object temporaries only, as in frame_read_peak: pyarrow's pool is kept apart.
    const std::uint64_t others = checked_scale(
        temporaries - (most->python_temporaries_bytes - most->arrow_temporaries_bytes),
        read_costs::kFrameTemporariesHeld);
    cost.kept_bytes = std::max(cost.kept_bytes, checked_add(most->kept_bytes, others));
  }
  if (!element.dataset) {
    // The columns and the index, which come first among the children.
    const std::size_t reads = (element.shape.size() > 1 ? element.shape[1] : 0) + 1;
    cost.python_transient_bytes = frame_read_peak(cost, reads, own_python, runtime);
  }
}

ElementCost cost_of(const Element& element, const RuntimeModel& runtime) {
  ElementCost cost;
  cost.element = &element;
  cost.path = element.path;
  if (element.form != Form::none) {
    cost_data(element, runtime, cost);
  } else if (element.encoding == "categorical") {
    cost_categorical(element, runtime, cost);
  } else if (element.encoding == "nullable-string-array" && runtime.arrow_strings) {
    cost_nullable_strings_as_arrow(element, runtime, cost);
  } else if (element.encoding == "dataframe") {
    cost_dataframe(element, runtime, cost);
  } else {
    for (const Element& child : element.children) cost.children.push_back(cost_of(child, runtime));
    cost.sum_children();
  }
  return cost;
}

const ElementCost* largest(const std::vector<ElementCost>& elements, std::uint64_t ElementCost::*field) {
  const ElementCost* peak = nullptr;
  for (const ElementCost& element : elements) {
    if (element.*field > 0 && (!peak || element.*field > (*peak).*field)) peak = &element;
  }
  return peak;
}

}  // namespace

void ElementCost::sum_children(std::uint64_t own_python, std::uint64_t own_io, std::uint64_t own_buffer) {
  final_bytes = 0;
  released_bytes = 0;
  reusable_bytes = 0;
  python_transient_bytes = own_python;
  python_temporaries_bytes = own_python;
  python_held_bytes = read_costs::held_after(own_python);
  kept_bytes = python_held_bytes;
  io_transient_bytes = own_io;
  buffer_transient_bytes = own_buffer;
  for (const ElementCost& child : children) {
    final_bytes = checked_add(final_bytes, child.final_bytes);
    released_bytes = checked_add(released_bytes, child.released_bytes);
    reusable_bytes = checked_add(reusable_bytes, child.reusable_bytes);
    python_transient_bytes = std::max(python_transient_bytes, child.python_transient_bytes);
    python_temporaries_bytes = std::max(python_temporaries_bytes, child.python_temporaries_bytes);
    python_held_bytes = std::max(python_held_bytes, child.python_held_bytes);
    kept_bytes = std::max(kept_bytes, child.kept_bytes);
    io_transient_bytes = std::max(io_transient_bytes, child.io_transient_bytes);
    buffer_transient_bytes = std::max(buffer_transient_bytes, child.buffer_transient_bytes);
  }
}

const ElementCost* MemoryEstimate::find(std::string_view path) const {
  for (const ElementCost& element : elements) {
    if (element.path == path) return &element;
  }
  return nullptr;
}

std::uint64_t MemoryEstimate::final_bytes() const {
  std::uint64_t total = 0;
  for (const ElementCost& element : elements) total = checked_add(total, element.final_bytes);
  return total;
}

std::vector<const ElementCost*> MemoryEstimate::read_order() const {
  std::vector<const ElementCost*> order;
  for (const ElementCost& element : elements) order.push_back(&element);
  // h5py lists a group's links in name order (bytes, so "X" before "layers");
  // raw.X and raw.var of files before anndata 0.7 are read after the rest.
  auto last = [&](const ElementCost* e) {
    return e->path.rfind("/raw.", 0) == 0 || (runtime.reads_raw_last && e->path.rfind("/raw/", 0) == 0);
  };
  std::stable_sort(order.begin(), order.end(), [&](const ElementCost* a, const ElementCost* b) {
    if (last(a) != last(b)) return last(b);
    return a->path < b->path;
  });
  return order;
}

MemoryEstimate::PythonPeak MemoryEstimate::python_peak() const {
  const std::vector<const ElementCost*> order = read_order();
  const std::uint64_t all = final_bytes();
  PythonPeak peak;
  std::uint64_t done = 0;                   // finals of the elements read so far
  const ElementCost* largest_before = nullptr;  // the read so far that left the most held
  auto held = [](const ElementCost* e) { return e ? e->python_held_bytes : 0; };
  for (const ElementCost* element : order) {
    done = checked_add(done, element->final_bytes);
    // Above all finals: this read's temporaries and earlier leftovers, less
    // the finals of what is read after it.
    const std::uint64_t during = checked_add(element->python_transient_bytes, held(largest_before));
    const std::uint64_t later = all - done;
    if (during > later && during - later > peak.bytes) {
      // A read with no temporaries of its own only carries earlier leftovers.
      peak = {element->python_transient_bytes > 0 ? element : nullptr,
              held(largest_before) > 0 ? largest_before : nullptr, during - later};
    }
    if (element->python_held_bytes > 0 &&
        (!largest_before || element->python_held_bytes > largest_before->python_held_bytes)) {
      largest_before = element;
    }
  }
  if (held(largest_before) > peak.bytes) peak = {nullptr, largest_before, held(largest_before)};
  return peak;
}
const ElementCost* MemoryEstimate::io_peak() const { return largest(elements, &ElementCost::io_transient_bytes); }
const ElementCost* MemoryEstimate::buffer_peak() const {
  return largest(elements, &ElementCost::buffer_transient_bytes);
}

std::uint64_t MemoryEstimate::after_read_bytes() const {
  std::uint64_t total = checked_add(final_bytes(), read_overhead_bytes);
  for (const ElementCost& element : elements) {
    total = checked_add(total - element.released_bytes, read_costs::held_after_release(element.released_bytes));
  }
  if (const ElementCost* kept = largest(elements, &ElementCost::kept_bytes)) {
    total = checked_add(total, kept->kept_bytes);
  }
  if (const ElementCost* peak = io_peak()) total = checked_add(total, peak->io_transient_bytes);
  if (const ElementCost* peak = buffer_peak()) total = checked_add(total, peak->buffer_transient_bytes);
  // What is left cannot exceed what was there at the peak; where the
  // leftovers' bound says more, the peak's is the tighter.
  return std::min(total, peak_bytes());
}

std::uint64_t MemoryEstimate::job_base_bytes() const {
  std::uint64_t reusable = 0;
  for (const ElementCost& element : elements) reusable = checked_add(reusable, element.reusable_bytes);
  const std::uint64_t after = after_read_bytes();
  return after - std::min(after, reusable);
}

std::uint64_t MemoryEstimate::peak_bytes() const {
  std::uint64_t total = checked_add(final_bytes(), read_overhead_bytes);
  total = checked_add(total, python_peak().bytes);
  if (const ElementCost* peak = io_peak()) total = checked_add(total, peak->io_transient_bytes);
  if (const ElementCost* peak = buffer_peak()) total = checked_add(total, peak->buffer_transient_bytes);
  return total;
}

MemoryEstimate estimate_memory(const Report& report, const RuntimeModel& runtime) {
  MemoryEstimate estimate;
  estimate.runtime = runtime;
  for (const Element& element : report.elements) {
    try {
      estimate.elements.push_back(cost_of(element, runtime));
    } catch (const std::overflow_error& overflow) {
      throw_invalid(report.source + ": " + element.path + ": " + overflow.what());
    }
  }
  try {
    estimate.read_overhead_bytes =
        checked_add(read_costs::read_overhead(report.datasets_read), runtime.lazy_import_bytes);
  } catch (const std::overflow_error& overflow) {
    throw_invalid(report.source + ": /: " + overflow.what());
  }
  return estimate;
}

}  // namespace h5ad_sizer
