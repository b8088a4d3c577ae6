#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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
};

// CELLxGENE's schema CLI pins anndata 0.11.4 (pandas 2, pyarrow): the
// pipelines this tool serves run it.
inline constexpr const char* kDefaultRuntime = "anndata-0.11";

const std::vector<RuntimeModel>& runtime_models();
std::optional<RuntimeModel> find_runtime(const std::string& name);
// "anndata-0.8, anndata-0.10, ...": for error messages and --help.
std::string runtime_names();

}  // namespace h5ad_sizer
