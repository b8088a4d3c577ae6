#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "h5ad_sizer/estimate/python_costs.hpp"

// The anndata stacks the model is measured for. Each is a named table of
// constants with the versions they were measured with.
namespace h5ad_sizer {

struct RuntimeModel {
  std::string name;           // "anndata-0.11"
  std::string measured_with;  // the stack's versions
  // The job's interpreter before it reads anything: CPython with anndata,
  // numpy, scipy, pandas and h5py imported. bench/runtimes/baselines.py
  // measures it; the constant is that rounded up to a multiple of 8 MiB,
  // plus 8 MiB for the shared libraries a read maps later.
  std::uint64_t interpreter_bytes = 0;
  // pandas 3 with pyarrow: DataFrame() turns object string columns, the
  // index and categories into Arrow-backed "str" arrays (8 + L bytes a
  // string) while the object arrays it was given are still alive
  // (estimate/memory.cpp).
  bool arrow_strings = false;
  // Copies of nullable integer and boolean columns (values and mask) that
  // building the frame holds beside them. Measured end to end on a frame of
  // 600 000 rows with 5 Int64 and 4 boolean columns (bench/accuracy/
  // make_corpus.py nullable_columns): the peak needs 4 up to anndata 0.11
  // and almost none from 0.12 (docs/accuracy.md). Which calls make them is
  // not yet measured separately.
  double nullable_copies = 0.0;
  // Copies of a nullable-string-array column's strings the read makes
  // (anndata 0.12 under pandas 2 builds a StringArray of new str objects):
  // measured on 400 000-row columns written by anndata 0.11
  // (make_corpus.py nullable_strings): 0.945 of the peak without it. Under
  // pandas 3 StringDtype is Arrow-backed: the column is converted as it is
  // read instead (estimate/memory.cpp, cost_nullable_strings_as_arrow).
  double nullable_string_copies = 0.0;
  // The same for an index stored as nullable-string-array (anndata 0.13
  // under pandas 3 writes every index so): anndata 0.12 copies it like a
  // column. Measured end to end on make_corpus.py pandas3_strings (400 000
  // rows, two such columns and such an index): 0.975 of the peak without it
  // under 0.12, 1.093 with. anndata 0.11 needs none (1.051).
  double nullable_string_index_copies = 0.0;
  // What the read sets up on first use, beyond the 0.8 stack (pandas 3's
  // first Arrow string array: pyarrow is imported with anndata, its compute
  // kernels are not).
  std::uint64_t lazy_import_bytes = 0;
  // read_h5ad reads the root's elements in name order ("X" first); anndata
  // 0.8 leaves raw for last, later versions read it in its place.
  bool reads_raw_last = false;
  // The interpreter's str object layout.
  python::StrHeaders str_headers = python::kCPython311;
  // anndata checks obs_names and var_names for duplicates once the object
  // is built. Up to 0.12.6 it asks the index itself (`index.is_unique`),
  // whose hash engine (and, for an Arrow-backed index, the object copy of
  // its strings the engine hashes) stays with the index; from 0.12.7 it
  // asks a filtered copy (`index[~index.isna()].has_duplicates`), and both
  // are freed when the check returns (anndata/_core/anndata.py,
  // _check_uniqueness, in each stack).
  bool keeps_index_engine = true;
  // Under pandas 3, the share of a nullable-string column's read temporaries
  // (its str objects, their StringDType copy and the str objects again that
  // pd.array makes: estimate/memory.cpp) that the frame's later reads do not
  // reuse; the other reads of a frame leave read_costs::kFrameTemporariesHeld.
  // Measured with bench/accuracy/steps.py --in-order: how far a second such
  // column peaked above the first's Arrow array, the pyarrow buffers it could
  // not reuse and its own peak read alone, over the first's modelled
  // temporaries: 0.11 and 0.14 under anndata 0.13 (CPython 3.13), 0.33 and
  // 0.18 under 0.12.6 with pandas 3 (CPython 3.11), on make_corpus.py's
  // nullable_strings and pandas3_strings.
  double conversion_temporaries_held = 0.12;
};

// CELLxGENE's schema CLI pins anndata 0.11.4 (pandas 2, pyarrow): the
// pipelines this tool serves run it.
inline constexpr const char* kDefaultRuntime = "anndata-0.11";

const std::vector<RuntimeModel>& runtime_models();
std::optional<RuntimeModel> find_runtime(const std::string& name);
// "anndata-0.8, anndata-0.10, ...": for error messages and --help.
std::string runtime_names();

}  // namespace h5ad_sizer
