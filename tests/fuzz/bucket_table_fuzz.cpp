// libFuzzer target: bucket-table JSON. Every input is a table or an
// Error(usage_error); a table always has ascending buckets and chooses one
// for any requirement.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "h5ad_sizer/buckets/bucket_table.hpp"
#include "h5ad_sizer/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace h5ad_sizer;
  try {
    const BucketTable table = parse_bucket_table(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
    if (table.buckets.empty()) std::abort();
    for (std::size_t i = 1; i < table.buckets.size(); ++i) {
      if (table.buckets[i].memory_mib <= table.buckets[i - 1].memory_mib) std::abort();
    }
    for (const std::uint64_t required : {std::uint64_t{0}, std::uint64_t{1} << 33, ~std::uint64_t{0}}) {
      const BucketChoice choice = choose_bucket(table, required);
      if (choice.index >= table.buckets.size()) std::abort();
    }
  } catch (const Error& error) {
    if (error.status() != ExitStatus::usage_error) std::abort();
  }
  return 0;
}
