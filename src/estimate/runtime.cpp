#include "h5ad_sizer/estimate/runtime.hpp"

#include "h5ad_sizer/checked.hpp"

namespace h5ad_sizer {

const std::vector<RuntimeModel>& runtime_models() {
  // Interpreters measured with bench/runtimes/baselines.py: max of 5 fresh
  // processes on 2026-11-30, 87.1, 94.8, 137.4, 139.4 and 137.0 MiB; max of
  // 3 on 2026-12-01, 87.3, 93.4, 151.5, 138.5 and 135.3 MiB, and again in a
  // fresh checkout the same day 88.3, 95.9, 153.7, 140.0 and 137.0 MiB. The 0.11 stack
  // now has awkward 2.8 installed (for the awkward corpus file), which
  // anndata 0.11 imports whenever it is there: hence 151.5. The
  // read itself (estimate/memory.cpp) was measured against each stack on
  // the calibration corpus (docs/accuracy.md): the same model holds for all.
  static const std::vector<RuntimeModel> models = {
      {"anndata-0.8", "anndata 0.8.0, pandas 1.5.3, numpy 1.24.2, h5py 3.7.0 (Debian bookworm)", 96 * kMiB,
       false, /*nullable_copies=*/4.0, 0.0, 0.0, 0, /*reads_raw_last=*/true},
      {"anndata-0.10", "anndata 0.10.8, pandas 2.2.2, numpy 1.26.4, h5py 3.11.0 (HCA WARP)", 104 * kMiB, false,
       /*nullable_copies=*/4.0, 0.0, 0.0, 0},
      {"anndata-0.11", "anndata 0.11.4, pandas 2.2.3, pyarrow 19.0.1, numpy 2.2.6, h5py 3.13.0 (CELLxGENE schema CLI)",
       160 * kMiB, false, /*nullable_copies=*/4.0, 0.0, 0.0, 0},
      {"anndata-0.12", "anndata 0.12.19, pandas 2.3.3, pyarrow 19.0.1, numpy 2.3.5, h5py 3.15.1 (CELLxGENE Census)",
       152 * kMiB, false, /*nullable_copies=*/0.25, /*nullable_string_copies=*/1.0,
       /*nullable_string_index_copies=*/1.0, 0, /*reads_raw_last=*/false, python::kCPython311,
       /*keeps_index_engine=*/false},
      // pyarrow comes with `import anndata`; the first DataFrame with a str
      // column raised VmHWM by 1.34 MiB more (max of 3 fresh processes,
      // bench/runtimes/baselines.py, last column).
      // A nullable-string conversion leaves 0.35 of its object temporaries
      // to the frame's later reads (measured 0.33 and 0.18).
      {"anndata-0.12-pandas3", "anndata 0.12.6, pandas 3.1.1, pyarrow 19.0.1, numpy 2.3.5, h5py 3.15.1",
       152 * kMiB, /*arrow_strings=*/true, /*nullable_copies=*/0.25, /*nullable_string_copies=*/0.0,
       /*nullable_string_index_copies=*/0.0, /*lazy_import_bytes=*/2 * kMiB, /*reads_raw_last=*/false,
       python::kCPython311, /*keeps_index_engine=*/true, /*conversion_temporaries_held=*/0.35},
      // The first anndata to support pandas 3, on CPython 3.13 built from
      // Debian trixie's source (bench/runtimes/build-python.sh): 173.5 MiB
      // with anndata imported (zarr, numcodecs and pydantic come with it),
      // the first str frame 1.68 MiB more (baselines.py, max of 3,
      // 2026-12-01). Its str objects are 8 (ASCII) and 16 bytes smaller
      // than 3.11's. A nullable-string conversion leaves 0.15 of its object
      // temporaries to the frame's later reads (measured 0.11 and 0.14).
      {"anndata-0.13", "anndata 0.13.4, pandas 3.1.1, pyarrow 19.0.1, numpy 2.3.5, h5py 3.15.1, CPython 3.13.5",
       184 * kMiB, /*arrow_strings=*/true, /*nullable_copies=*/0.25, /*nullable_string_copies=*/0.0,
       /*nullable_string_index_copies=*/0.0, /*lazy_import_bytes=*/2 * kMiB, /*reads_raw_last=*/false,
       python::kCPython313, /*keeps_index_engine=*/false, /*conversion_temporaries_held=*/0.15},
  };
  return models;
}

std::optional<RuntimeModel> find_runtime(const std::string& name) {
  for (const RuntimeModel& model : runtime_models()) {
    if (model.name == name) return model;
  }
  return std::nullopt;
}

std::string runtime_names() {
  std::string names;
  for (const RuntimeModel& model : runtime_models()) {
    if (!names.empty()) names += ", ";
    names += model.name;
  }
  return names;
}

}  // namespace h5ad_sizer
