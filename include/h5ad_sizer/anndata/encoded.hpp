#pragma once

// Attribute names of the AnnData on-disk specification, and of its legacy
// predecessors, in one place.
namespace h5ad_sizer {

inline constexpr const char* kEncodingType = "encoding-type";
inline constexpr const char* kEncodingVersion = "encoding-version";
inline constexpr const char* kShape = "shape";                        // csr/csc >= 0.7
inline constexpr const char* kLegacySparseFormat = "h5sparse_format";  // <= 0.6
inline constexpr const char* kLegacySparseShape = "h5sparse_shape";    // <= 0.6
inline constexpr const char* kIndexName = "_index";                   // dataframe
inline constexpr const char* kColumnOrder = "column-order";           // dataframe
inline constexpr const char* kV07Categories = "__categories";         // 0.7 dataframe group
inline constexpr const char* kV07CategoriesAttr = "categories";       // 0.7 column attribute

}  // namespace h5ad_sizer
