#include "h5ad_sizer/anndata/encoded.hpp"
#include "h5ad_sizer/anndata/reader.hpp"
#include "h5ad_sizer/errors.hpp"
#include "h5ad_sizer/h5/error.hpp"
#include "h5ad_sizer/h5/node.hpp"

namespace h5ad_sizer {

// The decision procedure of anndata's own reader (h5ad-format-and-memory.md
// §2.4): a tagged root is >= 0.8; a compound obs dataset is <= 0.6; an obs
// group is 0.7.
Layout detect_layout(hid_t root, const std::string& source) {
  try {
    if (h5::string_attribute(root, kEncodingType).value_or("") == "anndata") return Layout::modern;
    const auto obs = h5::link_kind(root, "obs");
    if (obs == h5::LinkKind::missing) {
      throw_invalid(source + ": /: not an AnnData file (no obs; root has no encoding-type)");
    }
    h5::Handle handle = h5::open_child(root, "obs");
    return h5::object_type(handle.get()) == h5::ObjectType::dataset ? Layout::legacy
                                                                     : Layout::v0_7;
  } catch (const h5::Failure& failure) {
    throw_invalid(source + ": /: " + failure.what());
  }
}

}  // namespace h5ad_sizer
