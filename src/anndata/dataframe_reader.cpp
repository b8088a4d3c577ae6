// Dataframes and categoricals: the parts of the format that changed most
// between anndata versions (compound records in <= 0.6, __categories in 0.7,
// encoded groups since 0.8).
#include <algorithm>

#include "h5ad_sizer/anndata/element_reader.hpp"
#include "h5ad_sizer/anndata/encoded.hpp"
#include "h5ad_sizer/checked.hpp"
#include "h5ad_sizer/h5/node.hpp"

namespace h5ad_sizer {
namespace {

// pandas.Categorical.from_codes over the codes and categories as read.
Element categorical_element(const std::string& path, Element codes, Element categories) {
  const std::uint64_t rows = codes.length();
  Element element;
  element.path = path;
  element.encoding = "categorical";
  element.dtype = "category";
  element.shape = {rows};
  element.nnz = rows;
  element.children = {std::move(codes), std::move(categories)};
  element.sum_children();
  return element;
}

}  // namespace

Element ElementReader::read_dataframe(hid_t parent, const std::string& name,
                                      const std::string& path,
                                      const LegacyCategories& categories_for) {
  return with_object(parent, name, path, [&](hid_t object) {
    if (h5::object_type(object) == h5::ObjectType::dataset) {
      return read_compound_dataframe(object, path, categories_for);
    }
    if (h5::object_type(object) != h5::ObjectType::group) invalid(path, "not a dataframe");
    auto encoding = attributes(object).string(object, kEncodingType);
    if (encoding && *encoding != "dataframe") {
      invalid(path, "expected a dataframe, found encoding-type '" + *encoding + "'");
    }
    return read_encoded_dataframe(object, path);
  });
}

Element ElementReader::read_encoded_dataframe(hid_t group, const std::string& path) {
  auto index_name = attributes(group).string(group, kIndexName);
  if (!index_name) invalid(path, "dataframe has no _index attribute");
  auto columns = attributes(group).string_list(group, kColumnOrder);
  if (!columns) invalid(path, "dataframe has no column-order attribute");
  // 0.7 (dataframe 0.1.0) kept categories apart, found by the column name.
  const bool v07 = attributes(group).string(group, kEncodingVersion).value_or("") == "0.1.0";

  Element element;
  element.path = path;
  element.encoding = "dataframe";
  std::vector<std::string> accounted = {*index_name};
  for (const std::string& column : *columns) {
    const std::string column_path = path + "/" + column;
    element.children.push_back(
        v07 ? read_v07_categorical(group, column, column_path)
            : read(group, column, column_path));
    accounted.push_back(column);
  }
  element.children.push_back(read(group, *index_name, path + "/" + *index_name));
  const std::uint64_t rows = element.children.back().length();
  if (v07) accounted.push_back(kV07Categories);

  // Anything else in the group is not part of the frame, but it is in the
  // file: count it so that the bytes add up.
  for (const std::string& name : h5::child_names(group)) {
    if (std::find(accounted.begin(), accounted.end(), name) != accounted.end()) continue;
    Element extra = read(group, name, path + "/" + name);
    extra.note = "not a column of the dataframe";
    element.children.push_back(std::move(extra));
  }
  element.shape = {rows, columns->size()};
  element.sum_children();
  return element;
}

Element ElementReader::read_v07_categorical(hid_t dataframe, const std::string& column,
                                            const std::string& path) {
  return with_object(dataframe, column, path, [&](hid_t codes) {
    if (h5::object_type(codes) != h5::ObjectType::dataset ||
        !attributes(codes).has(codes, kV07CategoriesAttr)) {
      return dispatch(codes, path);
    }
    // The column's `categories` attribute references __categories/<column>;
    // anndata 0.7 always wrote it there, so we find it by name.
    const std::string categories_path = path.substr(0, path.rfind('/')) + "/" +
                                        kV07Categories + "/" + column;
    h5::Handle categories_group = h5::open_child(dataframe, kV07Categories);
    Element categories = read(categories_group.get(), column, categories_path);
    return categorical_element(path, dispatch(codes, path), std::move(categories));
  });
}

Element ElementReader::read_categorical(hid_t group, const std::string& path) {
  Element codes = read(group, "codes", path + "/codes");
  Element categories = read(group, "categories", path + "/categories");
  return categorical_element(path, std::move(codes), std::move(categories));
}

Element ElementReader::read_compound_dataframe(hid_t dataset, const std::string& path,
                                               const LegacyCategories& categories_for) {
  const h5::DatasetInfo info = describe(dataset);
  if (info.type.type_class != h5::TypeClass::compound || info.dims.size() != 1) {
    invalid(path, "a dataset here must be a one-dimensional compound (record) array");
  }
  Element element;
  element.path = path;
  element.encoding = "dataframe";
  // read_dataframe_legacy: records -> DataFrame, strings as str objects, the
  // first member ("index") as the index.
  std::vector<Element> members =
      split_compound(dataset, path, info, /*strings_as_objects=*/true);
  // Columns first, then the index (member 0), as for encoded dataframes.
  std::vector<std::size_t> order;
  for (std::size_t i = 1; i < members.size(); ++i) order.push_back(i);
  if (!members.empty()) order.push_back(0);
  for (std::size_t i : order) {
    const auto member_class = info.type.members[i].type_class;
    const bool integer = member_class == h5::TypeClass::signed_integer ||
                         member_class == h5::TypeClass::unsigned_integer;
    std::optional<Element> categories;
    if (i > 0 && integer && categories_for) categories = categories_for(info.type.member_names[i]);
    if (categories) {
      const std::string column_path = members[i].path;
      element.children.push_back(
          categorical_element(column_path, std::move(members[i]), std::move(*categories)));
    } else {
      element.children.push_back(std::move(members[i]));
    }
  }
  element.shape = {info.elements, members.empty() ? 0 : members.size() - 1};
  element.sum_children();
  element.dataset = info;
  return element;
}

}  // namespace h5ad_sizer
