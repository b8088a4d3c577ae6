// libFuzzer target: an .h5ad file image through the whole read and the
// memory model, over the ByteSource seam (no file system, no child
// process). Every input must end in a result or an Error; anything else
// (a crash, a sanitizer report, another exception) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "h5ad_sizer/anndata/reader.hpp"
#include "h5ad_sizer/errors.hpp"
#include "h5ad_sizer/estimate/memory.hpp"
#include "h5ad_sizer/estimate/runtime.hpp"
#include "h5ad_sizer/io/byte_source.hpp"
#include "h5ad_sizer/source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace h5ad_sizer;
  try {
    const OpenedSource source =
        open_bytes(io::open_memory(std::string(reinterpret_cast<const char*>(data), size)), "fuzz.h5ad");
    ReadOptions options;
    options.storage = h5::StorageDetail::object_header;
    const Report report = read_anndata(source, options);
    for (const RuntimeModel& runtime : runtime_models()) (void)estimate_memory(report, runtime).peak_bytes();
  } catch (const Error&) {
    // A classified failure: what bad input should get.
  }
  return 0;
}
